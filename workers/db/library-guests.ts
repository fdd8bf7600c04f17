/**
 * A shard's guests: files homed in another library and listed in a folder of this one. Their listings are here, their
 * rows are in their home's shard (or the catalog), so a page of such a folder read from this shard alone would leave
 * them out; the folder page of a folder that lists guests is read from the catalog's copy instead (decision 047).
 *
 * Guest listings reach a shard only through imports (a library's move, a change across libraries), whose triggers are
 * set aside, so the imports keep this table themselves: after each, the guest listings of every file it touched are
 * worked out again. A write made inside the shard never makes a guest (a file of another library is a change across
 * libraries); one that removes a guest's listing leaves a row behind, which costs a page read from the catalog and
 * nothing else. The first start of a shard made before this table fills it from what it holds.
 */
export const GUESTS_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS shard_guests (group_id TEXT NOT NULL, asset_id TEXT NOT NULL, PRIMARY KEY (group_id, asset_id))`,
  "CREATE INDEX IF NOT EXISTS shard_guests_asset ON shard_guests (asset_id)",
];

/** The shard's own migration that fills the table once, for shards that held libraries before it existed. */
export const GUESTS_BACKFILL = {
  name: "shard:guests",
  sql: `INSERT OR IGNORE INTO shard_guests (group_id, asset_id)
    SELECT m.group_id, m.el_id FROM group_members m WHERE m.el_type = 'asset' AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.id = m.el_id)`,
};

/**
 * After an import: the guest listings of files `assetIds` worked out again from the rows now here, and those of folders
 * `goneFolders` (whose rows the import replaced or removed) forgotten first. Runs inside the import's transaction.
 */
export function noteGuests(sql: SqlStorage, assetIds: Iterable<string>, goneFolders: readonly string[] = []): void {
  const assets = JSON.stringify([...new Set(assetIds)]);
  if (goneFolders.length > 0)
    sql.exec("DELETE FROM shard_guests WHERE group_id IN (SELECT value FROM json_each(?))", JSON.stringify(goneFolders));
  sql.exec("DELETE FROM shard_guests WHERE asset_id IN (SELECT value FROM json_each(?))", assets);
  sql.exec(
    `INSERT OR IGNORE INTO shard_guests (group_id, asset_id)
     SELECT m.group_id, m.el_id FROM group_members m
     WHERE m.el_type = 'asset' AND m.el_id IN (SELECT value FROM json_each(?)) AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.id = m.el_id)`,
    assets,
  );
}

/** Whether folder `groupId` lists a file whose rows are not in this shard (its page must be read elsewhere). */
export function listsGuests(sql: SqlStorage, groupId: string): boolean {
  return sql.exec("SELECT 1 FROM shard_guests WHERE group_id = ? LIMIT 1", groupId).toArray().length > 0;
}

/**
 * Whether file `assetId`, homed here, is listed in another library too: its total of listings (`asset_totals`,
 * copied exactly by every import that touches the file, and counted by this shard's triggers since) is more than the
 * listings this shard holds. What a person may do with it then depends on folders and rules this shard does not hold:
 * the catalog's copy answers for it.
 */
export function listedElsewhere(sql: SqlStorage, assetId: string): boolean {
  return (
    sql
      .exec(
        `SELECT 1 FROM asset_totals t WHERE t.asset_id = ?1
           AND t.listings > (SELECT count(*) FROM group_members m WHERE m.el_id = ?1 AND m.el_type = 'asset')`,
        assetId,
      )
      .toArray().length > 0
  );
}

/** The files among `rows` of `group_members` (an import's listings). */
export function listedFiles(rows: readonly Record<string, unknown>[]): string[] {
  return rows.filter((r) => r.el_type === "asset").map((r) => String(r.el_id));
}
