/**
 * Readable-item checkpoints of collections (decision record 034, «Readable-item checkpoints»): a reader's deep page
 * starts from the nearest checkpoint of his own list instead of deciding readability for every item before it.
 * A list is derived from the reader's rights and the collection's order as they were when it was built: its head
 * row holds the collection's revision and the `readable` revision of `cache_revisions` read in the building
 * statement, both grown by triggers (migration 0053) in the statement of every change that could move a
 * checkpoint, so a page uses a list only when both still match, checked in the page's own statement.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Visibility } from "./access.repository";
import { visibleSql } from "./access.repository";
import { flagsCte, itemColumns, itemJoins } from "./collection.repository";

/** Readable items between two checkpoints: a deep page decides readability for fewer than this plus `take` items. */
export const COLLECTION_SEEK_SPACING = 100;
/** Lists kept per collection (one per reader who paged deep lately); older ones are dropped when a new one is built. */
export const COLLECTION_SEEK_LISTS = 32;

/**
 * Whose list: everything the read filter depends on besides the database — the user, his confinements (chroot and a
 * robot token's scope) and the rule flags the filter was shaped by. Administrators read every live item: '*'.
 */
export function readerKey(vis: Visibility | null): string {
  if (vis === null) return "*";
  return JSON.stringify([vis.userId, vis.chroot, vis.scope ?? [], vis.rules, vis.deny ?? null]);
}

const ITEMS_REVISION = (id: string) => sql`coalesce((select revision from collection_revisions where collection_id = ${id}), 0)`;
const READABLE_REVISION = sql`(select revision from cache_revisions where scope = 'readable')`;

/**
 * (Re)builds one reader's list in one batch (one transaction): drops his old list, writes the head (counts and
 * revisions) and every COLLECTION_SEEK_SPACING-th readable item from one pass of the same flags as a page, and drops
 * the collection's oldest lists beyond COLLECTION_SEEK_LISTS.
 */
export function buildSeekStatements(id: string, vis: Visibility | null, now: number): SQL[] {
  const key = readerKey(vis);
  return [
    sql`delete from collection_seek where collection_id = ${id} and reader = ${key}`,
    sql`with ${flagsCte(id, vis)},
      r as (select asset_id, pos, row_number() over (order by pos, asset_id) as n from f where ok)
      insert into collection_seek (collection_id, reader, n, pos, asset_id, total, live, items_revision, readable_revision, built_at)
      select ${id}, ${key}, 0, -9223372036854775808, '', (select count(*) from f where ok), (select count(*) from f),
        ${ITEMS_REVISION(id)}, ${READABLE_REVISION}, ${now}
      union all
      select ${id}, ${key}, n, pos, asset_id, null, null, null, null, null from r where n % ${COLLECTION_SEEK_SPACING} = 0`,
    sql`delete from collection_seek where collection_id = ${id} and reader in (select reader from collection_seek
      where collection_id = ${id} and n = 0 order by built_at desc, reader limit -1 offset ${COLLECTION_SEEK_LISTS})`,
  ];
}

/**
 * A page from the reader's list, when it is current: one row per item (collection order) carrying the list's `total`
 * and `live`, or a single row with a null `asset_id` past the end; no row at all when there is no current list (the
 * caller builds one). The page walks the order index from the nearest checkpoint at or before `skip`, deciding
 * readability with the same filter as the list, and offsets only the readable items after it. A page past the last
 * readable item walks nothing: the head's `total` says so.
 */
export function seekPageSql(id: string, vis: Visibility | null, skip: number, take: number): SQL {
  const key = readerKey(vis);
  const readable = visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`);
  return sql`with h as materialized (select total, live from collection_seek s
      where s.collection_id = ${id} and s.reader = ${key} and s.n = 0
        and s.items_revision = ${ITEMS_REVISION(id)} and s.readable_revision = ${READABLE_REVISION}),
    cp as materialized (select n, pos, asset_id from collection_seek
      where collection_id = ${id} and reader = ${key} and n <= ${skip} and exists (select 1 from h)
      order by n desc limit 1),
    p as (select ci.asset_id, ci.pos from collection_items ci cross join assets a on a.id = ci.asset_id
      where ci.collection_id = ${id} and (ci.pos, ci.asset_id) > ((select pos from cp), (select asset_id from cp))
        and a.deleted_at is null and ${readable}
      order by ci.pos, ci.asset_id
      limit (select count(*) from cp) * (${skip} < (select total from h)) * ${take} offset ${skip} - coalesce((select n from cp), ${skip})),
    d as (select ${itemColumns(id)} ${itemJoins(id)})
    select h.total, h.live, d.* from h left join d on 1 order by d.pos, d.asset_id`;
}
