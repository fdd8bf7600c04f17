import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { taskTemplates, tasks, type TaskEntityRef, type TaskRow, type TaskStatus, type TaskTemplateRow } from "../schema/index";
import { runStatement } from "./group.repository";
import { inIds } from "./tag.repository";
import { visibleSql, type Visibility } from "./access.repository";

/**
 * Queries of the task capability. D1 is the source of truth for what runs next: the consumer claims the highest
 * priority runnable row with one conditional UPDATE, so two consumers never take the same task.
 */

/** A row as raw SQL returns it (JSON columns as text). */
interface RawTask {
  id: string;
  job_num: number;
  template_id: string | null;
  template: string | null;
  operation_class: string;
  name: string;
  owner_id: string | null;
  affected: string;
  src_entity: string | null;
  dst_entity: string | null;
  options: string;
  worker_info: string | null;
  schedule_time: number;
  start_time: number | null;
  stop_time: number | null;
  progress: number;
  progress_info: string | null;
  status: TaskStatus;
  priority: number;
  attempts: number;
  cursor: string | null;
  result: string | null;
  error: string | null;
  heartbeat: number | null;
  ctime: number;
  mtime: number;
}

const json = <T>(text: string | null): T | null => (text == null ? null : (JSON.parse(text) as T));

function fromRaw(r: RawTask): TaskRow {
  return {
    id: r.id,
    jobNum: r.job_num,
    templateId: r.template_id,
    template: r.template,
    operationClass: r.operation_class,
    name: r.name,
    ownerId: r.owner_id,
    affected: json<TaskEntityRef[]>(r.affected) ?? [],
    srcEntity: r.src_entity,
    dstEntity: r.dst_entity,
    options: json<Record<string, unknown>>(r.options) ?? {},
    workerInfo: r.worker_info,
    scheduleTime: r.schedule_time,
    startTime: r.start_time,
    stopTime: r.stop_time,
    progress: r.progress,
    progressInfo: r.progress_info,
    status: r.status,
    priority: r.priority,
    attempts: r.attempts,
    cursor: json<Record<string, unknown>>(r.cursor),
    result: json<Record<string, unknown>>(r.result),
    error: r.error,
    heartbeat: r.heartbeat,
    ctime: r.ctime,
    mtime: r.mtime,
  };
}

export interface NewTask {
  id: string;
  templateId: string | null;
  template: string | null;
  operationClass: string;
  name: string;
  ownerId: string | null;
  affected: TaskEntityRef[];
  srcEntity: string | null;
  dstEntity: string | null;
  options: Record<string, unknown>;
  status: TaskStatus;
  priority: number;
  scheduleTime: number;
  now: number;
}

/**
 * Inserts a task; its job number is the next one, taken inside the same statement (atomic in D1). With `onlyIf`,
 * the row is inserted only when that condition holds (the outbox inserts a run's task only for a pair not yet
 * delivered, in the batch that records the delivery).
 */
export function insertTaskStatement(t: NewTask, onlyIf: SQL = sql`1`): SQL {
  return sql`insert into tasks (id, job_num, template_id, template, operation_class, name, owner_id, affected, src_entity, dst_entity,
      options, schedule_time, status, priority, start_time, ctime, mtime)
    select ${t.id}, (select coalesce(max(job_num), 0) + 1 from tasks), ${t.templateId}, ${t.template}, ${t.operationClass}, ${t.name},
      ${t.ownerId}, ${JSON.stringify(t.affected)}, ${t.srcEntity}, ${t.dstEntity}, ${JSON.stringify(t.options)}, ${t.scheduleTime},
      ${t.status}, ${t.priority}, ${t.status === "running" ? t.now : null}, ${t.now}, ${t.now}
    where ${onlyIf}`;
}

export async function findTask(db: Database, id: string): Promise<TaskRow | null> {
  const row = await db.get<RawTask | undefined>(sql`select * from tasks where id = ${id}`);
  return row ? fromRaw(row) : null;
}

/**
 * SQL condition on a `tasks` row: the caller may read every file and folder the task is about (its `affected`
 * entities). A task's name, log and source name the files it works on, so owning the task is not enough: someone
 * who lost read on a file (a demoted administrator whose automation ran on it) learns nothing more through it. An
 * entity that no longer exists counts as unreadable. Null visibility (administrators): no condition.
 */
export function taskSubjectsVisibleSql(vis: Visibility | null): SQL {
  if (vis === null) return sql`1`;
  return sql`not exists (select 1 from json_each(tasks.affected) te
      where json_extract(te.value, '$.type') in ('asset', 'group') and not (
        (json_extract(te.value, '$.type') = 'asset' and exists (select 1 from assets ta where ta.id = json_extract(te.value, '$.id')
          and ${visibleSql(vis, "asset", sql`ta.id`, sql`ta.owner_id`)}))
        or (json_extract(te.value, '$.type') = 'group' and exists (select 1 from groups tg where tg.id = json_extract(te.value, '$.id')
          and ${visibleSql(vis, "group", sql`tg.id`, sql`tg.owner_id`)}))))`;
}

/** The tasks among `ids`; with `vis`, only those whose files and folders the caller may read. */
export async function findTasks(db: Database, ids: readonly string[], vis: Visibility | null = null): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return (await db.all<RawTask>(sql`select * from tasks where ${inIds(sql`id`, ids)} and ${taskSubjectsVisibleSql(vis)}`)).map(fromRaw);
}

/** Whether the caller may read every file and folder task `id` is about (one indexed read). */
export async function taskSubjectsVisible(db: Database, id: string, vis: Visibility | null): Promise<boolean> {
  if (vis === null) return true;
  const row = await db.get<{ ok: number } | undefined>(sql`select 1 as ok from tasks where id = ${id} and ${taskSubjectsVisibleSql(vis)}`);
  return row !== undefined;
}

export interface TaskFilter {
  /** null: every task (administrators); otherwise only tasks owned by this user */
  ownerId: string | null;
  /** the caller's visibility: only tasks about files and folders it may read (null: administrators, all) */
  vis: Visibility | null;
  name?: string;
  status?: TaskStatus[];
  op?: string[];
  asset?: string;
  /** only tasks numbered above this (newer): placing a deep page of the merged list (decision 038) */
  newerThanJob?: number;
}

function filterSql(f: TaskFilter): SQL {
  const parts: SQL[] = [sql`1 = 1`];
  if (f.ownerId !== null) parts.push(sql`owner_id = ${f.ownerId}`);
  if (f.vis !== null) parts.push(taskSubjectsVisibleSql(f.vis));
  if (f.name) parts.push(sql`instr(lower(name), ${f.name.toLowerCase()}) > 0`);
  if (f.status?.length) parts.push(inIds(sql`status`, f.status));
  if (f.op?.length) parts.push(inIds(sql`operation_class`, f.op));
  if (f.newerThanJob !== undefined) parts.push(sql`job_num > ${f.newerThanJob}`);
  if (f.asset) {
    parts.push(
      sql`(src_entity = ${f.asset} or dst_entity = ${f.asset} or exists (select 1 from json_each(tasks.affected) e where json_extract(e.value, '$.id') = ${f.asset}))`,
    );
  }
  return sql.join(parts, sql` and `);
}

/** One page of tasks, newest first (with `oldestFirst`, the other way). */
export async function listTasks(db: Database, f: TaskFilter, page: { skip: number; take: number; oldestFirst?: boolean }): Promise<TaskRow[]> {
  const rows = await db.all<RawTask>(
    sql`select * from tasks where ${filterSql(f)} order by job_num ${page.oldestFirst ? sql`asc` : sql`desc`} limit ${page.take} offset ${page.skip}`,
  );
  return rows.map(fromRaw);
}

export async function countTasks(db: Database, f: TaskFilter): Promise<number> {
  const row = await db.get<{ n: number }>(sql`select count(*) as n from tasks where ${filterSql(f)}`);
  return row?.n ?? 0;
}

/**
 * Tasks of a filter without its visibility part, as (id, job number, affected) newest first: the LOGS side of a
 * non-administrator's list, whose visibility the hot database decides (visibleTaskIds).
 */
export function taskCandidates(db: Database, f: TaskFilter): Promise<{ id: string; job_num: number; affected: string }[]> {
  return db.all(sql`select id, job_num, affected from tasks where ${filterSql({ ...f, vis: null })} order by job_num desc`);
}

/** Which of these tasks (read from LOGS) are about files and folders the caller may read, decided in the hot database. */
export async function visibleTaskIds(db: Database, rows: readonly { id: string; affected: string }[], vis: Visibility): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const payload = JSON.stringify(rows.map((r) => [r.id, r.affected]));
  const visible = await db.all<{ id: string }>(sql`select tasks.id as id
    from (select json_extract(value, '$[0]') as id, json_extract(value, '$[1]') as affected from json_each(${payload})) as tasks
    where ${taskSubjectsVisibleSql(vis)}`);
  return new Set(visible.map((r) => r.id));
}

/** The SQL condition of a filter without its visibility part (LOGS has no catalog to decide it). */
export function taskFilterSql(f: TaskFilter): SQL {
  return filterSql({ ...f, vis: null });
}

/** Distinct task names (for the name filter), most recent first. */
export async function taskNames(db: Database, ownerId: string | null, vis: Visibility | null, limit: number): Promise<string[]> {
  const rows = await db.all<{ name: string }>(
    sql`select name from tasks where ${ownerId === null ? sql`1 = 1` : sql`owner_id = ${ownerId}`} and ${taskSubjectsVisibleSql(vis)}
        group by name order by max(job_num) desc limit ${limit}`,
  );
  return rows.map((r) => r.name);
}

/**
 * Takes the runnable task with the highest priority (then the oldest) and marks it running, in one statement. A
 * running task whose run stopped answering (heartbeat older than `staleBefore`) is taken over too.
 */
export async function claimNextTask(db: Database, c: { now: number; staleBefore: number; worker: string; runnable: readonly string[] }) {
  const row = await db.get<RawTask | undefined>(sql`
    update tasks set status = 'running', worker_info = ${c.worker}, heartbeat = ${c.now}, mtime = ${c.now},
      start_time = coalesce(start_time, ${c.now}),
      -- taking over a run that stopped checking in: that run died (the platform ended it for CPU or memory, or the
      -- runtime restarted) and counts as a failed attempt, so a file that kills every run cannot loop for ever
      attempts = attempts + (case when status = 'running' then 1 else 0 end)
    where id = (
      select id from tasks
      where ((status = 'inqueue' and schedule_time <= ${c.now}) or (status = 'running' and heartbeat < ${c.staleBefore}))
        and ${inIds(sql`operation_class`, c.runnable)}
      order by priority desc, job_num asc limit 1)
    returning *`);
  return row ? fromRaw(row) : null;
}

/** Marks one queued task running (whatever its schedule): for running a given task now. Null when it is not queued. */
export async function claimTask(db: Database, id: string, c: { now: number; worker: string }) {
  const row = await db.get<RawTask | undefined>(sql`
    update tasks set status = 'running', worker_info = ${c.worker}, heartbeat = ${c.now}, mtime = ${c.now},
      start_time = coalesce(start_time, ${c.now})
    where id = ${id} and status = 'inqueue'
    returning *`);
  return row ? fromRaw(row) : null;
}

/** When the next queued task becomes runnable (its backoff or schedule ends), or null when none waits. */
export async function nextScheduledTime(db: Database, runnable: readonly string[]): Promise<number | null> {
  const row = await db.get<{ t: number | null }>(
    sql`select min(schedule_time) as t from tasks where status = 'inqueue' and ${inIds(sql`operation_class`, runnable)}`,
  );
  return row?.t ?? null;
}

/**
 * Moves a task from `from` to `to` with extra column changes, only if it is still in `from` (compare-and-set) and,
 * with `worker`, still held by that run; answers whether it changed.
 */
export async function transitionTask(
  db: Database,
  id: string,
  from: TaskStatus,
  to: TaskStatus,
  set: SQL[] = [],
  now = Date.now(),
  worker?: string,
): Promise<boolean> {
  const extra = set.length > 0 ? sql`, ${sql.join(set, sql`, `)}` : sql``;
  const held = worker === undefined ? sql`` : sql` and worker_info = ${worker}`;
  const result = await runStatement(
    db,
    sql`update tasks set status = ${to}, mtime = ${now}${extra} where id = ${id} and status = ${from}${held}`,
  );
  return (result.meta.changes ?? 0) > 0;
}

/**
 * Saves a running task's progress and resume point; false when this run no longer holds it (a command changed it,
 * or it was paused and resumed into another run meanwhile).
 */
export async function saveRunningProgress(
  db: Database,
  id: string,
  p: { progress: number; info: string | null; cursor: unknown; now: number; worker: string },
): Promise<boolean> {
  const result = await runStatement(
    db,
    sql`update tasks set progress = ${p.progress}, progress_info = ${p.info}, cursor = ${JSON.stringify(p.cursor ?? null)},
        heartbeat = ${p.now}, mtime = ${p.now} where id = ${id} and status = 'running' and worker_info = ${p.worker}`,
  );
  return (result.meta.changes ?? 0) > 0;
}

export async function setPriority(db: Database, id: string, priority: number, now = Date.now()): Promise<boolean> {
  const result = await runStatement(
    db,
    sql`update tasks set priority = ${priority}, mtime = ${now} where id = ${id} and status not in ('done', 'error', 'canceled')`,
  );
  return (result.meta.changes ?? 0) > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Templates

export function findTemplate(db: Database, id: string): Promise<TaskTemplateRow | undefined> {
  return db
    .select()
    .from(taskTemplates)
    .where(sql`id = ${id}`)
    .get();
}

export function listTemplates(db: Database, opts: { operationClass?: string; ownerId: string | null; includeDisabled: boolean }) {
  const parts: SQL[] = [sql`1 = 1`];
  if (opts.operationClass) parts.push(sql`operation_class = ${opts.operationClass}`);
  if (!opts.includeDisabled) parts.push(sql`disabled = 0`);
  if (opts.ownerId !== null) parts.push(sql`(owner_id is null or owner_id = ${opts.ownerId})`);
  return db
    .select()
    .from(taskTemplates)
    .where(sql.join(parts, sql` and `))
    .orderBy(sql`operation_class`, sql`id`)
    .all();
}

export { tasks, taskTemplates };
