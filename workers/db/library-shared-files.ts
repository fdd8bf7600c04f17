import { sql } from "drizzle-orm";
import type { Database } from "./client";

/**
 * A shard's shared files: files listed here whose listings are not all here — homed in another library (their rows
 * are in its shard, or the catalog), or homed here and listed in another library too. Who may see such a file depends
 * on folders and rules this shard does not hold, so the page of a folder that lists one, and the file itself, are
 * answered from the catalog's copy instead (decision 047).
 *
 * A file becomes shared or stops being shared only by a change across libraries (its listing in another library made
 * or taken away), which imports the file into every library it touches; imports (and a library's move) set the
 * triggers aside, so they keep this table themselves: after each, the listings of every file it touched are worked
 * out again. A write inside the shard never shares a file (a file of another library is a change across); one that
 * removes a listing may leave a row behind, which costs a page read from the catalog and nothing else. The first
 * start of a shard made before this table fills it from what it holds.
 */
export const SHARED_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS shard_shared (group_id TEXT NOT NULL, asset_id TEXT NOT NULL, PRIMARY KEY (group_id, asset_id))`,
  "CREATE INDEX IF NOT EXISTS shard_shared_asset ON shard_shared (asset_id)",
];

/**
 * A listing `m` is of a shared file: the file's rows are not here, or its listings everywhere (`asset_totals`, copied
 * exactly by every import that touches the file and counted by this shard's triggers since) outnumber its listings here.
 */
const SHARED_LISTING = `(NOT EXISTS (SELECT 1 FROM assets a WHERE a.id = m.el_id)
  OR (SELECT t.listings FROM asset_totals t WHERE t.asset_id = m.el_id)
     > (SELECT count(*) FROM group_members h WHERE h.el_id = m.el_id AND h.el_type = 'asset'))`;

/** The shard's own migration that fills the table once, for shards that held libraries before it existed. */
export const SHARED_BACKFILL = {
  name: "shard:shared",
  sql: `INSERT OR IGNORE INTO shard_shared (group_id, asset_id)
    SELECT m.group_id, m.el_id FROM group_members m WHERE m.el_type = 'asset' AND ${SHARED_LISTING}`,
};

/**
 * After an import: the shared listings of files `assetIds` worked out again from the rows now here, and those of
 * folders `goneFolders` (whose rows the import replaced or removed) forgotten first. Runs inside the import's
 * transaction.
 */
export function noteShared(sql: SqlStorage, assetIds: Iterable<string>, goneFolders: readonly string[] = []): void {
  const assets = JSON.stringify([...new Set(assetIds)]);
  if (goneFolders.length > 0)
    sql.exec("DELETE FROM shard_shared WHERE group_id IN (SELECT value FROM json_each(?))", JSON.stringify(goneFolders));
  sql.exec("DELETE FROM shard_shared WHERE asset_id IN (SELECT value FROM json_each(?))", assets);
  sql.exec(
    `INSERT OR IGNORE INTO shard_shared (group_id, asset_id)
     SELECT m.group_id, m.el_id FROM group_members m
     WHERE m.el_type = 'asset' AND m.el_id IN (SELECT value FROM json_each(?)) AND ${SHARED_LISTING}`,
    assets,
  );
}

/** Whether folder `groupId` or a folder anywhere below it lists a shared file (its tree is read from the catalog's copy). */
export function subtreeListsShared(sql: SqlStorage, groupId: string): boolean {
  return (
    sql
      .exec("SELECT 1 FROM group_closure c JOIN shard_shared s ON s.group_id = c.descendant WHERE c.ancestor = ? LIMIT 1", groupId)
      .toArray().length > 0
  );
}

/** Whether folder `groupId` lists a shared file (its page must be read from the catalog's copy). */
export function listsShared(sql: SqlStorage, groupId: string): boolean {
  return sql.exec("SELECT 1 FROM shard_shared WHERE group_id = ? LIMIT 1", groupId).toArray().length > 0;
}

/** Whether file `assetId`, homed here, is listed in another library too (it is answered from the catalog's copy). */
export function listedElsewhere(sql: SqlStorage, assetId: string): boolean {
  return sql.exec("SELECT 1 FROM shard_shared WHERE asset_id = ? LIMIT 1", assetId).toArray().length > 0;
}

/** The files among `rows` of `group_members` (an import's listings). */
export function listedFiles(rows: readonly Record<string, unknown>[]): string[] {
  return rows.filter((r) => r.el_type === "asset").map((r) => String(r.el_id));
}

/**
 * Whether a selection over a shard, read from the Worker, names a shared file or a folder whose subtree lists one
 * (`subtreeListsShared` for several): its plan is then made over the catalog's copy.
 */
export async function selectionListsShared(db: Database, groupIds: readonly string[], assetIds: readonly string[]): Promise<boolean> {
  const row = await db.get<{ shared: number }>(sql`
    select exists (select 1 from json_each(${JSON.stringify(groupIds)}) j
        join group_closure c on c.ancestor = j.value join shard_shared s on s.group_id = c.descendant)
      or exists (select 1 from json_each(${JSON.stringify(assetIds)}) j join shard_shared s on s.asset_id = j.value) as shared`);
  return Boolean(row?.shared);
}
