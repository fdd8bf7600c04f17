import { sql, type SQL } from "drizzle-orm";
import { createDb, type Database } from "../../db/client";
import { LOG_TABLE_SPECS, type LogTable } from "../../db/repositories/logs-move.repository";

/**
 * What the readers of the audit log, the task list and the event feed need to show the hot database and LOGS as
 * one (decision 038): the LOGS handle, the rows a stopped move left in both, and the merge of two sorted pages.
 */

/** Typed queries over LOGS: its tables have the hot tables' names and columns, so the same filters apply. */
export function logsDb(env: Env): Database {
  return createDb(env.LOGS);
}

/**
 * Keys of LOGS rows of `table` matching `filter` that are still pending and whose originals the hot database still
 * holds (a move stopped between copy and delete): counted once, shown from the hot side. Empty, after one
 * indexed LOGS read, unless a move is under way or was stopped.
 */
export async function shadowedKeys(hot: Database, logs: Database, table: LogTable, filter: SQL): Promise<Set<string>> {
  const key = LOG_TABLE_SPECS[table].key;
  const pending = await logs.all<{ key: string }>(
    sql`select p.key as key from move_pending p join ${sql.identifier(table)}
          on ${sql.identifier(table)}.${sql.identifier(key)} = ${key === "seq" ? sql`cast(p.key as integer)` : sql`p.key`}
        where p.tbl = ${table} and ${filter}`,
  );
  if (pending.length === 0) return new Set();
  const list = JSON.stringify(key === "seq" ? pending.map((p) => Number(p.key)) : pending.map((p) => p.key));
  const present = await hot.all<{ key: string }>(
    sql`select cast(${sql.identifier(key)} as text) as key from ${sql.identifier(table)} where ${sql.identifier(key)} in (select value from json_each(${list}))`,
  );
  return new Set(present.map((p) => p.key));
}

/**
 * The window [skip, skip + take) of the union of two lists each sorted by `compare` and each holding at least its own
 * first skip + take rows: a LOGS row the hot list also has (or that is `shadowed`) is left out, so a row in both
 * databases shows once.
 */
export function mergeWindow<T>(
  hot: readonly T[],
  logs: readonly T[],
  keyOf: (row: T) => string,
  compare: (a: T, b: T) => number,
  shadowed: ReadonlySet<string>,
  skip: number,
  take: number,
): T[] {
  const inHot = new Set(hot.map(keyOf));
  const merged = [...hot, ...logs.filter((row) => !inHot.has(keyOf(row)) && !shadowed.has(keyOf(row)))];
  return merged.sort(compare).slice(skip, skip + take);
}
