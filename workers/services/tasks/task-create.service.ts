/** Creating tasks: from a request (templates, profiles, priorities), and tasks run elsewhere (automations) reported back. */
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { findAsset } from "../../db/repositories/asset.repository";
import { findReadyVariant } from "../../db/repositories/asset-versions.repository";
import { runStatement } from "../../db/repositories/group.repository";
import { findTask, insertTaskStatement, transitionTask } from "../../db/repositories/task.repository";
import type { TaskEntityRef, TaskStatus } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { TaskMessageInput } from "../../queue/messages";
import { entityLevels, requireEntityAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { uploadCompleteOf, type UploadComplete } from "../library";
import { loadAssetSource } from "./processing/asset-source";
import { OPERATION_CLASSES } from "./processing/operation";
import { specOf } from "./processing/specs";
import { taskStub } from "./task-live";
import { DEFAULT_PRIORITY, requireTask, classOf } from "./task.service";

// ---------------------------------------------------------------------------------------------------------------
// Creating tasks

export interface NewTaskInput {
  operationClass: string;
  templateId?: string | null;
  template?: string | null;
  name: string;
  ownerId: string | null;
  entities: TaskEntityRef[];
  srcEntity?: string | null;
  dstEntity?: string | null;
  options?: Record<string, unknown>;
  priority?: number;
  /** not claimed before this time (epoch ms) */
  scheduleTime?: number;
  /**
   * `inqueue` (default) queues it for the consumer; `running` makes a task something else runs (an automation's
   * Workflow: it reports with `reportExternalTask`); `none` makes it without queueing it yet.
   */
  status?: "inqueue" | "running" | "none";
}

/**
 * Inserts a task row and, when queued, sends the consumer a wake-up. No access checks: callers have decided
 * (the enqueue call checks first; processing after an upload and automations run as the system).
 * @example const { job_id } = await createTask(rc, { operationClass: "preview", name: "Превью: a.jpg", ownerId, entities: [{ id, type: "asset" }] })
 */
export async function createTask(rc: RequestContext, input: NewTaskInput): Promise<{ job_id: string; job_num: number }> {
  const now = Date.now();
  const id = newId(now);
  const status = input.status ?? "inqueue";
  const scheduleTime = Math.max(input.scheduleTime ?? now, now);
  await runStatement(
    rc.db,
    insertTaskStatement({
      id,
      templateId: input.templateId ?? null,
      template: input.template ?? null,
      operationClass: input.operationClass,
      name: input.name.slice(0, 500),
      ownerId: input.ownerId,
      affected: input.entities,
      srcEntity: input.srcEntity ?? input.entities[0]?.id ?? null,
      dstEntity: input.dstEntity ?? null,
      options: input.options ?? {},
      status,
      priority: input.priority ?? DEFAULT_PRIORITY,
      scheduleTime,
      now,
    }),
  );
  const task = await findTask(rc.db, id);
  await taskStub(rc.env, id).appendLog("info", ru.tasks.log.queued(input.name.slice(0, 500)));
  if (status === "inqueue") await wakeUp(rc.env, id, scheduleTime - now);
  return { job_id: id, job_num: task?.jobNum ?? 0 };
}

/** Sends the consumer a wake-up, delayed by `delayMs` (Queues delay at most 12 hours; a later one re-arms itself). */
export async function wakeUp(env: Env, taskId: string | undefined, delayMs = 0): Promise<void> {
  const delaySeconds = Math.min(Math.max(0, Math.ceil(delayMs / 1000)), 43_200);
  await env.TASKS.send({ op: "task-wakeup", taskId } satisfies TaskMessageInput, delaySeconds > 0 ? { delaySeconds } : undefined);
}

/** A folder or file a task is asked for, as the caller finds it: its name and what he may do with it. */
export interface TaskEntityCheck {
  name: string;
  /** `execute`: he may run tasks on it; `read`: he sees it (refused with 403); null: he does not (404) */
  may: "execute" | "read" | null;
}

/** How a task's entities are read: over the catalog (`taskEntityChecks`), or where each lives (the API's). */
export type TaskEntityReader = (entities: TaskEntityRef[]) => Promise<(TaskEntityCheck | null)[]>;

/** The folders and files a task is asked for, as `actor` finds them, in order: null for one that does not exist. */
export async function taskEntityChecks(rc: RequestContext, actor: Actor, entities: TaskEntityRef[]): Promise<(TaskEntityCheck | null)[]> {
  const ids = JSON.stringify(entities.map((e) => e.id));
  const rows = await rc.db.all<{ id: string; type: string; owner_id: string | null; name: string }>(sql`
    select id, 'asset' as type, owner_id, name from assets where id in (select value from json_each(${ids}))
    union all
    select id, 'group' as type, owner_id, name from groups where id in (select value from json_each(${ids}))`);
  const found = new Map(rows.map((r) => [`${r.type}:${r.id}`, r]));
  return Promise.all(
    entities.map(async (e) => {
      const row = found.get(`${e.type}:${e.id}`);
      if (!row) return null;
      const levels = await entityLevels(rc, actor, { id: e.id, type: e.type as "asset" | "group", ownerId: row.owner_id });
      const may = levels.includes("execute") ? "execute" : levels.includes("read") ? "read" : null;
      return { name: row.name, may };
    }),
  );
}

/** Checks the entities of a new task: each must exist (404) and the actor must hold `execute` on it (403/404). */
async function checkEntities(entities: TaskEntityRef[], allowed: readonly TaskEntityRef["type"][], read: TaskEntityReader) {
  for (const e of entities) {
    if (!allowed.includes(e.type))
      throw new AppError("BAD_REQUEST", ru.tasks.wrongEntityType(operationNameOf(allowed), allowed.join(", ")));
  }
  const checks = await read(entities);
  const names = new Map<string, string>();
  entities.forEach((e, i) => {
    const check = checks[i];
    if (check?.may === "read") throw new AppError("FORBIDDEN", ru.errors.forbidden);
    if (check?.may !== "execute") throw new AppError("NOT_FOUND", ru.tasks.entityNotFound);
    names.set(e.id, check.name);
  });
  return names;
}

const operationNameOf = (types: readonly string[]) => types.join("/");

export interface EnqueueInput {
  entities: TaskEntityRef[];
  options?: Record<string, unknown>;
  priority?: number;
  /** ISO time before which the task is not started */
  schedule_time?: string;
}

/**
 * POST /enqueue-task/{x}: starts a task of template `x` (or of operation class `x` with its defaults). The
 * template's setup and the caller's options are merged and validated by the operation (400 with the field); every
 * entity must exist and allow `execute` to the caller — read over the catalog unless `read` says where they live —;
 * the operation may check more (e.g. the copy target).
 */
export async function enqueueTask(
  rc: RequestContext,
  actor: Actor,
  x: string,
  input: EnqueueInput,
  read: TaskEntityReader = (entities) => taskEntityChecks(rc, actor, entities),
) {
  const { operationClass, template } = await classOf(rc, x);
  if (template?.disabled) throw new AppError("CONFLICT", ru.tasks.templateDisabled);
  if (template && template.ownerId !== null && template.ownerId !== actor.id && !actor.isAdmin) {
    throw new AppError("NOT_FOUND", ru.tasks.unknownOperation(x));
  }
  const op = specOf(operationClass)!;
  const unique = [...new Map(input.entities.map((e) => [`${e.type}:${e.id}`, e])).values()];
  if (unique.length === 0) throw new AppError("BAD_REQUEST", ru.tasks.noEntities);
  const parsed = op.options.safeParse({ ...(template?.setup ?? {}), ...(input.options ?? {}) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError("BAD_REQUEST", ru.tasks.badOptions(`${issue.path.join(".") || "options"}: ${issue.message}`));
  }
  const names = await checkEntities(unique, op.entityTypes, read);
  await op.authorize?.(rc, actor, parsed.data, unique);
  const created = await createTask(rc, {
    operationClass,
    templateId: template?.id ?? null,
    template: template?.name ?? null,
    name: op.title(unique, names),
    ownerId: actor.id,
    entities: unique,
    dstEntity: typeof parsed.data.group_id === "string" ? parsed.data.group_id : null,
    options: parsed.data,
    priority: input.priority,
    scheduleTime: input.schedule_time ? Date.parse(input.schedule_time) : undefined,
  });
  return { ...created, status: "inqueue" as const };
}

// ---------------------------------------------------------------------------------------------------------------
// Tasks run elsewhere (automations)

/**
 * Progress, log lines and the end of a task something other than the queue consumer runs (an automation's
 * Workflow, made with `createTask({ status: "running" })`). Answers the task's status after the report, so the
 * runner sees a cancel between its steps; a finished task changes no more.
 */
export async function reportExternalTask(
  rc: RequestContext,
  id: string,
  report: {
    progress?: number;
    info?: string | null;
    log?: { level: "info" | "warn" | "error"; message: string }[];
    end?: "done" | "error";
    error?: string;
  },
): Promise<TaskStatus | null> {
  const task = await findTask(rc.db, id);
  if (!task) return null;
  const stub = taskStub(rc.env, id);
  if (report.log?.length) await stub.appendLogs(report.log.map((l) => ({ level: l.level, message: l.message.slice(0, 10_000) })));
  if (task.status !== "running") return task.status;
  const now = Date.now();
  const progress = report.progress === undefined ? task.progress : Math.min(100, Math.max(0, report.progress));
  if (report.progress !== undefined || report.info !== undefined) await stub.setProgress({ progress, info: report.info ?? null });
  if (report.end) {
    const moved = await transitionTask(rc.db, id, "running", report.end === "done" ? "done" : "error", [
      sql`stop_time = ${now}`,
      sql`progress = ${report.end === "done" ? 100 : progress}`,
      sql`error = ${report.error ?? null}`,
    ]);
    return moved ? report.end : (await findTask(rc.db, id))?.status ?? null;
  }
  await runStatement(
    rc.db,
    sql`update tasks set progress = ${progress}, progress_info = ${report.info ?? task.progressInfo}, heartbeat = ${now}, mtime = ${now}
        where id = ${id} and status = 'running'`,
  );
  return "running";
}

export { OPERATION_CLASSES };

/**
 * GET /api/worker-task/upload-decode/{task}: what a worker processing task `task` needs to fetch its bytes: the
 * task's source (the variant it was made for, else the main variant of its first asset's latest version) as a
 * SPEC §3 Worker upload-complete. Needs read on the task and on the file; 404 when the task has no committed source.
 */
export async function uploadDecode(rc: RequestContext, actor: Actor, id: string): Promise<UploadComplete & { job_id: string }> {
  const task = await requireTask(rc, actor, id, "read");
  let found = task.srcEntity ? await findReadyVariant(rc.db, task.srcEntity) : undefined;
  let asset = found ? await findAsset(rc.db, found.variant.assetId) : undefined;
  if (!found) {
    const assetId = task.affected.find((e) => e.type === "asset")?.id;
    const { source } = assetId ? await loadAssetSource(rc, assetId) : { source: null };
    if (source) {
      found = source.main;
      asset = source.asset;
    }
  }
  if (!found || !asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.tasks.entityNotFound);
  // The answer names the file, its size, hash and storage path: the caller must read the file itself, whoever owns the task.
  await requireEntityAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read", ru.tasks.entityNotFound);
  const v = found.variant;
  return { job_id: task.id, ...uploadCompleteOf(asset, v, found.version, v.sha256 ?? "", v.contentSize) };
}
