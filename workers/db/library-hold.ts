import { LIBRARY_TABLES } from "./library-tables";

/**
 * A shard's hold (decision 046): while a change across libraries runs in the catalog, the shards of the switched
 * libraries it touches refuse every write to their library's tables — by triggers, as the catalog refuses a library
 * being switched, so no path into the shard has to know — and the catalog's copy is the one being changed. The copy
 * that brings the change into the shard sets its triggers aside (`importLibraryRows`) and passes. One hold at a time:
 * a second change across the same library is refused until the first ends. Created when a shard starts (idempotent).
 */
export const HOLD_SQL: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS shard_holds (crossing_id TEXT PRIMARY KEY, since INTEGER NOT NULL)",
  ...LIBRARY_TABLES.flatMap((t) =>
    (["INSERT", "UPDATE", "DELETE"] as const).map(
      (op) => `CREATE TRIGGER IF NOT EXISTS shard_hold_${t.name}_${op.toLowerCase()} BEFORE ${op} ON ${t.name}
        WHEN EXISTS (SELECT 1 FROM shard_holds) BEGIN SELECT RAISE(ABORT, 'LIBRARY_HELD'); END`,
    ),
  ),
];

/** Inside the shard: holds it for `crossing`; false when another change across libraries holds it. */
export function holdShard(sql: SqlStorage, crossing: string, now: number): boolean {
  if (sql.exec("SELECT 1 FROM shard_holds WHERE crossing_id <> ?", crossing).toArray().length > 0) return false;
  sql.exec("INSERT OR IGNORE INTO shard_holds (crossing_id, since) VALUES (?, ?)", crossing, now);
  return true;
}

/** Inside the shard: `crossing`'s hold let go (nothing when it holds none). */
export function releaseShard(sql: SqlStorage, crossing: string): void {
  sql.exec("DELETE FROM shard_holds WHERE crossing_id = ?", crossing);
}
