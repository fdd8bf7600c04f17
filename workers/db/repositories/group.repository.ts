import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { groupMembers, groups, users } from "../schema";

/** Sub-groups of a parent (not in the trash) with their owner's name, one page, in one query. */
export function listChildGroups(db: Database, parentId: string, opts: { ownerId?: string; skip: number; take: number }) {
  return db
    .select({
      id: groups.id,
      name: groups.name,
      ownerId: groups.ownerId,
      ownerName: users.name,
      ctime: groups.ctime,
      mtime: groups.mtime,
      memberCount: sql<number>`(select count(*) from ${groupMembers} where ${groupMembers.groupId} = ${groups.id})`,
    })
    .from(groups)
    .leftJoin(users, eq(users.id, groups.ownerId))
    .where(and(eq(groups.parentId, parentId), isNull(groups.deletedAt), opts.ownerId ? eq(groups.ownerId, opts.ownerId) : undefined))
    .orderBy(asc(sql`lower(${groups.name})`), asc(groups.id))
    .limit(opts.take)
    .offset(opts.skip);
}

export function findGroup(db: Database, id: string) {
  return db.select().from(groups).where(eq(groups.id, id)).get();
}
