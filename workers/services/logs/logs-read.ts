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
    sql`select cast(${sql.identifier(key)} as text) as key from ${sql.identifier(table)} where ${sql.identifier(
      key,
    )} in (select value from json_each(${list}))`,
  );
  return new Set(present.map((p) => p.key));
}

/** One side of a merged list, sorted the same way on both sides. */
export interface MergeSource<T> {
  /** rows [offset, offset + limit) in the list's order */
  page: (offset: number, limit: number) => Promise<T[]>;
  count: () => Promise<number>;
  /** the last row in the list's order (undefined when empty) */
  last: () => Promise<T | undefined>;
  /** how many rows come strictly before `row` in the list's order */
  countBefore: (row: T) => Promise<number>;
}

/** Up to this window (skip + take) a page reads both sides from the top; past it, each side's rows are counted first. */
export const SHALLOW_WINDOW = 1_000;

/**
 * The rows [skip, skip + take) of the hot list and the LOGS list merged (each sorted by `compare`), a LOGS row that
 * the hot side still holds (`shadowed`, a stopped move) shown once, from the hot side.
 *
 * A shallow page reads the first skip + take rows of both sides (one round trip). A deep one does not carry every
 * row before it: the merged list is the hot rows before the first LOGS row, then the interleaved stretch (old
 * unfinished tasks, a slice being moved: short), then the LOGS rows after the last hot row, so two counts place the
 * window and each side is read at its own offset (three round trips, each bounded by take plus the stretch).
 */
export async function mergedPage<T>(
  hot: MergeSource<T>,
  logs: MergeSource<T>,
  keyOf: (row: T) => string,
  compare: (a: T, b: T) => number,
  shadowedKeys: Promise<ReadonlySet<string>>,
  skip: number,
  take: number,
): Promise<T[]> {
  const end = skip + take;
  if (end <= SHALLOW_WINDOW) {
    const [hotRows, logsRows, shadowed] = await Promise.all([hot.page(0, end), logs.page(0, end), shadowedKeys]);
    return mergeSorted(hotRows, logsRows, keyOf, compare, shadowed).slice(skip, end);
  }
  const [hotTotal, hotLast, [logsFirst], shadowed] = await Promise.all([hot.count(), hot.last(), logs.page(0, 1), shadowedKeys]);
  if (!logsFirst) return hot.page(skip, take);
  if (!hotLast) return logs.page(skip, take);
  const [head, logsUpToHotLast] = await Promise.all([hot.countBefore(logsFirst), logs.countBefore(hotLast)]);
  // LOGS rows up to and including the last hot row: a row in both (shadowed) sorts equal to itself.
  const logsMiddle = logsUpToHotLast + (shadowed.has(keyOf(hotLast)) ? 1 : 0);
  const middleEnd = hotTotal + logsMiddle - shadowed.size;
  const parts: Promise<T[]>[] = [];
  if (skip < head) parts.push(hot.page(skip, Math.min(end, head) - skip));
  if (end > head && skip < middleEnd) {
    const upTo = Math.min(end, middleEnd) - head;
    parts.push(
      Promise.all([hot.page(head, Math.min(upTo, hotTotal - head)), logs.page(0, Math.min(upTo, logsMiddle))]).then(([h, l]) =>
        mergeSorted(h, l, keyOf, compare, shadowed).slice(Math.max(skip, head) - head, upTo),
      ),
    );
  }
  if (end > middleEnd) parts.push(logs.page(logsMiddle + Math.max(skip, middleEnd) - middleEnd, end - Math.max(skip, middleEnd)));
  return (await Promise.all(parts)).flat();
}

/** Both lists as one sorted list; a LOGS row the hot list has (or that is `shadowed`) left out. */
function mergeSorted<T>(
  hot: readonly T[],
  logs: readonly T[],
  keyOf: (row: T) => string,
  compare: (a: T, b: T) => number,
  shadowed: ReadonlySet<string>,
): T[] {
  const inHot = new Set(hot.map(keyOf));
  return [...hot, ...logs.filter((row) => !inHot.has(keyOf(row)) && !shadowed.has(keyOf(row)))].sort(compare);
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
  return mergeSorted(hot, logs, keyOf, compare, shadowed).slice(skip, skip + take);
}
