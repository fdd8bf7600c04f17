import { ROOT_GROUP_ID } from "../lib/ids";
import { HEAVY_TABLES, LIBRARY_TABLES, type LibraryTable } from "./library-tables";
import type { Row, TableRows } from "./repositories/library-move.repository";

/**
 * Writes routed to a library shard, written back to the catalog (decision 043, «Writes»). A write to a switched
 * library runs in its shard, where it commits first; the rows it changed are then written back to the catalog's copy
 * of the library, beside what it appended to global tables (events, audit rows, e-mails: `OUTBOUND`), so what still
 * reads the catalog — search and its feed, lists across libraries, the outbox's dispatcher, the audit screen — sees
 * the change as before.
 *
 * In the shard, triggers log every changed row of a library table by its primary key (`shard_changes`); a writeback
 * is the log's next entries with each row as it is now (absent: deleted), and the outbound rows. In the
 * catalog one batch deletes the rows that are gone and upserts the others by key — with the catalog's own triggers
 * running, so its search marks and cleanups follow; rollups come last, as the shard computed them — and records the
 * log position. A writeback carrying an older position than the catalog holds changes nothing, so two applied in
 * either order leave the newer state; applying one twice changes nothing more. The shard forgets what the catalog
 * has acknowledged; what a dead Worker never wrote back the next write or the minute cron carries.
 */

/**
 * The order the catalog upserts them in, as the services write them: folders and files before what names them (the
 * catalog's rollup triggers count a closure link's folder only once the folder exists); last the rows those triggers
 * maintain, with the shard's values — equal to what the triggers made unless they missed something, and a correction
 * fires the same triggers up to the catalog's root. Deletes run in the reverse order.
 */
const UPSERT_ORDER = [
  "groups",
  "assets",
  "group_closure",
  "group_members",
  "access_rules",
  "access_inheritance",
  "field_values",
  "entity_tags",
  "taxon_members",
  "shortlinks",
  "asset_versions",
  "variants",
  "upload_parts",
  "previews",
  "comments",
  "asset_follows",
  "review_requests",
  "review_decisions",
  "heal_candidates",
  "search_content",
  "asset_totals",
  "comment_revisions",
  "folder_rollups",
];
const UPSERTS: readonly LibraryTable[] = UPSERT_ORDER.map((name) => LIBRARY_TABLES.find((t) => t.name === name)!);
const DELETES = [...UPSERTS].reverse();
if (UPSERTS.some((t) => !t) || UPSERTS.length !== LIBRARY_TABLES.length)
  throw new Error("library-writeback: UPSERT_ORDER must name every library table");
const ROOT_KEY = JSON.stringify([ROOT_GROUP_ID]);

/**
 * Global tables a routed write appends to in the shard — the outbox, the audit, e-mails sent or recorded — carried to
 * the catalog once (by their unique id) and then forgotten by the shard.
 */
const OUTBOUND: readonly { table: string; id: string; order: string; renumbered?: boolean }[] = [
  { table: "global_events", id: "event_id", order: "seq", renumbered: true },
  { table: "audit_log", id: "id", order: "ctime" },
  { table: "outgoing_emails", id: "id", order: "ctime" },
];

/** What a writeback carries that the catalog must be told of, and the shard may forget once it has been. */
export const outboundIds = (wb: Writeback) =>
  wb.outbound.map(({ table, rows }) => ({ table, ids: rows.map((r) => r[OUTBOUND.find((t) => t.table === table)!.id] as string) }));
/** The events a writeback carries (the dispatchers are woken for them). */
export const eventsOf = (wb: Writeback) => wb.outbound.find((t) => t.table === "global_events")?.rows ?? [];
/** Whether a writeback carries anything. */
export const carriesAnything = (wb: Writeback) => wb.seq > 0 || wb.outbound.some((t) => t.rows.length > 0);
/** Change log entries a writeback carries at most (the rest follow in the next one). */
const WRITEBACK_ENTRIES = 500;
/**
 * Bytes of heavy rows (extracted texts, comments) a writeback carries at most (the rest follow): one text may weigh
 * 400 KB, and 500 entries of them would pass the 32 MiB one call may carry — a writeback refused for that is refused
 * for ever.
 */
const WRITEBACK_HEAVY_BYTES = 8 * 1024 * 1024;

export interface Writeback {
  library: string;
  /** the last change log entry this writeback carries (0: none) */
  seq: number;
  /** rows as they are now, by table */
  rows: TableRows[];
  /** keys (as JSON arrays of the key's columns) of rows deleted, by table */
  gone: { table: string; keys: unknown[][] }[];
  /** rows the write appended to global tables, by table (`OUTBOUND`) */
  outbound: TableRows[];
  /** whether the log holds entries beyond this writeback */
  more: boolean;
}

/** Rows whose keys are in the JSON array of key arrays bound at `param`, found through the primary key's index. */
const byKey = (t: LibraryTable, param = "?") =>
  `(${t.key.map((c) => `"${c}"`).join(", ")}) IN (SELECT ${t.key
    .map((_, i) => `json_extract(value, '$[${i}]')`)
    .join(", ")} FROM json_each(${param}))`;
const keyJson = (t: LibraryTable, prefix: string) => `json_array(${t.key.map((c) => `${prefix}."${c}"`).join(", ")})`;

/**
 * The change log and its triggers, created in a shard when it starts (idempotent). While `shard_quiet` holds a row
 * nothing is logged: the copies of global rows the cron refreshes are the catalog's to begin with.
 */
export const CHANGE_LOG_SQL: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS shard_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, k TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS shard_quiet (id INTEGER PRIMARY KEY CHECK (id = 1))",
  ...LIBRARY_TABLES.flatMap((t) =>
    (["INSERT", "UPDATE", "DELETE"] as const).map((op) => {
      const keys = op === "INSERT" ? [keyJson(t, "NEW")] : op === "DELETE" ? [keyJson(t, "OLD")] : [keyJson(t, "OLD"), keyJson(t, "NEW")];
      const values = [...new Set(keys)].map((k) => `('${t.name}', ${k})`).join(", ");
      return `CREATE TRIGGER IF NOT EXISTS shard_changes_${t.name}_${op.toLowerCase()} AFTER ${op} ON ${t.name}
        WHEN NOT EXISTS (SELECT 1 FROM shard_quiet) BEGIN INSERT INTO shard_changes (tbl, k) VALUES ${values}; END`;
    }),
  ),
];

/** Inside the shard: the next writeback of `library` (nothing written). */
export function takeWriteback(sql: SqlStorage, library: string, limit = WRITEBACK_ENTRIES): Writeback {
  const entries = sql
    .exec<{ seq: number; tbl: string; k: string }>("SELECT seq, tbl, k FROM shard_changes ORDER BY seq LIMIT ?", limit + 1)
    .toArray();
  const taken = withinHeavyBytes(sql, entries.slice(0, limit));
  const more = entries.length > taken.length;
  const rows: TableRows[] = [];
  const gone: Writeback["gone"] = [];
  for (const t of LIBRARY_TABLES) {
    // The virtual root's row and rollup in the shard count this library only; the catalog's count every library.
    const keys = [...new Set(taken.filter((e) => e.tbl === t.name && e.k !== ROOT_KEY).map((e) => e.k))];
    if (keys.length === 0) continue;
    const found = sql
      .exec(`SELECT *, ${keyJson(t, t.name)} AS "$key" FROM ${t.name} WHERE ${byKey(t)}`, JSON.stringify(keys))
      .toArray() as Row[];
    const present = new Set(found.map((r) => r.$key as string));
    rows.push({ table: t.name, rows: found.map(({ $key: _, ...row }) => row) });
    gone.push({ table: t.name, keys: keys.filter((k) => !present.has(k)).map((k) => JSON.parse(k) as unknown[]) });
  }
  return {
    library,
    seq: taken.at(-1)?.seq ?? 0,
    rows,
    gone,
    outbound: OUTBOUND.map((t) => ({
      table: t.table,
      rows: sql.exec(`SELECT * FROM ${t.table} ORDER BY ${t.order} LIMIT ?`, limit).toArray() as Row[],
    })),
    more,
  };
}

/** The first of `entries` whose heavy rows (texts, comments, as they are now) weigh WRITEBACK_HEAVY_BYTES at most; one at least. */
function withinHeavyBytes<E extends { tbl: string; k: string }>(sql: SqlStorage, entries: E[]): E[] {
  const size = new Map<string, number>();
  for (const h of HEAVY_TABLES) {
    const t = LIBRARY_TABLES.find((l) => l.name === h.name)!;
    const keys = [...new Set(entries.filter((e) => e.tbl === t.name).map((e) => e.k))];
    if (keys.length === 0) continue;
    for (const r of sql
      .exec<{ k: string; n: number }>(
        `SELECT ${keyJson(t, t.name)} AS k, ${h.weight} AS n FROM ${t.name} WHERE ${byKey(t)}`,
        JSON.stringify(keys),
      )
      .toArray())
      size.set(`${t.name} ${r.k}`, r.n);
  }
  if (size.size === 0) return entries;
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    bytes += size.get(`${entries[i]!.tbl} ${entries[i]!.k}`) ?? 0;
    if (bytes > WRITEBACK_HEAVY_BYTES && i > 0) return entries.slice(0, i);
  }
  return entries;
}

/** Inside the shard: what the catalog has written back is forgotten (the shard's own search marks with it). */
export function forgetWrittenBack(storage: DurableObjectStorage, seq: number, outbound: { table: string; ids: string[] }[]): void {
  const sql = storage.sql;
  storage.transactionSync(() => {
    sql.exec("DELETE FROM shard_changes WHERE seq <= ?", seq);
    for (const t of OUTBOUND) {
      const ids = outbound.find((o) => o.table === t.table)?.ids ?? [];
      if (ids.length > 0) sql.exec(`DELETE FROM ${t.table} WHERE ${t.id} IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
    }
    // The shard feeds no index of its own: the catalog's triggers marked the written-back documents.
    sql.exec("DELETE FROM search_pending");
  });
}

const columnsOf = (rows: Row[], except: string[] = []) => Object.keys(rows[0]).filter((c) => !except.includes(c));
const extract = (columns: string[]) => columns.map((c) => `json_extract(value, '$."${c}"')`).join(", ");
const quoted = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(", ");

/** In the Worker: the writeback applied to the catalog in one batch (see above); answers whether it was newer. */
export async function applyWriteback(db: D1Database, wb: Writeback): Promise<boolean> {
  const newer = `(SELECT writeback_seq FROM library_directory WHERE library_id = ?1) < ?2`;
  const at = (sql: string, ...values: unknown[]) => db.prepare(sql).bind(wb.library, wb.seq, ...values);
  // Every switched library marked — its own, and those its files are listed in too (migration 0061) — by this batch.
  const batch = crypto.randomUUID();
  const statements: D1PreparedStatement[] = [
    db
      .prepare(
        `INSERT OR IGNORE INTO library_writeback (library_id, batch)
         SELECT ?1, ?2 UNION SELECT library_id, ?2 FROM library_directory WHERE state = 'shard'`,
      )
      .bind(wb.library, batch),
  ];
  for (const t of DELETES) {
    const keys = wb.gone.find((g) => g.table === t.name)?.keys ?? [];
    if (keys.length === 0) continue;
    statements.push(at(`DELETE FROM ${t.name} WHERE ${newer} AND ${byKey(t, "?3")}`, JSON.stringify(keys)));
  }
  for (const t of UPSERTS) {
    const rows = wb.rows.find((r) => r.table === t.name)?.rows ?? [];
    if (rows.length === 0) continue;
    const columns = columnsOf(rows);
    const set = columns.filter((c) => !t.key.includes(c));
    const update =
      set.length === 0
        ? "DO NOTHING"
        : `DO UPDATE SET ${set.map((c) => `"${c}" = excluded."${c}"`).join(", ")}
           WHERE (${set.map((c) => `${t.name}."${c}"`).join(", ")}) IS NOT (${set.map((c) => `excluded."${c}"`).join(", ")})`;
    statements.push(
      at(
        `INSERT INTO ${t.name} (${quoted(columns)}) SELECT ${extract(columns)} FROM json_each(?3) WHERE ${newer}
         ON CONFLICT (${quoted(t.key)}) ${update}`,
        JSON.stringify(rows),
      ),
    );
  }
  // Cached search answers show names, trash and comment counts: those made before this write are not served again. A
  // link's rows are not in them: the counts of its opens, written back after each, leave them be.
  const shown = (t: { table: string }) => t.table !== "shortlinks";
  if (wb.rows.some(shown) || wb.gone.some(shown)) statements.push(at(`UPDATE search_epoch SET n = n + 1 WHERE id = 1 AND ${newer}`));
  // Folders and files made in the shard are in the directory too, though their ids name the shard (decision 043): the
  // catalog's sweeps and checks find a switched library's entities through it.
  const made = wb.rows.filter((r) => r.table === "groups" || r.table === "assets").flatMap((r) => r.rows.map((row) => row.id));
  if (made.length > 0)
    statements.push(
      db
        .prepare("INSERT OR IGNORE INTO id_directory (id, library_id) SELECT value, ? FROM json_each(?)")
        .bind(wb.library, JSON.stringify(made)),
    );
  for (const t of OUTBOUND) {
    const rows = wb.outbound.find((o) => o.table === t.table)?.rows ?? [];
    if (rows.length === 0) continue;
    // Once each, by its id; the catalog numbers the outbox anew (the shard's sequence means nothing there).
    const columns = columnsOf(rows, t.renumbered ? [t.order] : []);
    statements.push(
      db
        .prepare(`INSERT OR IGNORE INTO ${t.table} (${quoted(columns)}) SELECT ${extract(columns)} FROM json_each(?)`)
        .bind(JSON.stringify(rows)),
    );
  }
  statements.push(
    at("UPDATE library_directory SET writeback_seq = ?2 WHERE library_id = ?1 AND writeback_seq < ?2"),
    db.prepare("DELETE FROM library_writeback WHERE batch = ?").bind(batch),
  );
  const results = await db.batch(statements);
  return (results.at(-2)?.meta.changes ?? 0) > 0;
}
