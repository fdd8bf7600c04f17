/** Reads and writes of the metadata CSV export and import: pages of files, their folder paths and untimed values. */
import { sql } from "drizzle-orm";
import type { Database } from "../client";
import type { Statement } from "./asset.repository";
import { fieldValues } from "../schema/index";

/** A live file as a CSV row sees it. */
export interface CsvAssetRow {
  id: string;
  name: string;
  owner_id: string;
  class_id: string | null;
}

/** Live files among `ids`, in one query. */
export function csvAssets(db: Database, ids: readonly string[]) {
  return db.all<CsvAssetRow>(
    sql`select id, name, owner_id, class_id from assets where id in (select value from json_each(${JSON.stringify(ids)})) and deleted_at is null`,
  );
}

/** A live folder's name and owner. */
export async function liveGroup(db: Database, id: string) {
  const [row] = await db.all<{ name: string; owner_id: string | null }>(sql`select name, owner_id from groups where id = ${id} and deleted_at is null`);
  return row;
}

/** Ids of the live files in a folder and every live folder below it, after `after` in id order, one page. */
export async function subtreeAssetIdsPage(db: Database, groupId: string, after: string, limit: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(sql`
    select distinct m.el_id as id from group_members m
    where m.group_id in (select c.descendant from group_closure c join groups g on g.id = c.descendant where c.ancestor = ${groupId} and g.deleted_at is null)
      and m.el_type = 'asset' and m.trashed_at is null and m.el_id > ${after}
    order by m.el_id limit ${limit}`);
  return rows.map((r) => r.id);
}

/** For each file among `ids`: the folders of its first live membership from the top down (id and name). */
export async function folderChains(db: Database, ids: readonly string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const rows = await db.all<{ asset_id: string; group_id: string; id: string; name: string }>(sql`
    with first as (
      select m.el_id as asset_id, min(m.group_id) as group_id from group_members m
      where m.el_id in (select value from json_each(${JSON.stringify(ids)})) and m.el_type = 'asset' and m.trashed_at is null
      group by m.el_id)
    select f.asset_id, f.group_id, g.id, g.name from first f
      join group_closure c on c.descendant = f.group_id
      join groups g on g.id = c.ancestor
    order by f.asset_id, c.depth desc`);
  const out = new Map<string, { id: string; name: string }[]>();
  for (const r of rows) {
    const chain = out.get(r.asset_id) ?? [];
    chain.push({ id: r.id, name: r.name });
    out.set(r.asset_id, chain);
  }
  return out;
}

/** The untimed values (any version) of files among `ids`, oldest first. */
export function untimedValuesOf(db: Database, ids: readonly string[]) {
  return db.all<{ entity_id: string; def_id: string; data: string }>(sql`
    select entity_id, def_id, data from field_values
    where entity_id in (select value from json_each(${JSON.stringify(ids)})) and pts_start is null
    order by entity_id, def_id, ctime, id`);
}

/** One value a CSV row stores: [id, entity_id, def_id, data as JSON, value_text, value_num]. */
export type CsvValueRow = [string, string, string, string, string | null, number | null];

/**
 * Replaces the untimed values of the given (file, field) pairs: one delete and one insert over JSON parameters, so a
 * chunk of rows is two statements whatever its size (the caller keeps each parameter within D1's limits).
 */
export function replaceCsvValuesStatements(
  db: Database,
  pairs: readonly [string, string][],
  rows: readonly CsvValueRow[],
  userId: string,
  now: number,
): Statement[] {
  const out: Statement[] = [
    sql`delete from ${fieldValues} where pts_start is null and (entity_id, def_id) in (
      select json_extract(p.value, '$[0]'), json_extract(p.value, '$[1]') from json_each(${JSON.stringify(pairs)}) p)`,
  ];
  if (rows.length > 0)
    out.push(sql`insert into ${fieldValues} (id, entity_id, entity_type, def_id, version_id, version, pts_start, pts_end, data, value_text, value_num, user_id, ctime, mtime)
      select json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'), 'asset', json_extract(r.value, '$[2]'), null, null, null, null,
             json_extract(r.value, '$[3]'), json_extract(r.value, '$[4]'), json_extract(r.value, '$[5]'), ${userId}, ${now}, ${now}
      from json_each(${JSON.stringify(rows)}) r`);
  return out;
}
