/**
 * The statements of the move of old logs from the hot database (`DB`) to `LOGS` (decision 038). Raw D1 statements:
 * the same table names and columns on both sides, and nothing here is a typed query of the catalog.
 */

/** The tables whose old rows move, in the order a run moves them. */
export const LOG_TABLES = ["audit_log", "tasks", "global_events"] as const;
export type LogTable = (typeof LOG_TABLES)[number];

interface LogTableSpec {
  /** the primary key, as the readers and the pending list name a row */
  key: string;
  columns: readonly string[];
  /**
   * Which hot rows may move, `?1` being the cutoff time. Tasks: finished, and never the one with the highest job
   * number (the next task's number is max + 1 over the hot table). Events: delivered to the automations and read by
   * the notification dispatcher, never the last one (its seq is the dispatcher's end of log), and never a review
   * request (the dispatcher of a later decision looks its requesters up in the hot table).
   */
  eligible: string;
  /** the order of a slice, served by an index (audit_log_ctime_idx, tasks_finished_mtime_idx, global_events_delivered_ctime_idx) */
  order: string;
}

export const LOG_TABLE_SPECS: Record<LogTable, LogTableSpec> = {
  audit_log: {
    key: "id",
    columns: ["id", "ctime", "actor_id", "action", "object_type", "object_id", "details", "ip", "folder_id"],
    eligible: "ctime < ?1",
    order: "ctime",
  },
  tasks: {
    key: "id",
    columns: [
      "id",
      "job_num",
      "template_id",
      "template",
      "operation_class",
      "name",
      "owner_id",
      "affected",
      "src_entity",
      "dst_entity",
      "options",
      "worker_info",
      "schedule_time",
      "start_time",
      "stop_time",
      "progress",
      "progress_info",
      "status",
      "priority",
      "attempts",
      "cursor",
      "result",
      "error",
      "heartbeat",
      "ctime",
      "mtime",
    ],
    eligible: "status in ('done', 'error', 'canceled') and mtime < ?1 and job_num < (select max(job_num) from tasks)",
    order: "mtime",
  },
  global_events: {
    key: "seq",
    columns: [
      "seq",
      "event_id",
      "ctime",
      "type",
      "entity_type",
      "entity_id",
      "owner_id",
      "actor_id",
      "data",
      "delivered_at",
      "cause_task_id",
      "cause_depth",
    ],
    eligible: `delivered_at is not null and ctime < ?1 and type <> 'review.requested'
      and seq <= coalesce((select seq from notification_cursor where name = 'inbox'), 0)
      and seq < (select max(seq) from global_events)`,
    order: "ctime",
  },
};

/** A row as D1 answers it, its values in LOG_TABLE_SPECS column order. */
export type LogRow = unknown[];

/** Above this many bytes of JSON a slice's copy is split into several statements of the same batch (a value may be 2 MB). */
const COPY_PAYLOAD_BYTES = 900_000;

/** The next slice of hot rows that may move: at most `limit`, oldest first. */
export async function selectSlice(hot: D1Database, table: LogTable, cutoff: number, limit: number): Promise<LogRow[]> {
  const spec = LOG_TABLE_SPECS[table];
  return hot
    .prepare(`select ${spec.columns.join(", ")} from ${table} where ${spec.eligible} order by ${spec.order} limit ?2`)
    .bind(cutoff, limit)
    .raw<unknown[]>();
}

/** Pending keys (text) as JSON in the key column's type: an event's seq is a number, and SQLite compares 1 and '1' unequal. */
function keysJson(table: LogTable, keys: readonly string[]): string {
  return JSON.stringify(LOG_TABLE_SPECS[table].key === "seq" ? keys.map(Number) : keys);
}

function copyStatement(logs: D1Database, table: LogTable, rows: LogRow[]): D1PreparedStatement {
  const spec = LOG_TABLE_SPECS[table];
  const values = spec.columns.map((_, i) => `json_extract(value, '$[${i}]')`).join(", ");
  return logs
    .prepare(`insert or ignore into ${table} (${spec.columns.join(", ")}) select ${values} from json_each(?1)`)
    .bind(JSON.stringify(rows));
}

/**
 * One LOGS batch (one transaction): the rows, each kept as it is when already there, and their keys in
 * `move_pending`. After it, every row of the slice is in LOGS and listed as pending, or none is.
 */
export async function copySlice(logs: D1Database, table: LogTable, rows: LogRow[]): Promise<void> {
  const keyIndex = LOG_TABLE_SPECS[table].columns.indexOf(LOG_TABLE_SPECS[table].key);
  const statements: D1PreparedStatement[] = [];
  let chunk: LogRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = JSON.stringify(row).length;
    if (chunk.length > 0 && bytes + size > COPY_PAYLOAD_BYTES) {
      statements.push(copyStatement(logs, table, chunk));
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) statements.push(copyStatement(logs, table, chunk));
  const keys = rows.map((row) => String(row[keyIndex]));
  statements.push(
    logs.prepare(`insert or ignore into move_pending (tbl, key) select ?1, value from json_each(?2)`).bind(table, JSON.stringify(keys)),
  );
  await logs.batch(statements);
}

/** The keys LOGS holds a copy of whose hot originals may still exist. */
export async function pendingKeys(logs: D1Database, table: LogTable): Promise<string[]> {
  const { results } = await logs.prepare(`select key from move_pending where tbl = ?1`).bind(table).all<{ key: string }>();
  return results.map((r) => r.key);
}

/**
 * Deletes the hot originals of pending keys that may still move (a copy exists for each: the keys come from the
 * batch that wrote it), then answers the pending keys the hot database still holds: rows that changed after the
 * copy (a finished task restarted), whose copy is stale.
 */
export async function deleteMoved(hot: D1Database, table: LogTable, keys: string[], cutoff: number): Promise<string[]> {
  const spec = LOG_TABLE_SPECS[table];
  const list = keysJson(table, keys);
  const [, kept] = await hot.batch<{ key: string }>([
    hot.prepare(`delete from ${table} where ${spec.key} in (select value from json_each(?2)) and ${spec.eligible}`).bind(cutoff, list),
    hot.prepare(`select cast(${spec.key} as text) as key from ${table} where ${spec.key} in (select value from json_each(?1))`).bind(list),
  ]);
  return kept.results.map((r) => r.key);
}

/** Ends the pending state of `keys`: stale copies (`kept`: the hot database still holds them) are dropped from LOGS. */
export async function clearPending(logs: D1Database, table: LogTable, keys: string[], kept: string[]): Promise<void> {
  const spec = LOG_TABLE_SPECS[table];
  await logs.batch([
    logs.prepare(`delete from ${table} where ${spec.key} in (select value from json_each(?1))`).bind(keysJson(table, kept)),
    logs.prepare(`delete from move_pending where tbl = ?1 and key in (select value from json_each(?2))`).bind(table, JSON.stringify(keys)),
  ]);
}
