import {
  LOG_TABLES,
  clearPending,
  copySlice,
  deleteMoved,
  pendingKeys,
  selectSlice,
  type LogTable,
} from "../../db/repositories/logs-move.repository";

/** Rows younger than this stay in the hot database (the audit screen's and task list's everyday pages). */
export const LOGS_KEEP_DAYS = 30;
/** Rows per slice: one select, one LOGS batch, one hot batch and one LOGS batch, each far inside D1's 30 s. */
export const LOGS_SLICE_ROWS = 500;

/** The points a move passes for each slice, after which it may stop (the tests stop it there). */
export type LogsMoveStep = "copied" | "deleted" | "cleared";

export interface LogsMoveOptions {
  now: number;
  /** the run stops starting slices after this time (ms since the epoch) */
  deadline: number;
  /** at most this many rows per table in this run */
  maxRows: number;
  sliceRows?: number;
  keepDays?: number;
  /** called after each step; what it throws ends the run there, like a Worker ended by the platform */
  afterStep?: (table: LogTable, step: LogsMoveStep) => void;
}

export type LogsMoveSummary = Record<LogTable, number> & { ms: number };

/**
 * Finishes what a run left pending for `table`: deletes the hot originals of the rows LOGS holds (each copy was
 * written with its pending key, in one transaction), then drops the pending keys and the copies of rows that
 * changed meanwhile and stay hot. Safe to repeat at any point: every statement is idempotent.
 */
async function finishPending(hot: D1Database, logs: D1Database, table: LogTable, cutoff: number, o: LogsMoveOptions): Promise<void> {
  const keys = await pendingKeys(logs, table);
  if (keys.length === 0) return;
  const kept = await deleteMoved(hot, table, keys, cutoff);
  o.afterStep?.(table, "deleted");
  await clearPending(logs, table, keys, kept);
  o.afterStep?.(table, "cleared");
}

/**
 * Moves audit rows, finished tasks and delivered events older than LOGS_KEEP_DAYS from the hot database to LOGS
 * (decision 038), slice by slice: copy (insert-or-ignore, keyed by the original id) with the slice's keys marked
 * pending, delete the originals, clear the marks. A run that stops anywhere leaves every row in one database or
 * both (pending), never neither; the next run finishes the pending slice first. Readers merge the two and show a
 * pending row once.
 * @example await moveOldLogs(env.DB, env.LOGS, { now: Date.now(), deadline: Date.now() + 20_000, maxRows: 5_000 })
 */
export async function moveOldLogs(hot: D1Database, logs: D1Database, o: LogsMoveOptions): Promise<LogsMoveSummary> {
  const started = Date.now();
  const cutoff = o.now - (o.keepDays ?? LOGS_KEEP_DAYS) * 86_400_000;
  const sliceRows = o.sliceRows ?? LOGS_SLICE_ROWS;
  const summary = { audit_log: 0, tasks: 0, global_events: 0, ms: 0 };
  for (const table of LOG_TABLES) {
    await finishPending(hot, logs, table, cutoff, o);
    while (summary[table] < o.maxRows && Date.now() < o.deadline) {
      const rows = await selectSlice(hot, table, cutoff, Math.min(sliceRows, o.maxRows - summary[table]));
      if (rows.length === 0) break;
      await copySlice(logs, table, rows);
      o.afterStep?.(table, "copied");
      await finishPending(hot, logs, table, cutoff, o);
      summary[table] += rows.length;
      if (rows.length < sliceRows) break;
    }
  }
  summary.ms = Date.now() - started;
  return summary;
}

/** The minute cron's share: a bounded run that leaves the cron most of its time (queries stay far below 1,000). */
export function runLogsMove(env: Env, now: number): Promise<LogsMoveSummary> {
  return moveOldLogs(env.DB, env.LOGS, { now, deadline: Date.now() + 15_000, maxRows: 5_000 });
}
