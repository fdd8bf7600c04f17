import type { TaskRow } from "../../db/schema/index";
import {
  countTasks,
  findTask,
  findTasks,
  listTasks,
  taskCandidates,
  taskFilterSql,
  visibleTaskIds,
  type TaskFilter,
} from "../../db/repositories/task.repository";
import type { Visibility } from "../../db/repositories/access.repository";
import type { RequestContext } from "../access";
import type { Database } from "../../db/client";
import { logsDb, mergedPage, shadowedKeys, type MergeSource } from "../logs";

/**
 * Tasks read from the hot database and from LOGS as one list (decision 038): finished tasks older than 30 days live
 * in LOGS, and the task list, its count and a task by id answer the same as before the move.
 */

/** Rows that came from LOGS: read-only (no command applies to them; toTaskView lists none). */
const archived = new WeakSet<TaskRow>();

export function isArchivedTask(task: TaskRow): boolean {
  return archived.has(task);
}

function markArchived(rows: TaskRow[]): TaskRow[] {
  for (const row of rows) archived.add(row);
  return rows;
}

/** Chunks of ids sent to the hot database at once for the visibility check. */
const VISIBILITY_CHUNK = 500;

/** The LOGS tasks of a non-administrator's filter that it may read, newest first (their visibility is decided in the hot database). */
async function visibleArchived(rc: RequestContext, f: TaskFilter & { vis: Visibility }): Promise<{ id: string; job_num: number }[]> {
  const candidates = await taskCandidates(logsDb(rc.env), f);
  const visible = new Set<string>();
  for (let i = 0; i < candidates.length; i += VISIBILITY_CHUNK) {
    for (const id of await visibleTaskIds(rc.db, candidates.slice(i, i + VISIBILITY_CHUNK), f.vis)) visible.add(id);
  }
  return candidates.filter((c) => visible.has(c.id));
}

const newestFirst = (a: TaskRow, b: TaskRow) => b.jobNum - a.jobNum;

/** The tasks of a filter in one database, as a side of the merged list (newest first). */
function taskSource(db: Database, f: TaskFilter, mark: (rows: TaskRow[]) => TaskRow[]): MergeSource<TaskRow> {
  return {
    page: async (skip, take) => mark(await listTasks(db, f, { skip, take })),
    count: () => countTasks(db, f),
    last: async () => mark(await listTasks(db, f, { skip: 0, take: 1, oldestFirst: true }))[0],
    countBefore: (row) => countTasks(db, { ...f, newerThanJob: row.jobNum }),
  };
}

/** A non-administrator's LOGS side: the archived tasks it may read, whose order and visibility are known in full. */
function visibleArchivedSource(logs: Database, visible: { id: string; job_num: number }[]): MergeSource<TaskRow> {
  const page = async (skip: number, take: number) =>
    markArchived(
      (
        await findTasks(
          logs,
          visible.slice(skip, skip + take).map((t) => t.id),
        )
      ).sort(newestFirst),
    );
  return {
    page,
    count: async () => visible.length,
    last: async () => (await page(visible.length - 1, 1))[0],
    countBefore: async (row) => visible.filter((t) => t.job_num > row.jobNum).length,
  };
}

/** One page of the tasks of `f` in both databases, newest first. */
export async function taskPageOfBoth(rc: RequestContext, f: TaskFilter, page: { skip: number; take: number }): Promise<TaskRow[]> {
  const logs = logsDb(rc.env);
  const shadowed = shadowedKeys(rc.db, logs, "tasks", taskFilterSql(f));
  const hotSide = taskSource(rc.db, f, (rows) => rows);
  if (f.vis === null)
    return mergedPage(hotSide, taskSource(logs, f, markArchived), (t) => t.id, newestFirst, shadowed, page.skip, page.take);
  const visible = await visibleArchived(rc, { ...f, vis: f.vis });
  const ids = new Set(visible.map((t) => t.id));
  // A row in both databases that the caller may not read is on neither side of its list.
  const visibleShadowed = shadowed.then((keys) => new Set([...keys].filter((key) => ids.has(key))));
  return mergedPage(hotSide, visibleArchivedSource(logs, visible), (t) => t.id, newestFirst, visibleShadowed, page.skip, page.take);
}

/** How many tasks of `f` the two databases hold together (a row a stopped move left in both counts once). */
export async function taskCountOfBoth(rc: RequestContext, f: TaskFilter): Promise<number> {
  const logs = logsDb(rc.env);
  const [hotTotal, shadowed, logsTotal] = await Promise.all([
    countTasks(rc.db, f),
    shadowedKeys(rc.db, logs, "tasks", taskFilterSql(f)),
    f.vis === null ? countTasks(logs, f) : null,
  ]);
  if (logsTotal !== null) return hotTotal + logsTotal - shadowed.size;
  // Shadowed rows are counted on the hot side, where the caller's visibility of them is decided too.
  const visible = await visibleArchived(rc, { ...f, vis: f.vis! });
  return hotTotal + visible.filter((t) => !shadowed.has(t.id)).length;
}

/** A task by id from the hot database, else from LOGS; null when neither has it. */
export async function findTaskAnywhere(rc: RequestContext, id: string): Promise<TaskRow | null> {
  const hot = await findTask(rc.db, id);
  if (hot) return hot;
  const old = await findTask(logsDb(rc.env), id);
  return old ? markArchived([old])[0] : null;
}

/** The tasks among `ids` in either database (hot first); with `vis`, only those about files and folders the caller reads. */
export async function findTasksAnywhere(rc: RequestContext, ids: readonly string[], vis: Visibility | null): Promise<TaskRow[]> {
  const hot = await findTasks(rc.db, ids, vis);
  const found = new Set(hot.map((t) => t.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length === 0) return hot;
  const old = await findTasks(logsDb(rc.env), missing);
  if (vis === null) return [...hot, ...markArchived(old)];
  const visible = await visibleTaskIds(
    rc.db,
    old.map((t) => ({ id: t.id, affected: JSON.stringify(t.affected) })),
    vis,
  );
  return [...hot, ...markArchived(old.filter((t) => visible.has(t.id)))];
}

/** Whether the caller may read every file and folder task `task` is about, wherever the task lives. */
export async function archivedTaskVisible(rc: RequestContext, task: TaskRow, vis: Visibility): Promise<boolean> {
  return (await visibleTaskIds(rc.db, [{ id: task.id, affected: JSON.stringify(task.affected) }], vis)).has(task.id);
}
