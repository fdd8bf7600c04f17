import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Database } from "../client";
import { groupMembers, groups, users } from "../schema/index";
import { visibleSql, type Visibility } from "./access.repository";

/**
 * Queries of the group capability. Lists bind id lists as one JSON parameter (`json_each`), so no statement ever
 * exceeds D1's limit of 100 bound parameters; member pages read the partial indexes `group_members_by_*`
 * (every paging query says `trashed_at is null` so SQLite can use them).
 */

const dialect = new SQLiteAsyncDialect();

/**
 * Runs write statements as one D1 batch (a transaction: all or nothing). The statement builders below return
 * plain `SQL`, turned into D1 statements here (drizzle's own batch cannot bind parameters of raw SQL).
 */
export function runBatch(db: Database, statements: readonly SQL[]): Promise<D1Result[]> {
  const d1 = db.$client as D1Database;
  return d1.batch(
    statements.map((s) => {
      const q = dialect.sqlToQuery(s);
      return d1.prepare(q.sql).bind(...q.params);
    }),
  );
}

/** Runs one write statement. */
export function runStatement(db: Database, statement: SQL): Promise<D1Result> {
  const q = dialect.sqlToQuery(statement);
  return (db.$client as D1Database)
    .prepare(q.sql)
    .bind(...q.params)
    .run();
}

/** The default storage row (the R2 binding MEDIA), created by migration 0002. */
export const DEFAULT_STORAGE_ID = "0".repeat(32);

/** `(select value from json_each(?))`: a list of ids as one bound parameter. */
export function inList(ids: readonly string[]): SQL {
  return sql`(select value from json_each(${JSON.stringify(ids)}))`;
}

/** The descendants (self included) of a group, from the closure table. */
export function subtreeOf(groupId: string): SQL {
  return sql`(select descendant from group_closure where ancestor = ${groupId})`;
}

/**
 * Sub-groups of a parent (not in the trash) with their owner's name, one page by name, in one query: the parent's
 * membership rows (partial index `group_members_by_name`) carry the Unicode-folded sort key.
 */
export function listChildGroups(
  db: Database,
  parentId: string,
  opts: { vis: Visibility | null; chroot?: readonly string[]; skip: number; take: number },
) {
  return db
    .select({
      id: groups.id,
      name: groups.name,
      ownerId: groups.ownerId,
      ownerName: users.name,
      ctime: groups.ctime,
      mtime: groups.mtime,
      memberCount: sql<number>`(select count(*) from ${groupMembers} c where c.group_id = ${groups.id} and c.trashed_at is null)`,
    })
    .from(groupMembers)
    .innerJoin(groups, eq(groups.id, groupMembers.elId))
    .leftJoin(users, eq(users.id, groups.ownerId))
    .where(
      and(
        eq(groupMembers.groupId, parentId),
        eq(groupMembers.elType, "group"),
        isNull(groupMembers.trashedAt),
        isNull(groups.deletedAt),
        visibleSql(opts.vis, "group", sql`${groups.id}`, sql`${groups.ownerId}`),
      ),
    )
    .orderBy(asc(groupMembers.sortName), asc(groupMembers.elId))
    .limit(opts.take)
    .offset(opts.skip);
}

export function findGroup(db: Database, id: string) {
  return db.select().from(groups).where(eq(groups.id, id)).get();
}

/** A group with its owner's name. */
export function findGroupWithOwner(db: Database, id: string) {
  return db
    .select({ group: groups, ownerName: users.name })
    .from(groups)
    .leftJoin(users, eq(users.id, groups.ownerId))
    .where(eq(groups.id, id))
    .get();
}

export interface GroupRowLite {
  id: string;
  name: string;
  parent_id: string | null;
  owner_id: string | null;
  deleted_at: number | null;
}

/** Several groups by id (any state), in one query. */
export function findGroups(db: Database, ids: readonly string[]) {
  return db.all<GroupRowLite>(sql`select id, name, parent_id, owner_id, deleted_at from groups where id in ${inList(ids)}`);
}

/** Ancestors of a group (self included) from the top, with their owners: the breadcrumbs of `get`. */
export function ancestorsOf(db: Database, id: string) {
  return db.all<{ id: string; name: string; owner_id: string | null; depth: number }>(sql`
    select g.id, g.name, g.owner_id, c.depth from group_closure c join groups g on g.id = c.ancestor
    where c.descendant = ${id} order by c.depth desc`);
}

/** Ancestor rows of many groups at once (for search results' paths). */
export function ancestorsOfMany(db: Database, ids: readonly string[]) {
  return db.all<{ descendant: string; id: string; name: string; owner_id: string | null; depth: number }>(sql`
    select c.descendant, g.id, g.name, g.owner_id, c.depth from group_closure c join groups g on g.id = c.ancestor
    where c.descendant in ${inList(ids)} order by c.descendant, c.depth desc`);
}

/** Depth of a group below the virtual root (top-level groups are 1). */
export async function depthOf(db: Database, id: string): Promise<number> {
  const row = await db.get<{ d: number } | undefined>(sql`select max(depth) as d from group_closure where descendant = ${id}`);
  return row?.d ?? 0;
}

/** Height of a subtree: 0 for a group without sub-groups. */
export async function heightOf(db: Database, id: string): Promise<number> {
  const row = await db.get<{ h: number } | undefined>(sql`select max(depth) as h from group_closure where ancestor = ${id}`);
  return row?.h ?? 0;
}

/** Whether `descendant` is `ancestor` or below it. */
export async function isInSubtree(db: Database, ancestor: string, descendant: string): Promise<boolean> {
  const row = await db.get<{ x: number } | undefined>(
    sql`select 1 as x from group_closure where ancestor = ${ancestor} and descendant = ${descendant}`,
  );
  return row !== undefined;
}

export function groupTags(db: Database, id: string) {
  return db.all<{ tag_id: string; tag_name: string }>(sql`
    select t.id as tag_id, t.name as tag_name from entity_tags e join tags t on t.id = e.tag_id
    where e.entity_id = ${id} order by lower(t.name), t.id`);
}

/** The tags of many entities at once (a listing's page). */
export function tagsOfEntities(db: Database, ids: readonly string[]) {
  return db.all<{ entity_id: string; tag_id: string; tag_name: string }>(sql`
    select e.entity_id, t.id as tag_id, t.name as tag_name from entity_tags e join tags t on t.id = e.tag_id
    where e.entity_id in ${inList(ids)}`);
}

/** Which of the ids are tags. */
export async function existingTagIds(db: Database, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ id: string }>(sql`select id from tags where id in ${inList(ids)}`);
  return new Set(rows.map((r) => r.id));
}

export async function storageExists(db: Database, id: string): Promise<boolean> {
  return (await db.get<{ x: number } | undefined>(sql`select 1 as x from storages where id = ${id}`)) !== undefined;
}

export async function assetClassExists(db: Database, id: string): Promise<boolean> {
  return (await db.get<{ x: number } | undefined>(sql`select 1 as x from asset_classes where id = ${id}`)) !== undefined;
}

/** The live sibling group whose sort key is `sortName` in `parentId` (other than `exceptId`), if any. */
export async function siblingWithName(db: Database, parentId: string, sortName: string, exceptId = ""): Promise<string | undefined> {
  const row = await db.get<{ el_id: string } | undefined>(sql`
    select el_id from group_members
    where group_id = ${parentId} and el_type = 'group' and sort_name = ${sortName} and trashed_at is null and el_id <> ${exceptId}
    limit 1`);
  return row?.el_id;
}

/** The condition "a live sibling group named `sortName` exists in `parentId`", for batch assertions. */
export function siblingNameTakenSql(parentId: string, sortName: string, exceptIds: readonly string[] = []): SQL {
  return sql`exists (select 1 from group_members where group_id = ${parentId} and el_type = 'group' and sort_name = ${sortName}
    and trashed_at is null and el_id not in ${inList(exceptIds)})`;
}

/**
 * A batch statement that fails the whole D1 batch (a transaction) when `condition` holds, by inserting a row
 * that violates `group_closure.depth NOT NULL`. It re-checks, inside the transaction, what the service checked
 * before, so concurrent changes can never leave a cycle or a duplicate name. `isAssertionFailure` recognises it.
 */
export function abortIf(condition: SQL) {
  return sql`insert into group_closure (ancestor, descendant, depth) select 'assert', 'assert', null where ${condition}`;
}

export function isAssertionFailure(error: unknown): boolean {
  return String((error as Error | undefined)?.message ?? error).includes("group_closure.depth");
}

export interface NewGroup {
  id: string;
  name: string;
  sortName: string;
  parentId: string;
  ownerId: string;
  defaultStorage: string | null;
  defaultClass: string | null;
  now: number;
}

/** The statements that add a group: its row, closure rows (the parent's ancestors plus self), the parent's membership. */
export function insertGroupStatements(g: NewGroup) {
  return [
    sql`insert into groups (id, name, parent_id, owner_id, default_storage, default_class, ctime, mtime)
      values (${g.id}, ${g.name}, ${g.parentId}, ${g.ownerId}, ${g.defaultStorage}, ${g.defaultClass}, ${g.now}, ${g.now})`,
    sql`insert into group_closure (ancestor, descendant, depth)
      select ancestor, ${g.id}, depth + 1 from group_closure where descendant = ${g.parentId}
      union all select ${g.id}, ${g.id}, 0`,
    sql`insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      values (${g.parentId}, ${g.id}, 'group', ${g.now}, ${g.sortName}, ${g.now}, 0)`,
  ] as const;
}

/** Condition "this group is missing or in the trash". */
export function groupNotLiveSql(id: string): SQL {
  return sql`not exists (select 1 from groups where id = ${id} and deleted_at is null)`;
}

/** Renames and re-configures a group; the parent's membership row gets the new sort keys. */
export function updateGroupStatements(g: {
  id: string;
  parentId: string | null;
  now: number;
  name?: string;
  sortName?: string;
  defaultStorage?: string | null;
  defaultClass?: string | null;
}) {
  const sets: SQL[] = [sql`mtime = ${g.now}`];
  if (g.name !== undefined) sets.push(sql`name = ${g.name}`);
  if (g.defaultStorage !== undefined) sets.push(sql`default_storage = ${g.defaultStorage}`);
  if (g.defaultClass !== undefined) sets.push(sql`default_class = ${g.defaultClass}`);
  const statements = [sql`update groups set ${sql.join(sets, sql`, `)} where id = ${g.id}`];
  if (g.parentId) {
    const memberSets: SQL[] = [sql`el_mtime = ${g.now}`];
    if (g.sortName !== undefined) memberSets.push(sql`sort_name = ${g.sortName}`);
    statements.push(sql`update group_members set ${sql.join(memberSets, sql`, `)} where group_id = ${g.parentId} and el_id = ${g.id}`);
  }
  return statements;
}

/** Replaces the tags of a group. */
export function replaceGroupTagsStatements(id: string, tagIds: readonly string[]) {
  return [
    sql`delete from entity_tags where entity_id = ${id}`,
    sql`insert into entity_tags (tag_id, entity_id, entity_type)
      select value, ${id}, 'group' from json_each(${JSON.stringify(tagIds)}) where true on conflict do nothing`,
  ];
}

/**
 * Moves a subtree to the trash: `deleted_at` on the group and every live descendant, `trashed_at` on their
 * memberships in their parents, both with the same instant so `restore` can undo exactly this deletion.
 */
export function trashSubtreeStatements(id: string, now: number) {
  return [
    sql`update groups set deleted_at = ${now} where id in ${subtreeOf(id)} and deleted_at is null`,
    sql`update group_members set trashed_at = ${now}
      where el_type = 'group' and el_id in ${subtreeOf(id)} and trashed_at is null`,
  ];
}

/** Undoes `trashSubtreeStatements` of the instant `deletedAt` (groups trashed earlier on their own stay trashed). */
export function restoreSubtreeStatements(id: string, deletedAt: number) {
  return [
    sql`update groups set deleted_at = null where id in ${subtreeOf(id)} and deleted_at = ${deletedAt}`,
    sql`update group_members set trashed_at = null
      where el_type = 'group' and el_id in ${subtreeOf(id)} and trashed_at = ${deletedAt}`,
  ];
}

/** Whether the group's membership row in its parent still exists (a purge removes it first). */
export async function hasParentMembership(db: Database, id: string, parentId: string): Promise<boolean> {
  const row = await db.get<{ x: number } | undefined>(sql`select 1 as x from group_members where group_id = ${parentId} and el_id = ${id}`);
  return row !== undefined;
}

/** Detaches a group from its parent's listing for good: the first step of a purge (restore is no longer possible). */
export function detachFromParentStatement(id: string, parentId: string) {
  return sql`delete from group_members where group_id = ${parentId} and el_id = ${id}`;
}

/**
 * The closure move of a subtree below a new parent, in the order a batch must run them: drop the links from the
 * old ancestors into the subtree, link every new ancestor to every subtree node, re-parent the row and the
 * membership (which keeps its sort keys).
 */
export function moveGroupStatements(m: { id: string; from: string; to: string; now: number }) {
  return [
    sql`delete from group_closure
      where descendant in ${subtreeOf(m.id)} and ancestor not in ${subtreeOf(m.id)}`,
    sql`insert into group_closure (ancestor, descendant, depth)
      select p.ancestor, s.descendant, p.depth + s.depth + 1
      from group_closure p cross join group_closure s
      where p.descendant = ${m.to} and s.ancestor = ${m.id}`,
    sql`update groups set parent_id = ${m.to}, mtime = ${m.now} where id = ${m.id}`,
    sql`update group_members set group_id = ${m.to}, ctime = ${m.now} where group_id = ${m.from} and el_id = ${m.id}`,
  ];
}

/** Condition "moving `id` below `to` would make a cycle" (`to` is `id` or inside its subtree). */
export function wouldCycleSql(id: string, to: string): SQL {
  return sql`exists (select 1 from group_closure where ancestor = ${id} and descendant = ${to})`;
}

/** Condition "`elId` is not (or no longer) a live member of `groupId`". */
export function notMemberSql(groupId: string, elId: string): SQL {
  return sql`not exists (select 1 from group_members where group_id = ${groupId} and el_id = ${elId} and trashed_at is null)`;
}

/** Condition "`elId` is already a member of `groupId`". */
export function isMemberSql(groupId: string, elId: string): SQL {
  return sql`exists (select 1 from group_members where group_id = ${groupId} and el_id = ${elId})`;
}

/** Moves a non-group membership (asset or user) from one group to another. */
export function moveMembershipStatement(m: { elId: string; from: string; to: string; now: number }) {
  return sql`update group_members set group_id = ${m.to}, ctime = ${m.now} where group_id = ${m.from} and el_id = ${m.elId}`;
}

export interface MembershipRow {
  group_id: string;
  el_id: string;
  el_type: "asset" | "group" | "user";
  trashed_at: number | null;
}

/** The memberships of some elements in one group. */
export function membershipsIn(db: Database, groupId: string, elIds: readonly string[]) {
  return db.all<MembershipRow>(sql`
    select group_id, el_id, el_type, trashed_at from group_members where group_id = ${groupId} and el_id in ${inList(elIds)}`);
}

export interface MemberToInsert {
  el_id: string;
  el_type: "asset" | "user";
  sort_name: string;
  el_mtime: number;
  el_size: number;
}

/** Adds memberships (existing ones are left as they are; a trashed one is revived). */
export function insertMembershipsStatement(groupId: string, members: readonly MemberToInsert[], now: number) {
  return sql`insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
    select ${groupId}, json_extract(value, '$.el_id'), json_extract(value, '$.el_type'), ${now},
      json_extract(value, '$.sort_name'), json_extract(value, '$.el_mtime'), json_extract(value, '$.el_size')
    from json_each(${JSON.stringify(members)}) where true
    on conflict (group_id, el_id) do update set trashed_at = null`;
}

/** Removes asset and user memberships of a group. */
export function deleteMembershipsStatement(groupId: string, elIds: readonly string[]) {
  return sql`delete from group_members where group_id = ${groupId} and el_type <> 'group' and el_id in ${inList(elIds)}`;
}

/**
 * The id of an asset's main variant: of its latest version, ready, preferring 'master', then 'initial', then
 * 'untyped'. Three indexed probes (asset_versions (asset_id, version), variants (version_id)) instead of an
 * ORDER BY, so a page query never needs a temporary B-tree. `a` is the assets alias.
 */
const LATEST_VERSION_ID = `(select av.id from asset_versions av where av.asset_id = a.id and av.version = a.latest_version)`;
const variantOfType = (type: string) =>
  `(select v.id from variants v where v.version_id = ${LATEST_VERSION_ID} and v.variant_type = '${type}' and v.status = 'ready' limit 1)`;
export const MAIN_VARIANT = sql.raw(`coalesce(${variantOfType("master")}, ${variantOfType("initial")}, ${variantOfType("untyped")})`);

export interface AssetForMembership {
  id: string;
  name: string;
  owner_id: string;
  mtime: number;
  deleted_at: number | null;
  size: number | null;
}

/** Assets by id with what a membership row copies (name, mtime, main variant size). */
export function assetsForMembership(db: Database, ids: readonly string[]) {
  return db.all<AssetForMembership>(sql`
    select a.id, a.name, a.owner_id, a.mtime, a.deleted_at, mv.content_size as size
    from assets a left join variants mv on mv.id = ${MAIN_VARIANT}
    where a.id in ${inList(ids)}`);
}

export function usersByIds(db: Database, ids: readonly string[]) {
  return db.all<{ id: string; name: string; mtime: number }>(sql`select id, name, mtime from users where id in ${inList(ids)}`);
}
