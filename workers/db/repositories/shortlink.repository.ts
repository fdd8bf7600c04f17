import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { assets, cacheRevisions, collections, groups, outgoingEmails, shortlinks, users } from "../schema/index";

/** Queries of shortlinks and of the outbox of mailed invitations. */

export function insertShortlinkStatement(db: Database, row: typeof shortlinks.$inferInsert) {
  return db.insert(shortlinks).values(row);
}

export function findShortlink(db: Database, id: string) {
  return db.select().from(shortlinks).where(eq(shortlinks.id, id)).get();
}

/** The user who made link `id` (whose rights it carries) and what it shares, in one read: undefined for no such link. */
export function findLinkCreator(db: Database, id: string) {
  return db
    .select({ user: users, entityType: shortlinks.entityType })
    .from(shortlinks)
    .innerJoin(users, eq(users.id, shortlinks.creatorId))
    .where(eq(shortlinks.id, id))
    .get();
}

/**
 * What the edge cache needs to know about a link before it may look anything up (one indexed read): whether it is
 * open by its own rules (revoked, window), whether it has a password, and the current `shared` cache revision.
 */
export function probeShortlink(db: Database, id: string) {
  return db
    .select({
      id: shortlinks.id,
      entityId: shortlinks.entityId,
      entityType: shortlinks.entityType,
      locked: sql<number>`${shortlinks.passwordHash} is not null`,
      revokedAt: shortlinks.revokedAt,
      notBefore: shortlinks.notBefore,
      notAfter: shortlinks.notAfter,
      revision: cacheRevisions.revision,
    })
    .from(shortlinks)
    .innerJoin(cacheRevisions, eq(cacheRevisions.scope, "shared"))
    .where(eq(shortlinks.id, id))
    .get();
}

export type ShortlinkProbe = NonNullable<Awaited<ReturnType<typeof probeShortlink>>>;

/** Columns every listing shows: the link, its creator's name and the shared item's name (one join each). */
const listColumns = {
  link: shortlinks,
  creatorName: users.name,
  entityName: sql<string | null>`coalesce(${assets.name}, ${groups.name}, ${collections.name})`,
};

function listQuery(db: Database) {
  return db
    .select(listColumns)
    .from(shortlinks)
    .leftJoin(users, eq(users.id, shortlinks.creatorId))
    .leftJoin(assets, and(eq(shortlinks.entityType, "asset"), eq(assets.id, shortlinks.entityId)))
    .leftJoin(groups, and(eq(shortlinks.entityType, "group"), eq(groups.id, shortlinks.entityId)))
    .leftJoin(collections, and(eq(shortlinks.entityType, "collection"), eq(collections.id, shortlinks.entityId)));
}

/** Live links of an entity, newest first; `creatorId` narrows to one creator's links. */
export function linksOfEntity(db: Database, entityId: string, creatorId?: string) {
  const where = [eq(shortlinks.entityId, entityId), isNull(shortlinks.revokedAt)];
  if (creatorId) where.push(eq(shortlinks.creatorId, creatorId));
  return listQuery(db)
    .where(and(...where))
    .orderBy(desc(shortlinks.ctime), desc(shortlinks.id))
    .limit(500);
}

/** Every link not revoked and not past its end, newest first (administrators' view), paged. */
export function activeLinks(db: Database, now: number, skip: number, take: number) {
  return listQuery(db)
    .where(and(isNull(shortlinks.revokedAt), sql`(${shortlinks.notAfter} is null or ${shortlinks.notAfter} > ${now})`))
    .orderBy(desc(shortlinks.ctime), desc(shortlinks.id))
    .limit(take)
    .offset(skip);
}

export type ShortlinkListRow = Awaited<ReturnType<typeof linksOfEntity>>[number];

export function updateShortlinkStatement(db: Database, id: string, set: Partial<typeof shortlinks.$inferInsert>) {
  return db.update(shortlinks).set(set).where(and(eq(shortlinks.id, id), isNull(shortlinks.revokedAt)));
}

/** Counts an open (`views`) or a download, and when it happened. */
export function countUseStatement(db: Database, id: string, kind: "view" | "download", now: number) {
  return db
    .update(shortlinks)
    .set(
      kind === "view"
        ? { views: sql`${shortlinks.views} + 1`, lastOpenedAt: now }
        : { downloads: sql`${shortlinks.downloads} + 1`, lastOpenedAt: now },
    )
    .where(eq(shortlinks.id, id));
}

/** Counts `n` opens at once (the edge cache gathers the opens it answered and writes them together). */
export function countViewsStatement(db: Database, id: string, n: number, lastAt: number) {
  return db
    .update(shortlinks)
    .set({ views: sql`${shortlinks.views} + ${n}`, lastOpenedAt: sql`max(coalesce(${shortlinks.lastOpenedAt}, 0), ${lastAt})` })
    .where(eq(shortlinks.id, id));
}

/** Whether an asset is listed in the group or anywhere in its subtree (what a group link may show). */
export async function assetInSubtree(db: Database, groupId: string, assetId: string): Promise<boolean> {
  const row = await db.get<{ one: number }>(sql`
    select 1 as one from group_closure c
    join group_members m on m.group_id = c.descendant and m.el_type = 'asset' and m.el_id = ${assetId}
    join groups g on g.id = c.descendant and g.deleted_at is null
    where c.ancestor = ${groupId} limit 1`);
  return row != null;
}

/** A group with its name and owner, trashed or not. */
export function findGroupNamed(db: Database, id: string) {
  return db.select({ id: groups.id, name: groups.name, ownerId: groups.ownerId, deletedAt: groups.deletedAt }).from(groups).where(eq(groups.id, id)).get();
}

export function insertEmailStatement(db: Database, row: typeof outgoingEmails.$inferInsert) {
  return db.insert(outgoingEmails).values(row);
}

/** The outbox rows about one object, newest first. */
export function emailsAbout(db: Database, objectId: string) {
  return db.select().from(outgoingEmails).where(eq(outgoingEmails.objectId, objectId)).orderBy(desc(outgoingEmails.ctime));
}
