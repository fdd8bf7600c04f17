/** Reading groups as a whole: subtrees, search by name, roots, the trash, sizes and ancestors. */
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { SWITCHED_IDS_SQL } from "../library-directory";
import { inLibraryScope, type LibraryScope } from "./library-scope";
import { visibleSql, type Visibility } from "./access.repository";

/** A row of `subtreeGroupsSql`; `files` (with counts) is the group's live file listings, unfiltered (its rollup). */
export interface SubtreeGroupRow {
  id: string;
  name: string;
  parent_id: string | null;
  files?: number;
}

/**
 * Every live group of a subtree (self included) the caller sees, below it of the libraries `scope` names, from one closure query. With `withCounts`, each row also carries the group's direct
 * count of live file listings from its rollup row: a folder counting none can list no file to anybody, so the tree
 * form asks only about the others.
 */
export function subtreeGroupsSql(id: string, vis: Visibility | null, withCounts: boolean, scope: LibraryScope = "all"): SQL {
  return sql`
    select g.id, g.name, g.parent_id${withCounts ? sql`, coalesce(r.assets, 0) as files` : sql``}
    from group_closure c join groups g on g.id = c.descendant${withCounts ? sql` left join folder_rollups r on r.group_id = g.id` : sql``}
    where c.ancestor = ${id} and g.deleted_at is null and (g.id = ${id} or ${inLibraryScope(scope, sql`g.id`)}) ${
    vis ? sql`and (g.id = ${id} or ${visibleSql(vis, "group", sql`g.id`, sql`g.owner_id`)})` : sql``
  }`;
}

export interface TreeAssetRow {
  group_id: string;
  asset_id: string;
  name: string;
  mime: string;
  ver: number | null;
}

/**
 * Up to `perFolder` live files of each of `folderIds`, by name, that the caller may read: the tree form's `assets`.
 * One statement; each folder is a range of the `group_members_by_name` index (a correlated, limited subquery), so a
 * folder of 100,000 files costs `perFolder` rows. Rows come folder by folder in the order of `folderIds`.
 */
export function treeAssetsSql(folderIds: readonly string[], perFolder: number, vis: Visibility | null): SQL {
  return sql`
    select j.value as group_id, a.id as asset_id, a.name, a.mime, a.latest_version as ver
    from json_each(${JSON.stringify(folderIds)}) j
    join group_members m on m.group_id = j.value and m.el_type = 'asset' and m.trashed_at is null and m.el_id in (
      select m2.el_id from group_members m2 cross join assets a2 on a2.id = m2.el_id
      where m2.group_id = j.value and m2.el_type = 'asset' and m2.trashed_at is null and a2.deleted_at is null
        and ${visibleSql(vis, "asset", sql`a2.id`, sql`a2.owner_id`)}
      order by m2.sort_name, m2.el_id limit ${perFolder})
    cross join assets a on a.id = m.el_id
    order by j.key, m.sort_name, m.el_id`;
}

/**
 * Live groups whose name contains `q` (lower-cased), by name; the name key is the parent's membership sort_name. Of
 * the libraries `scope` names by the folder each is listed in: a library's top folder, listed in the root, is the
 * catalog's to find (decision 051, step 2.3).
 */
export function searchGroups(db: Database, o: { q: string; vis: Visibility | null; skip: number; take: number; scope: LibraryScope }) {
  return db.all<{
    id: string;
    name: string;
    sort_name: string;
    parent_id: string | null;
    owner_id: string | null;
    owner_name: string | null;
    ctime: number;
    mtime: number;
  }>(sql`
    select g.id, g.name, m.sort_name, g.parent_id, g.owner_id, u.name as owner_name, g.ctime, g.mtime
    from group_members m cross join groups g on g.id = m.el_id left join users u on u.id = g.owner_id
    where m.el_type = 'group' and m.trashed_at is null and g.deleted_at is null and instr(m.sort_name, ${o.q}) > 0
      and ${inLibraryScope(o.scope, sql`m.group_id`)}
      and ${visibleSql(o.vis, "group", sql`g.id`, sql`g.owner_id`)}
    order by m.sort_name, g.id limit ${o.take} offset ${o.skip}`);
}

/** The confinement groups (chroot, else token scope) a confined caller sees at the virtual root, by name. */
export function chrootRootGroups(db: Database, o: { vis: Visibility; roots: readonly string[]; skip: number; take: number }) {
  return db.all<{
    id: string;
    name: string;
    owner_id: string | null;
    owner_name: string | null;
    ctime: number;
    mtime: number;
    members: number;
  }>(sql`
    select g.id, g.name, g.owner_id, u.name as owner_name, g.ctime, g.mtime,
      (select count(*) from group_members c where c.group_id = g.id and c.trashed_at is null) as members
    from json_each(${JSON.stringify(o.roots)}) j cross join groups g on g.id = j.value left join users u on u.id = g.owner_id
    left join group_members pm on pm.group_id = g.parent_id and pm.el_id = g.id
    where g.deleted_at is null and ${visibleSql(o.vis, "group", sql`g.id`, sql`g.owner_id`)}
    order by pm.sort_name, g.id limit ${o.take} offset ${o.skip}`);
}

/**
 * Trashed groups that are the top of their deletion (the parent is live, or was trashed at another instant) and
 * can still be restored (their membership in the parent exists: a purge removes it).
 */
export function trashedTops(db: Database, o: { vis: Visibility | null; skip: number; take: number; scope: LibraryScope }) {
  return db.all<{ id: string; name: string; parent_id: string; owner_id: string | null; deleted_at: number }>(sql`
    select g.id, g.name, g.parent_id, g.owner_id, g.deleted_at
    from groups g join groups p on p.id = g.parent_id
    join group_members m on m.group_id = g.parent_id and m.el_id = g.id
    where g.deleted_at is not null and (p.deleted_at is null or p.deleted_at <> g.deleted_at)
      and ${visibleSql(o.vis, "group", sql`g.id`, sql`g.owner_id`, "delete")} and ${inLibraryScope(o.scope, sql`g.id`)}
    order by g.deleted_at desc, g.id limit ${o.take} offset ${o.skip}`);
}

/**
 * Trashed groups deleted before `before` that no other such group contains: the subtrees the retention purge hands
 * to `purge-group` (a group trashed earlier inside a later deletion counts on its own; one inside an expired subtree
 * goes with it). Ordered by deletion time and id, resuming after `after`.
 */
export function expiredTrashTops(db: Database, o: { before: number; after?: { at: number; id: string } | null; limit: number }) {
  const resume = o.after ? sql`and (g.deleted_at, g.id) > (${o.after.at}, ${o.after.id})` : sql``;
  return db.all<{ id: string; parent_id: string | null; deleted_at: number }>(sql`
    select g.id, g.parent_id, g.deleted_at from groups g
    where g.deleted_at < ${o.before} ${resume} and g.id not in (${sql.raw(SWITCHED_IDS_SQL)})
      and not exists (select 1 from group_closure c join groups a on a.id = c.ancestor
        where c.descendant = g.id and c.depth > 0 and a.deleted_at < ${o.before})
    order by g.deleted_at, g.id limit ${o.limit}`);
}

/**
 * Bytes (all ready variants), distinct assets and sub-groups of a live subtree, in one aggregate statement. The CROSS
 * JOINs fix the join order (memberships of the subtree first): without ANALYZE statistics SQLite would otherwise start
 * from every asset and take minutes on a large library.
 */
export function subtreeSize(db: Database, id: string, vis: Visibility | null) {
  const visible = vis ? sql`and (g.id = ${id} or ${visibleSql(vis, "group", sql`g.id`, sql`g.owner_id`)})` : sql``;
  const visibleAsset = vis ? sql`and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)}` : sql``;
  return db.get<{ groups: number; assets: number; bytes: number }>(sql`
    with sub as (
      select g.id from group_closure c join groups g on g.id = c.descendant
      where c.ancestor = ${id} and g.deleted_at is null ${visible}
    ), members as (
      select distinct m.el_id as id from group_members m cross join assets a on a.id = m.el_id
      where m.group_id in (select id from sub) and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null ${visibleAsset}
    )
    select (select count(*) from sub) - 1 as groups, (select count(*) from members) as assets,
      (select coalesce(sum(v.content_size), 0) from members mm cross join variants v on v.asset_id = mm.id where +v.status = 'ready') as bytes`);
}

/** Groups that have users as members, with how many (administration). */
export function groupsWithUsers(db: Database, o: { skip: number; take: number }) {
  return db.all<{ group_id: string; group_name: string; users: number }>(sql`
    select g.id as group_id, g.name as group_name, count(*) as users
    from user_group_members m join groups g on g.id = m.group_id
    left join group_members pm on pm.group_id = g.parent_id and pm.el_id = g.id
    where g.deleted_at is null
    group by g.id order by pm.sort_name, g.id limit ${o.take} offset ${o.skip}`);
}

/** The storage of the group or of its nearest ancestor that names one. */
export function nearestStorage(db: Database, id: string) {
  return db.get<{ storage_id: string; storage_name: string } | undefined>(sql`
    select s.id as storage_id, s.name as storage_name
    from group_closure c join groups g on g.id = c.ancestor join storages s on s.id = g.default_storage
    where c.descendant = ${id} order by c.depth limit 1`);
}

/** A live member of a group by its name key and type, preferring an exact-case match (entity-by-path). */
export function memberByName(
  db: Database,
  o: { groupId: string; type: "group" | "asset"; sortName: string; name: string; vis: Visibility | null },
) {
  if (o.type === "group") {
    return db.get<{ el_id: string } | undefined>(sql`
      select m.el_id from group_members m cross join groups g on g.id = m.el_id
      where m.group_id = ${o.groupId} and m.el_type = 'group' and m.sort_name = ${o.sortName} and m.trashed_at is null
        and g.deleted_at is null and ${visibleSql(o.vis, "group", sql`g.id`, sql`g.owner_id`)}
      order by g.name = ${o.name} desc, m.el_id limit 1`);
  }
  return db.get<{ el_id: string } | undefined>(sql`
    select m.el_id from group_members m cross join assets a on a.id = m.el_id
    where m.group_id = ${o.groupId} and m.el_type = 'asset' and m.sort_name = ${o.sortName} and m.trashed_at is null
      and a.deleted_at is null and ${visibleSql(o.vis, "asset", sql`a.id`, sql`a.owner_id`)}
    order by a.name = ${o.name} desc, m.el_id limit 1`);
}
