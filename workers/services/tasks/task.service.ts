import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { findUserById } from "../../db/repositories/user.repository";
import {
  findTask,
  findTemplate,
  listTemplates,
  setPriority,
  taskNames,
  taskSubjectsVisible,
  transitionTask,
  type TaskFilter,
} from "../../db/repositories/task.repository";
import type { TaskEntityRef, TaskRow, TaskStatus, TaskTemplateRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN } from "../../lib/ids";
import { signLink, verifyLink } from "../../lib/signed-url";
import { requireEntityAccess, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { exportKey } from "./processing/export.operation";
import { type OperationClass } from "./processing/operation";
import { isOperationClass, specOf } from "./processing/specs";
import { taskStub } from "./task-live";
import { canReprioritize, commandsFor, nextStatus, type TaskCommand } from "./task-status";
import { wakeUp } from "./task-create.service";
import { archivedTaskVisible, findTaskAnywhere, findTasksAnywhere, isArchivedTask, taskCountOfBoth, taskPageOfBoth } from "./task-archive";

/** Priorities: 1 (lowest) … 10 (highest); new tasks get 5 unless told. */
export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 10;
export const DEFAULT_PRIORITY = 5;

/** SPEC §3 Task as the API answers it. */
export interface TaskView {
  job_id: string;
  job_num: number;
  template_id: string | null;
  template: string | null;
  name: string;
  operation_class: string;
  operation_name: string;
  owner: string | null;
  affected: TaskEntityRef[];
  src_entity: string | null;
  dst_entity: string | null;
  worker_info: string | null;
  schedule_time: string;
  start_time: string | null;
  stop_time: string | null;
  progress: number;
  progress_info: string | null;
  status: TaskStatus;
  status_name: string;
  priority: number;
  attempts: number;
  error: string | null;
  ctime: string;
  mtime: string;
  /** commands legal in the current status */
  commands: TaskCommand[];
}

/** SPEC §3 Task template as the API answers it. */
export interface TaskTemplateView {
  id: string;
  name: string;
  operation_class: string;
  operation_name: string;
  setup: Record<string, unknown>;
  owner: string | null;
  disabled: boolean;
}

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());

export function toTaskView(t: TaskRow): TaskView {
  return {
    job_id: t.id,
    job_num: t.jobNum,
    template_id: t.templateId,
    template: t.template,
    name: t.name,
    operation_class: t.operationClass,
    operation_name: ru.tasks.operations[t.operationClass] ?? t.operationClass,
    owner: t.ownerId,
    affected: t.affected,
    src_entity: t.srcEntity,
    dst_entity: t.dstEntity,
    worker_info: t.workerInfo,
    schedule_time: new Date(t.scheduleTime).toISOString(),
    start_time: iso(t.startTime),
    stop_time: iso(t.stopTime),
    progress: t.progress,
    progress_info: t.progressInfo,
    status: t.status,
    status_name: ru.tasks.statuses[t.status] ?? t.status,
    priority: t.priority,
    attempts: t.attempts,
    error: t.error,
    ctime: new Date(t.ctime).toISOString(),
    mtime: new Date(t.mtime).toISOString(),
    // A task moved to LOGS (decision 038) is history: no command applies to it.
    commands: isArchivedTask(t) ? [] : specOf(t.operationClass) ? commandsFor(t.status) : commandsFor(t.status).filter((c) => c === "cancel"),
  };
}

function toTemplateView(t: TaskTemplateRow): TaskTemplateView {
  return {
    id: t.id,
    name: t.name,
    operation_class: t.operationClass,
    operation_name: ru.tasks.operations[t.operationClass] ?? t.operationClass,
    setup: t.setup,
    owner: t.ownerId,
    disabled: t.disabled,
  };
}

/** Who sees which tasks in lists: administrators all, others their own (an SQL filter, so paging stays right). */
function visibleTaskOwner(actor: Actor): string | null {
  return actor.isAdmin ? null : actor.id;
}

/**
 * A task the actor may act on at `level` (404 when it may not even read it). Reading a task also needs read on every
 * file and folder it is about: its name, log, result and source describe them.
 */
export async function requireTask(rc: RequestContext, actor: Actor, id: string, level: "read" | "execute"): Promise<TaskRow> {
  const task = await findTaskAnywhere(rc, id);
  if (!task) throw new AppError("NOT_FOUND", ru.tasks.notFound);
  await requireEntityAccess(rc, actor, { id: task.id, type: "task", ownerId: task.ownerId }, level, ru.tasks.notFound);
  if (!actor.isAdmin && !(await subjectsVisible(rc, task, await visibility(rc, actor)))) {
    throw new AppError("NOT_FOUND", ru.tasks.notFound);
  }
  if (level === "execute" && isArchivedTask(task)) throw new AppError("CONFLICT", ru.tasks.archived);
  return task;
}

/** Whether the caller may read every file and folder the task is about, in whichever database the task lives. */
async function subjectsVisible(rc: RequestContext, task: TaskRow, vis: Awaited<ReturnType<typeof visibility>>): Promise<boolean> {
  if (vis === null) return true;
  return isArchivedTask(task) ? archivedTaskVisible(rc, task, vis) : taskSubjectsVisible(rc.db, task.id, vis);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

export interface TaskListQuery {
  skip: number;
  take: number;
  name?: string;
  status?: string[];
  op?: string[];
  asset?: string;
}

async function filterOf(rc: RequestContext, actor: Actor, q: Omit<TaskListQuery, "skip" | "take">): Promise<TaskFilter> {
  return { ownerId: visibleTaskOwner(actor), vis: await visibility(rc, actor), name: q.name, status: q.status as TaskStatus[] | undefined, op: q.op, asset: q.asset };
}

/** GET /current: one page of the tasks the actor sees, newest first. */
export async function listCurrentTasks(rc: RequestContext, actor: Actor, q: TaskListQuery): Promise<TaskView[]> {
  return (await taskPageOfBoth(rc, await filterOf(rc, actor, q), { skip: q.skip, take: q.take })).map((t) => toTaskView(t));
}

export async function countCurrentTasks(
  rc: RequestContext,
  actor: Actor,
  q: Omit<TaskListQuery, "skip" | "take">,
): Promise<{ count: number }> {
  return { count: await taskCountOfBoth(rc, await filterOf(rc, actor, q)) };
}

/** GET /names: distinct names of the actor's tasks (about files it may read), for the name filter. */
export async function listTaskNames(rc: RequestContext, actor: Actor): Promise<string[]> {
  return taskNames(rc.db, visibleTaskOwner(actor), await visibility(rc, actor), 200);
}

/** POST /task-status: the tasks among `ids` the actor sees (unknown and unseen ids are left out). */
export async function taskStatuses(rc: RequestContext, actor: Actor, ids: string[]): Promise<TaskView[]> {
  const rows = await findTasksAnywhere(rc, [...new Set(ids)], await visibility(rc, actor));
  const visible = rows.filter((t) => actor.isAdmin || (t.ownerId !== null && t.ownerId === actor.id));
  const byId = new Map(visible.map((t) => [t.id, t]));
  return ids.filter((id, i) => ids.indexOf(id) === i && byId.has(id)).map((id) => toTaskView(byId.get(id)!));
}

/** GET /task/{id}: the task, with live progress from its Durable Object while it runs. */
export async function getTask(rc: RequestContext, actor: Actor, id: string): Promise<TaskView> {
  const task = await requireTask(rc, actor, id, "read");
  const view = toTaskView(task);
  if (task.status === "running") {
    const live = await taskStub(rc.env, id).getProgress();
    if (live.progress >= view.progress) Object.assign(view, { progress: live.progress, progress_info: live.info ?? view.progress_info });
  }
  return view;
}

/** How long an export download link stays valid. */
const DOWNLOAD_LINK_SECONDS = 24 * 3600;

/** GET /task-result/{id}: what a finished task produced; an export adds a signed download link. */
export async function taskResult(rc: RequestContext, actor: Actor, id: string) {
  const task = await requireTask(rc, actor, id, "read");
  let downloadUrl: string | null = null;
  if (task.operationClass === "export" && task.status === "done" && task.result) {
    const exp = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
    const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose: "download", id: task.id, userId: actor.id, exp }));
    downloadUrl = `/api/tasklist/export/${task.id}?${params}`;
  }
  return {
    job_id: task.id,
    status: task.status,
    status_name: ru.tasks.statuses[task.status],
    result: task.result,
    error: task.error,
    download_url: downloadUrl,
  };
}

/**
 * GET /export/{id}: the archive of an export task, for a signed link (from task-result) whose user may still read
 * the task; 404 for a bad link, a task that is not a finished export, or an archive that is gone.
 */
export async function openExport(rc: RequestContext, id: string, link: { u?: string; exp?: string; sig?: string }) {
  const userId = await verifyLink(rc.config.JWT_SECRET, "download", id, link);
  const task = userId ? await findTaskAnywhere(rc, id) : null;
  if (!userId || !task || task.operationClass !== "export") throw new AppError("NOT_FOUND", ru.tasks.notFound);
  const user = await findUserById(rc.db, userId);
  if (!user || !user.enabled) throw new AppError("NOT_FOUND", ru.tasks.notFound);
  const actor: Actor = {
    id: user.id,
    name: user.name,
    login: user.login,
    isAdmin: user.isAdmin,
    isRobot: user.isRobot,
    sessionFamily: null,
  };
  await requireEntityAccess(rc, actor, { id: task.id, type: "task", ownerId: task.ownerId }, "read", ru.tasks.notFound);
  if (!actor.isAdmin && !(await subjectsVisible(rc, task, await visibility(rc, actor)))) throw new AppError("NOT_FOUND", ru.tasks.notFound);
  if (task.status !== "done") throw new AppError("NOT_FOUND", ru.tasks.exportNotReady);
  const object = await rc.env.MEDIA.get(exportKey(task.id));
  if (!object) throw new AppError("NOT_FOUND", ru.tasks.exportGone);
  return { object, fileName: `export-${task.jobNum}.zip` };
}

/** GET /log/{id}: log lines after `after` (seq), oldest first. */
export async function taskLog(rc: RequestContext, actor: Actor, id: string, page: { after: number; take: number }) {
  await requireTask(rc, actor, id, "read");
  const stub = taskStub(rc.env, id);
  const [lines, stats] = await Promise.all([stub.readLog(page.after, page.take), stub.logStats()]);
  return {
    job_id: id,
    lines: lines.map((l) => ({ seq: l.seq, time: new Date(l.at).toISOString(), level: l.level, message: l.message })),
    last_seq: stats.last,
    total: stats.count,
  };
}

/** GET /task-commands/{x}: the commands legal for the task `x` in its current status. */
export async function taskCommands(rc: RequestContext, actor: Actor, id: string) {
  const task = await requireTask(rc, actor, id, "read");
  const view = toTaskView(task);
  return {
    job_id: id,
    status: task.status,
    commands: view.commands.map((c) => ({ command: c, title: ru.tasks.commands[c] })),
    priority: canReprioritize(task.status),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Templates

/** GET /available-tasks: enabled templates the actor may start (built-ins and their own), by operation class. */
export async function availableTasks(rc: RequestContext, actor: Actor): Promise<TaskTemplateView[]> {
  const rows = await listTemplates(rc.db, { ownerId: actor.isAdmin ? null : actor.id, includeDisabled: false });
  return rows.filter((t) => isOperationClass(t.operationClass)).map(toTemplateView);
}

/** The operation class `x` names: a class itself, or a template's id. */
export async function classOf(
  rc: RequestContext,
  x: string,
): Promise<{ operationClass: OperationClass; template: TaskTemplateRow | null }> {
  if (isOperationClass(x)) return { operationClass: x, template: null };
  const template = ID_PATTERN.test(x) ? await findTemplate(rc.db, x) : undefined;
  if (!template || !isOperationClass(template.operationClass)) throw new AppError("NOT_FOUND", ru.tasks.unknownOperation(x));
  return { operationClass: template.operationClass, template };
}

/** GET /available-profiles/{x}: the enabled profiles (templates) of the class `x` (or of template `x`'s class). */
export async function availableProfiles(rc: RequestContext, actor: Actor, x: string): Promise<TaskTemplateView[]> {
  const { operationClass } = await classOf(rc, x);
  return (await listTemplates(rc.db, { operationClass, ownerId: actor.isAdmin ? null : actor.id, includeDisabled: false })).map(
    toTemplateView,
  );
}

/** GET /task-templates/{class}: every template of a class (disabled ones too, for administrators). */
export async function taskTemplates(rc: RequestContext, actor: Actor, cls: string): Promise<TaskTemplateView[]> {
  if (!isOperationClass(cls)) throw new AppError("NOT_FOUND", ru.tasks.unknownOperation(cls));
  return (
    await listTemplates(rc.db, { operationClass: cls, ownerId: actor.isAdmin ? null : actor.id, includeDisabled: actor.isAdmin })
  ).map(toTemplateView);
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

/**
 * POST /command/{taskId}: applies a command by the status machine. An illegal command answers 409 and changes
 * nothing. The D1 row changes at once (compare-and-set on the status read); a running task also gets the command
 * through its Durable Object and stops at its next check-in (pause keeps its resume point; cancel drops it).
 * Resume and restart queue the task again with a wake-up.
 */
export async function commandTask(rc: RequestContext, actor: Actor, id: string, command: TaskCommand) {
  const task = await requireTask(rc, actor, id, "execute");
  const runnable = specOf(task.operationClass) !== null;
  const to = nextStatus(task.status, command);
  if (!to || (!runnable && command !== "cancel")) {
    throw new AppError("CONFLICT", ru.tasks.illegalCommand(ru.tasks.commands[command], ru.tasks.statuses[task.status]));
  }
  const now = Date.now();
  const set =
    command === "restart"
      ? [
          sql`progress = 0`,
          sql`progress_info = null`,
          sql`cursor = null`,
          sql`result = null`,
          sql`error = null`,
          sql`attempts = 0`,
          sql`start_time = null`,
          sql`stop_time = null`,
          sql`schedule_time = ${now}`,
          sql`worker_info = null`,
        ]
      : command === "resume"
      ? [sql`schedule_time = ${now}`, sql`worker_info = null`]
      : command === "cancel"
      ? [sql`stop_time = ${now}`]
      : [];
  if (!(await transitionTask(rc.db, id, task.status, to, set, now))) {
    // The status changed between the read and the write (the consumer finished it, another command won).
    const current = (await findTask(rc.db, id))!;
    throw new AppError("CONFLICT", ru.tasks.illegalCommand(ru.tasks.commands[command], ru.tasks.statuses[current.status]));
  }
  const stub = taskStub(rc.env, id);
  await stub.sendCommand(command);
  const line = { pause: ru.tasks.log.paused, resume: ru.tasks.log.resumed, cancel: ru.tasks.log.canceled, restart: ru.tasks.log.restarted }[
    command
  ];
  await stub.appendLog("info", `${line} (${actor.login})`);
  if (command === "restart") await stub.setProgress({ progress: 0, info: null });
  if (to === "inqueue") await wakeUp(rc.env, id);
  return toTaskView((await findTask(rc.db, id))!);
}

/**
 * POST /priority/{taskId}: changes the priority of an unfinished task (409 when finished). A queued task is
 * claimed by the new priority at once; a running one competes with it when it next yields its run.
 */
export async function setTaskPriority(rc: RequestContext, actor: Actor, id: string, priority: number) {
  const task = await requireTask(rc, actor, id, "execute");
  if (!canReprioritize(task.status) || !(await setPriority(rc.db, id, priority))) {
    throw new AppError("CONFLICT", ru.tasks.priorityFinished);
  }
  await taskStub(rc.env, id).appendLog("info", `${ru.tasks.log.priority(task.priority, priority)} (${actor.login})`);
  return toTaskView((await findTask(rc.db, id))!);
}
