/**
 * Queries of collections (decision record 034). Items are always read through `visibleSql` of the reader: a
 * collection holds no rights over its files, so what a page, a count or a cover shows is decided per file, in the
 * same statement that reads it. Id lists travel as one JSON parameter (`json_each`), so no statement exceeds D1's
 * limit of bound parameters.
 */
import { sql, type SQL } from "drizzle-orm";
import type { ReviewStatus } from "../../../shared/review-status";
import type { Database } from "../client";
import { CURRENT_REVIEW_STATUS } from "./review.repository";
import { COMMENT_COUNTS } from "./comment.repository";
import { groupGrantsReadSql, visibleAssetViaGroupsSql, visibleSql, type Visibility } from "./access.repository";
import { GPS_OF_ASSET, insideBboxSql, type Bbox, type LocatedAssetRow } from "./geo.repository";
import { MAIN_VARIANT } from "./group.repository";

/** The caller's subjects: the user and every group of users they belong to. */
function subjectsOf(userId: string): SQL {
  return sql`(select ${userId} union all select group_id from user_group_members where user_id = ${userId})`;
}

/** A role's rank (view 1, comment 2, edit 3): a caller holding it directly and through a group gets the higher one. */
const RANK = sql`case m.role when 'edit' then 3 when 'comment' then 2 else 1 end`;

/** "The item's file is live and the reader may read it". */
function readableItem(vis: Visibility | null): SQL {
  return sql`a.deleted_at is null and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)}`;
}

export interface CollectionRow {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  owner_name: string | null;
  ctime: number;
  mtime: number;
  /** the caller's best role rank as a member (1 view, 2 comment, 3 edit), null when not a member */
  rank: number | null;
}

function collectionColumns(userId: string): SQL {
  return sql`c.id, c.name, c.description, c.owner_id, u.name as owner_name, c.ctime, c.mtime,
    (select max(${RANK}) from collection_members m where m.collection_id = c.id and m.subj_id in ${subjectsOf(userId)}) as rank`;
}

/** One collection with the caller's membership rank. */
export function collectionFor(db: Database, id: string, userId: string) {
  return db.get<CollectionRow | undefined>(sql`select ${collectionColumns(userId)}
    from collections c left join users u on u.id = c.owner_id where c.id = ${id}`);
}

/** The live items of a collection the reader may read, and all of its live items. */
export function itemCounts(db: Database, id: string, vis: Visibility | null) {
  return db.get<{ total: number; live: number }>(sql`select
      coalesce(sum(case when ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)} then 1 else 0 end), 0) as total,
      count(*) as live
    from collection_items ci cross join assets a on a.id = ci.asset_id
    where ci.collection_id = ${id} and a.deleted_at is null`);
}

export interface ListedCollectionRow extends CollectionRow {
  count: number;
  cover_id: string | null;
  cover_ver: number | null;
}

/**
 * The collections the caller owns or holds through a membership (their own or one of their groups'), newest change
 * first, each with the count of items the caller may read and the first readable item that has a preview (the cover).
 */
export function collectionsOf(db: Database, userId: string, vis: Visibility | null, limit: number) {
  return db.all<CollectionRow & { count: number; cover: string | null }>(sql`select * from (select ${collectionColumns(userId)},
      (select count(*) from collection_items ci cross join assets a on a.id = ci.asset_id
        where ci.collection_id = c.id and ${readableItem(vis)}) as count,
      (select a.id || ':' || a.latest_version from collection_items ci cross join assets a on a.id = ci.asset_id
        where ci.collection_id = c.id and ${readableItem(vis)} and exists (select 1 from previews p where p.asset_id = a.id)
        order by ci.pos, ci.asset_id limit 1) as cover
    from collections c left join users u on u.id = c.owner_id
    where c.owner_id = ${userId}
      or c.id in (select m.collection_id from collection_members m where m.subj_id in ${subjectsOf(userId)}))
    order by mtime desc, id limit ${limit}`).then((rows) =>
    rows.map(({ cover, ...r }): ListedCollectionRow => {
      const [coverId, coverVer] = cover ? cover.split(":") : [null, null];
      return { ...r, cover_id: coverId, cover_ver: coverVer == null ? null : Number(coverVer) };
    }),
  );
}

export interface ItemRow {
  asset_id: string;
  added_by: string | null;
  added_by_name: string | null;
  added_at: number;
  name: string;
  mime: string;
  ctime: number;
  mtime: number;
  owner_id: string;
  owner_name: string | null;
  ver: number;
  var: string | null;
  var_size: number | null;
  has_preview: number;
  /** current review status of the latest version (decision record 036) */
  review_status: ReviewStatus | null;
  /** all comments on the file, and the unresolved ones (decision record 035) */
  comments_total: number;
  comments_open: number;
  /** items the reader may read (the same on every row) */
  total: number;
  /** live items (the same on every row) */
  live: number;
}

/**
 * One page of the items the reader may read, in collection order, with the counts, in one statement. The rights
 * filter runs once per live item, in one pass over the order index that keeps its answer as a flag (`f`, materialised
 * in collection order, so the page's sort finds it sorted): the page, `total` and `live` are all read from those
 * flags. The filter is never evaluated twice, and no window sorts every item with its columns (what made a reader's
 * deep page cost twice the owner's). Only the page's rows get their owner, main variant, preview flag and who added
 * them, so a deep skip pays for the filter, not for the details of every row it passes over. Administrators' flag is
 * a constant.
 */
export function itemsPage(db: Database, id: string, vis: Visibility | null, skip: number, take: number) {
  return db.all<ItemRow>(sql`with ${flagsCte(id, vis)},
    p as (select asset_id, pos from f where ok order by pos, asset_id limit ${take} offset ${skip})
    select ${itemColumns(id)}, (select count(*) from f where ok) as total, (select count(*) from f) as live
    ${itemJoins(id)}
    order by p.pos, p.asset_id`);
}

/**
 * `f`: every live item with the reader's flag (`ok`), in collection order, materialised: one pass over the order
 * index that evaluates the rights filter once per item. A collection's files usually sit in a few folders: whether
 * the reader's rules pass read down to each of them is decided once per folder (`granting`), not once per file (the
 * same decision, where there is no deny or confinement). Administrators' flag is a constant.
 */
export function flagsCte(id: string, vis: Visibility | null): SQL {
  const granting = sql`(select group_id from granting)`;
  const viaGroups = visibleAssetViaGroupsSql(vis, sql`a.id`, sql`a.owner_id`, granting);
  const readable = viaGroups ?? visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`);
  const grantingCte = viaGroups
    ? sql`granting as materialized (select g.group_id from (select distinct m.group_id from collection_items gi
        cross join group_members m on m.el_id = gi.asset_id and m.el_type = 'asset' and m.trashed_at is null
        where gi.collection_id = ${id}) g where ${groupGrantsReadSql(vis!.userId, sql`g.group_id`)}),`
    : sql``;
  return sql`${grantingCte} f as materialized (
      select ci.asset_id, ci.pos, ${readable} as ok
      from collection_items ci cross join assets a on a.id = ci.asset_id
      where ci.collection_id = ${id} and a.deleted_at is null
      order by ci.pos, ci.asset_id)`;
}

/** The columns of a page's item, for the rows of `p` (asset_id, pos) joined by `itemJoins`. */
export function itemColumns(id: string): SQL {
  return sql`p.asset_id, p.pos, ci.added_by, ab.name as added_by_name, ci.added_at, a.name, a.mime, a.ctime, a.mtime, a.owner_id,
      u.name as owner_name, a.latest_version as ver, mv.id as var, mv.content_size as var_size,
      exists (select 1 from previews pv where pv.asset_id = a.id) as has_preview, ${CURRENT_REVIEW_STATUS} as review_status,
       ${COMMENT_COUNTS}`;
}

/** Only the page's rows get their owner, main variant, preview flag and who added them. */
export function itemJoins(id: string): SQL {
  return sql`from p
    cross join collection_items ci on ci.collection_id = ${id} and ci.asset_id = p.asset_id
    cross join assets a on a.id = p.asset_id
    left join users u on u.id = a.owner_id
    left join users ab on ab.id = ci.added_by
    left join variants mv on mv.id = ${MAIN_VARIANT}`;
}

/** Which of the ids are live files the reader may read, in one statement. */
export async function readableAssets(db: Database, ids: readonly string[], vis: Visibility | null): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.all<{ id: string }>(sql`select a.id from json_each(${JSON.stringify(ids)}) j
    cross join assets a on a.id = j.value where ${readableItem(vis)}`);
  return new Set(rows.map((r) => r.id));
}

export function insertCollectionSql(c: { id: string; name: string; description: string; ownerId: string; now: number }): SQL {
  return sql`insert into collections (id, name, description, owner_id, ctime, mtime)
    values (${c.id}, ${c.name}, ${c.description}, ${c.ownerId}, ${c.now}, ${c.now})`;
}

export function updateCollectionSql(id: string, patch: { name?: string; description?: string }, now: number): SQL {
  const sets: SQL[] = [sql`mtime = ${now}`];
  if (patch.name !== undefined) sets.push(sql`name = ${patch.name}`);
  if (patch.description !== undefined) sets.push(sql`description = ${patch.description}`);
  return sql`update collections set ${sql.join(sets, sql`, `)} where id = ${id}`;
}

export function touchCollectionSql(id: string, now: number): SQL {
  return sql`update collections set mtime = ${now} where id = ${id}`;
}

/** Removing a collection: its rows only, never a file. */
export function deleteCollectionSql(id: string): SQL[] {
  return [
    sql`delete from collection_items where collection_id = ${id}`,
    sql`delete from collection_members where collection_id = ${id}`,
    sql`delete from collection_seek where collection_id = ${id}`,
    sql`delete from collections where id = ${id}`,
  ];
}

/**
 * Appends the files after the collection's largest order key, in the given order; files already in it keep their
 * place. SQLite materialises an INSERT's SELECT that reads the target table before inserting, so `max(pos)` is the
 * one from before the statement.
 */
export function appendItemsSql(id: string, assetIds: readonly string[], addedBy: string, now: number): SQL {
  return sql`insert into collection_items (collection_id, asset_id, pos, added_by, added_at)
    select ${id}, j.value, (select coalesce(max(pos), 0) from collection_items where collection_id = ${id}) + 1 + j.key, ${addedBy}, ${now}
    from json_each(${JSON.stringify(assetIds)}) j where true
    on conflict (collection_id, asset_id) do nothing`;
}

export function removeItemsSql(id: string, assetIds: readonly string[]): SQL {
  return sql`delete from collection_items where collection_id = ${id} and asset_id in (select value from json_each(${JSON.stringify(assetIds)}))`;
}

/**
 * Gives the listed items order keys below the collection's smallest, in the given order (ids not in it are ignored):
 * the base is an aggregate in FROM, computed once before any row changes.
 */
export function reorderItemsSql(id: string, assetIds: readonly string[]): SQL {
  return sql`update collection_items set pos = b.base + j.key
    from (select coalesce(min(pos), 0) - ${assetIds.length} as base from collection_items where collection_id = ${id}) b,
      json_each(${JSON.stringify(assetIds)}) j
    where collection_items.collection_id = ${id} and collection_items.asset_id = j.value`;
}

export interface MemberRow {
  subj_id: string;
  subj_type: "user" | "group";
  name: string | null;
  role: "view" | "comment" | "edit";
  ctime: number;
}

export function membersOf(db: Database, id: string, limit: number) {
  return db.all<MemberRow>(sql`select m.subj_id, m.subj_type, coalesce(u.name, g.name) as name, m.role, m.ctime
    from collection_members m left join users u on m.subj_type = 'user' and u.id = m.subj_id
      left join groups g on m.subj_type = 'group' and g.id = m.subj_id
    where m.collection_id = ${id} order by m.ctime, m.subj_id limit ${limit}`);
}

export function memberCount(db: Database, id: string) {
  return db.get<{ n: number }>(sql`select count(*) as n from collection_members where collection_id = ${id}`);
}

export function upsertMemberSql(m: { id: string; subjId: string; subjType: "user" | "group"; role: string; addedBy: string; now: number }): SQL {
  return sql`insert into collection_members (collection_id, subj_id, subj_type, role, added_by, ctime)
    values (${m.id}, ${m.subjId}, ${m.subjType}, ${m.role}, ${m.addedBy}, ${m.now})
    on conflict (collection_id, subj_id) do update set role = excluded.role, subj_type = excluded.subj_type`;
}

export function deleteMemberSql(id: string, subjId: string): SQL {
  return sql`delete from collection_members where collection_id = ${id} and subj_id = ${subjId}`;
}

/**
 * The collection's items the reader may read, in collection order (at most `limit`): the same rights filter as a
 * page of items, for the archives of a collection.
 */
export async function readableItemIds(
  db: Database,
  id: string,
  vis: Visibility | null,
  page: { limit: number; offset?: number; among?: readonly string[] },
): Promise<string[]> {
  const among = page.among ? sql` and ci.asset_id in (select value from json_each(${JSON.stringify(page.among)}))` : sql``;
  const rows = await db.all<{ id: string }>(sql`select a.id from collection_items ci cross join assets a on a.id = ci.asset_id
    where ci.collection_id = ${id}${among} and ${readableItem(vis)} order by ci.pos, ci.asset_id limit ${page.limit} offset ${page.offset ?? 0}`);
  return rows.map((r) => r.id);
}

/** Whether a file is an item of the collection that the reader may read. */
export async function holdsReadableItem(db: Database, id: string, assetId: string, vis: Visibility | null): Promise<boolean> {
  const row = await db.get<{ one: number } | undefined>(sql`select 1 as one from collection_items ci cross join assets a on a.id = ci.asset_id
    where ci.collection_id = ${id} and ci.asset_id = ${assetId} and ${readableItem(vis)}`);
  return row != null;
}

/**
 * The items the reader may read whose latest version has a position (inside `bbox` when given), in collection
 * order: one statement that stops at `limit` rows (a collection holds at most MAX_COLLECTION_ITEMS files).
 */
export function collectionLocationsPage(db: Database, id: string, vis: Visibility | null, o: { bbox?: Bbox; limit: number }) {
  const where = [readableItem(vis), ...(o.bbox ? [insideBboxSql(o.bbox)] : [])];
  return db.all<LocatedAssetRow>(sql`select asset_id, name, mime, ver, has_preview, gps from (
      select a.id as asset_id, a.name, a.mime, a.latest_version as ver,
        exists (select 1 from previews p where p.asset_id = a.id) as has_preview, ${GPS_OF_ASSET} as gps, ci.pos
      from collection_items ci cross join assets a on a.id = ci.asset_id
      where ci.collection_id = ${id} and ${sql.join(where, sql` and `)}
    ) where json_type(gps, '$[0]') in ('real', 'integer') and json_type(gps, '$[1]') in ('real', 'integer')
    order by pos, asset_id limit ${o.limit}`);
}
