import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { IN_SWITCHED_LIBRARIES_SQL } from "../library-directory";

/**
 * Queries of the folder rollups (migration 0014, decision record 017): reading a group's sizes from its row, the
 * correction for assets listed more than once inside one subtree, and the from-scratch recomputation the repair
 * compares with (and writes back).
 */

/** The versions the subtree cache keys on, of one group (no row when the group has none). */
export function treeVersionsSql(id: string): SQL {
  return sql`select tree_version, files_version from folder_rollups where group_id = ${id}`;
}

/**
 * The subtree totals of some groups in one statement, each less the extra listings (and their bytes) of assets listed
 * in several live groups of that subtree: group-size counts each asset once. The correction starts from the partial
 * index of assets listed more than once anywhere, so its cost follows those (rare) assets, not the subtree's size,
 * and it only runs for a subtree holding more than one asset.
 */
export function subtreeSizesOf(db: Database, ids: readonly string[]) {
  return db.all<{ group_id: string; sub_assets: number; sub_bytes: number; sub_groups: number; dup_assets: number; dup_bytes: number }>(sql`
    select r.group_id, r.sub_assets, r.sub_bytes, r.sub_groups,
      coalesce(d.assets, 0) as dup_assets, coalesce(d.bytes, 0) as dup_bytes
    from folder_rollups r
    left join (select o.group_id, sum(k - 1) as assets, sum((k - 1) * bytes) as bytes from (
        select r2.group_id, t.asset_id, t.bytes, count(*) as k from folder_rollups r2
        cross join asset_totals t
        cross join assets a on a.id = t.asset_id
        cross join group_members m on m.el_id = t.asset_id
        where r2.group_id in (select value from json_each(${JSON.stringify(ids)})) and r2.sub_assets > 1
          and t.listings > 1 and a.deleted_at is null and m.el_type = 'asset' and m.trashed_at is null
          and exists (select 1 from group_closure c cross join groups g on g.id = c.descendant
            where c.ancestor = r2.group_id and c.descendant = m.group_id and g.deleted_at is null)
        group by r2.group_id, t.asset_id having count(*) > 1) o
      group by o.group_id) d on d.group_id = r.group_id
    where r.group_id in (select value from json_each(${JSON.stringify(ids)}))`);
}

/** Every asset's totals computed from the variants and memberships themselves. */
const EXPECTED_ASSETS = sql`select a.id as asset_id,
    coalesce((select sum(v.content_size) from variants v where v.asset_id = a.id and v.status = 'ready'), 0) as bytes,
    (select count(*) from group_members m where m.el_id = a.id and m.el_type = 'asset') as listings
  from assets a`;

/** Every group's direct totals computed from the memberships, assets and groups themselves. */
const EXPECTED_DIRECT = sql`select g.id as group_id, g.deleted_at,
    (select count(*) from group_members m cross join assets a on a.id = m.el_id
      where m.group_id = g.id and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null) as assets,
    (select coalesce(sum(t.bytes), 0) from group_members m cross join assets a on a.id = m.el_id cross join asset_totals t on t.asset_id = a.id
      where m.group_id = g.id and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null) as bytes,
    (select count(*) from group_members m cross join groups c on c.id = m.el_id
      where m.group_id = g.id and m.el_type = 'group' and m.trashed_at is null and c.deleted_at is null) as groups
  from groups g`;

export interface RollupDrift {
  /** asset_totals rows missing, extra or different from the recomputation */
  assets: number;
  /** folder_rollups rows missing, extra or different from the recomputation */
  folders: number;
}

/**
 * The folders of libraries in their shards and the files listed there: in the catalog their totals are the shards',
 * written back (decision 043), and the catalog refuses to change them; each shard checks and repairs its own.
 */
const SWITCHED = sql.raw(IN_SWITCHED_LIBRARIES_SQL);

/**
 * Compares the stored totals with a recomputation. The folder part recomputes direct bytes from the *expected*
 * asset totals, so a drift in asset totals is counted once (in `assets`), not again in every listing group.
 * `outside`: folders left out (a library shard's root, a stand-in whose listing of libraries is the catalog's).
 */
export async function rollupDrift(db: Database, outside: readonly string[] = []): Promise<RollupDrift> {
  const row = await db.get<{ assets: number; folders: number }>(sql`
    with expected_assets as (${EXPECTED_ASSETS}),
    direct as (select g.id as group_id, g.deleted_at,
        (select count(*) from group_members m cross join assets a on a.id = m.el_id
          where m.group_id = g.id and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null) as assets,
        (select coalesce(sum(e.bytes), 0) from group_members m cross join assets a on a.id = m.el_id join expected_assets e on e.asset_id = a.id
          where m.group_id = g.id and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null) as bytes,
        (select count(*) from group_members m cross join groups c on c.id = m.el_id
          where m.group_id = g.id and m.el_type = 'group' and m.trashed_at is null and c.deleted_at is null) as groups
      from groups g),
    sub as (select c.ancestor as group_id, sum(d.assets) as sub_assets, sum(d.bytes) as sub_bytes, count(*) as sub_groups
      from group_closure c join direct d on d.group_id = c.descendant where d.deleted_at is null group by c.ancestor),
    expected_folders as (select d.group_id, d.assets, d.bytes, d.groups,
        coalesce(s.sub_assets, 0) as sub_assets, coalesce(s.sub_bytes, 0) as sub_bytes, coalesce(s.sub_groups, 0) as sub_groups
      from direct d left join sub s on s.group_id = d.group_id)
    select
      (select count(*) from expected_assets e left join asset_totals t on t.asset_id = e.asset_id
        where (t.asset_id is null or t.bytes <> e.bytes or t.listings <> e.listings) and e.asset_id not in (${SWITCHED}))
      + (select count(*) from asset_totals t where not exists (select 1 from assets a where a.id = t.asset_id)) as assets,
      (select count(*) from expected_folders e left join folder_rollups r on r.group_id = e.group_id
        where (r.group_id is null or r.assets <> e.assets or r.bytes <> e.bytes or r.groups <> e.groups
          or r.sub_assets <> e.sub_assets or r.sub_bytes <> e.sub_bytes or r.sub_groups <> e.sub_groups)
          and e.group_id not in (${SWITCHED}) and e.group_id not in (select value from json_each(${JSON.stringify(outside)})))
      + (select count(*) from folder_rollups r where not exists (select 1 from groups g where g.id = r.group_id)) as folders`);
  return { assets: row.assets, folders: row.folders };
}

/**
 * Statements that overwrite every total with the recomputation, in the order one batch must run them: asset totals
 * first (the folder totals are summed from them), then the folders. Updating a total fires the maintenance triggers,
 * whose partial effects the later absolute writes replace; tree versions are kept (the subtree cache keys on them).
 */
export function repairRollupStatements(): SQL[] {
  return [
    sql`delete from asset_totals where not exists (select 1 from assets a where a.id = asset_totals.asset_id)`,
    sql`insert into asset_totals (asset_id, bytes, listings) select asset_id, bytes, listings from (${EXPECTED_ASSETS})
      where asset_id not in (${SWITCHED})
      on conflict (asset_id) do update set bytes = excluded.bytes, listings = excluded.listings
      where asset_totals.bytes <> excluded.bytes or asset_totals.listings <> excluded.listings`,
    sql`delete from folder_rollups where not exists (select 1 from groups g where g.id = folder_rollups.group_id)`,
    sql`insert into folder_rollups (group_id, assets, bytes, groups) select group_id, assets, bytes, groups from (${EXPECTED_DIRECT})
      where group_id not in (${SWITCHED})
      on conflict (group_id) do update set assets = excluded.assets, bytes = excluded.bytes, groups = excluded.groups
      where folder_rollups.assets <> excluded.assets or folder_rollups.bytes <> excluded.bytes or folder_rollups.groups <> excluded.groups`,
    // Last and absolute: the subtree sums of the now-correct direct totals (this writes only sub_* columns, so no
    // trigger fires and nothing can shift after it).
    sql`update folder_rollups set
      sub_assets = (select coalesce(sum(r.assets), 0) from group_closure c cross join groups d on d.id = c.descendant
        cross join folder_rollups r on r.group_id = c.descendant where c.ancestor = folder_rollups.group_id and d.deleted_at is null),
      sub_bytes = (select coalesce(sum(r.bytes), 0) from group_closure c cross join groups d on d.id = c.descendant
        cross join folder_rollups r on r.group_id = c.descendant where c.ancestor = folder_rollups.group_id and d.deleted_at is null),
      sub_groups = (select count(*) from group_closure c cross join groups d on d.id = c.descendant
        where c.ancestor = folder_rollups.group_id and d.deleted_at is null)
      where group_id not in (${SWITCHED})`,
  ];
}
