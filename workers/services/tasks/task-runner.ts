import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { runStatement } from "../../db/repositories/group.repository";
import {
  claimNextTask,
  claimTask,
  findTask,
  nextScheduledTime,
  saveRunningProgress,
  transitionTask,
} from "../../db/repositories/task.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { TaskRow } from "../../db/schema/index";
import { newId } from "../../lib/ids";
import type { ProcessVariantMessage, TaskWakeupMessage } from "../../queue/messages";
import type { Actor, RequestContext } from "../access";
import { hasTextCard, ParseLimitError } from "../media/decode";
import { loadAssetSource } from "./processing/asset-source";
import { OPERATION_CLASSES, PermanentTaskError, type OperationContext } from "./processing/operation";
import { titleOf } from "./processing/title";
import { operationOf } from "./processing/registry";
import { retryDelaySeconds } from "./task-backoff";
import { taskStub } from "./task-live";
import { createTask, wakeUp } from "./task-create.service";
import { STALE_RUN_MS } from "./task-stranded";

/** A run gives its task back to the queue after this long, so higher-priority work gets its turn. */
export const RUN_BUDGET_MS = 20_000;
/** Progress reaches D1 at most this often while a task runs (every check-in reaches its Durable Object). */
export const PROGRESS_WRITE_MS = 1_000;
/** Failed runs before a task ends as error. */
export const MAX_TASK_ATTEMPTS = 5;

export interface RunOptions {
  budgetMs?: number;
  /** identifies the consumer run in `worker_info` */
  worker?: string;
}

function actorOf(user: { id: string; name: string; login: string; isAdmin: boolean; isRobot: boolean }): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/**
 * One wake-up of the task runner: claims the highest-priority runnable task in D1 (any task, not necessarily the
 * one that sent the wake-up) and runs its operation step by step, checking in with the task's Durable Object after
 * every step (live progress; a pause or cancel stops the run there). The run ends when the operation is done, when
 * a command stops it, or when its time budget is spent (the task goes back to the queue with its resume point and
 * a new wake-up). A failing step is retried with backoff (the task goes back to the queue, scheduled later) until
 * MAX_TASK_ATTEMPTS; a PermanentTaskError or a ParseLimitError (a hostile file) ends the task as error at once. Answers a short summary for the log.
 */
export async function runTaskWakeup(rc: RequestContext, _message: TaskWakeupMessage, opts: RunOptions = {}): Promise<string> {
  const now = Date.now();
  const worker = opts.worker ?? `consumer ${newId(now).slice(-8)}`;
  const task = await claimNextTask(rc.db, { now, staleBefore: now - STALE_RUN_MS, worker, runnable: OPERATION_CLASSES });
  if (!task) {
    // Nothing runnable now: make sure a task waiting for its backoff or schedule still gets a wake-up.
    const next = await nextScheduledTime(rc.db, OPERATION_CLASSES);
    if (next !== null && next > now) await wakeUp(rc.env, undefined, next - now);
    return "no runnable task";
  }
  return runClaimed(rc, task, worker, opts.budgetMs ?? RUN_BUDGET_MS);
}

/**
 * Runs one queued task now, whatever its priority or schedule (the same run as a wake-up gives it); null when the
 * task is not queued. For tools and tests that must run a particular task.
 */
export async function runTaskNow(rc: RequestContext, taskId: string, opts: RunOptions = {}): Promise<string | null> {
  const worker = opts.worker ?? `direct ${newId().slice(-8)}`;
  const task = await claimTask(rc.db, taskId, { now: Date.now(), worker });
  return task ? runClaimed(rc, task, worker, opts.budgetMs ?? RUN_BUDGET_MS) : null;
}

async function runClaimed(rc: RequestContext, task: TaskRow, worker: string, budgetMs: number): Promise<string> {
  const live = taskStub(rc.env, task.id);
  const op = operationOf(task.operationClass)!;
  let state: Record<string, unknown> | null = task.cursor;
  const started = Date.now();
  // the task as this run counts its attempts (a skipped stuck item starts the count again)
  let claimed = task;
  try {
    const parsed = op.options.safeParse(task.options);
    if (!parsed.success) throw new PermanentTaskError(ru.tasks.badOptions(parsed.error.issues[0]?.message ?? ""));
    const user = task.ownerId ? await findUserById(rc.db, task.ownerId) : undefined;
    const ctx: OperationContext<Record<string, unknown>> = {
      rc,
      task,
      options: parsed.data,
      owner: user && user.enabled ? actorOf(user) : null,
      log: async (level, message) => {
        await live.appendLog(level, message.slice(0, 10_000));
      },
    };
    await live.appendLog("info", state ? ru.tasks.log.resumedAt(task.progress) : ru.tasks.log.started(worker));
    if (task.attempts >= MAX_TASK_ATTEMPTS) {
      // Every run so far died where no catch could see it (a takeover counts as an attempt: claimNextTask): the
      // platform ended it for CPU or memory. The item it died on fails with that reason and the others go on.
      if (!op.skipStuckItem) throw new PermanentTaskError(ru.processing.platformStopped);
      state = await op.skipStuckItem(ctx, state ?? (await op.start(ctx)), ru.processing.platformStopped);
      await runStatement(rc.db, sql`update tasks set attempts = 0, cursor = ${JSON.stringify(state)} where id = ${task.id}`);
      claimed = ctx.task = { ...task, attempts: 0 };
    }
    state ??= await op.start(ctx);
    let lastWrite = Date.now();
    for (;;) {
      const result = await op.step(ctx, state);
      state = result.state;
      const now = Date.now();
      if (result.done) return await finish(rc, task, worker, state, result.failed ?? null, result.result ?? null);
      const command = await live.checkIn({ progress: result.progress, info: result.info ?? null });
      if (command === "pause" || command === "cancel") return await stopped(rc, task.id, state, result.progress, result.info ?? null);
      if (now - lastWrite >= PROGRESS_WRITE_MS) {
        const still = await saveRunningProgress(rc.db, task.id, {
          progress: result.progress,
          info: result.info ?? null,
          cursor: state,
          now,
          worker,
        });
        if (!still) return await stopped(rc, task.id, state, result.progress, result.info ?? null);
        lastWrite = now;
      }
      if (now - started >= budgetMs) {
        const moved = await transitionTask(
          rc.db,
          task.id,
          "running",
          "inqueue",
          [
            sql`cursor = ${JSON.stringify(state)}`,
            sql`progress = ${result.progress}`,
            sql`progress_info = ${result.info ?? null}`,
            sql`worker_info = null`,
            sql`schedule_time = ${now}`,
          ],
          now,
          worker,
        );
        if (!moved) return await stopped(rc, task.id, state, result.progress, result.info ?? null);
        await live.appendLog("info", ru.tasks.log.yielded);
        await wakeUp(rc.env, task.id);
        return `task ${task.id}: yielded after ${now - started} ms`;
      }
    }
  } catch (error) {
    return failOrRetry(rc, claimed, worker, state, error);
  }
}

/** The operation is done: done, or error when some items failed (their lines are in the log). */
async function finish(
  rc: RequestContext,
  task: TaskRow,
  worker: string,
  state: unknown,
  failed: string | null,
  result: Record<string, unknown> | null,
) {
  const live = taskStub(rc.env, task.id);
  const now = Date.now();
  const moved = await transitionTask(
    rc.db,
    task.id,
    "running",
    failed ? "error" : "done",
    [
      sql`progress = 100`,
      sql`progress_info = null`,
      sql`stop_time = ${now}`,
      sql`cursor = ${JSON.stringify(state)}`,
      sql`result = ${result ? JSON.stringify(result) : null}`,
      sql`error = ${failed}`,
      sql`heartbeat = ${now}`,
    ],
    now,
    worker,
  );
  if (!moved) return stopped(rc, task.id, state, 100, null);
  await live.setProgress({ progress: 100, info: null });
  await live.appendLog(failed ? "error" : "info", failed ? ru.tasks.log.failed(failed) : ru.tasks.log.done);
  return `task ${task.id} (${task.operationClass}): ${failed ? "error" : "done"}`;
}

/** A command (pause, cancel) took the task from this run: keep its resume point for a later resume. */
async function stopped(rc: RequestContext, id: string, state: unknown, progress: number, info: string | null) {
  await runStatement(
    rc.db,
    sql`update tasks set cursor = ${JSON.stringify(state)}, progress = ${progress}, progress_info = ${info}, worker_info = null
        where id = ${id} and status in ('paused', 'canceled')`,
  );
  const current = await findTask(rc.db, id);
  return `task ${id}: stopped by command (${current?.status ?? "gone"})`;
}

/**
 * A step threw. Permanent errors, and the last allowed attempt, end the task as error with the reason in its log;
 * otherwise the task goes back to the queue scheduled after a growing delay, resuming from its last good state.
 */
async function failOrRetry(rc: RequestContext, task: TaskRow, worker: string, state: unknown, error: unknown): Promise<string> {
  const live = taskStub(rc.env, task.id);
  const attempts = task.attempts + 1;
  // A file past a parser limit (issue 25) meets the same wall on every attempt: it is never retried.
  const permanent = error instanceof PermanentTaskError || error instanceof ParseLimitError;
  const reason = permanent ? error.message : `${ru.tasks.log.internal}: ${messageOf(error)}`;
  const now = Date.now();
  if (!permanent && attempts < MAX_TASK_ATTEMPTS) {
    const delay = retryDelaySeconds(attempts);
    const moved = await transitionTask(
      rc.db,
      task.id,
      "running",
      "inqueue",
      [
        sql`attempts = ${attempts}`,
        sql`schedule_time = ${now + delay * 1000}`,
        sql`cursor = ${state === null ? null : JSON.stringify(state)}`,
        sql`error = ${reason}`,
        sql`worker_info = null`,
      ],
      now,
      worker,
    );
    if (moved) {
      await live.appendLog("warn", ru.tasks.log.failedAttempt(attempts, MAX_TASK_ATTEMPTS, delay, reason));
      await wakeUp(rc.env, task.id, delay * 1000);
      return `task ${task.id}: attempt ${attempts} failed, retried in ${delay} s`;
    }
    return stopped(rc, task.id, state, task.progress, null);
  }
  const moved = await transitionTask(
    rc.db,
    task.id,
    "running",
    "error",
    [
      sql`attempts = ${attempts}`,
      sql`stop_time = ${now}`,
      sql`error = ${reason}`,
      sql`worker_info = null`,
      sql`cursor = ${state === null ? null : JSON.stringify(state)}`,
    ],
    now,
    worker,
  );
  if (moved) await live.appendLog("error", ru.tasks.log.failed(reason));
  return `task ${task.id}: error: ${reason}`;
}

/**
 * The dead-letter path: a wake-up the queue gave up on. Its task, if it is still unfinished and not paused, ends as
 * error with a log line, so a task never waits silently for a message that will not come.
 */
export async function failDeadLetter(rc: RequestContext, taskId: string | undefined): Promise<string> {
  if (!taskId) return "dead wake-up without a task";
  const task = await findTask(rc.db, taskId);
  if (!task || (task.status !== "inqueue" && task.status !== "running")) return `dead wake-up of task ${taskId}: nothing to do`;
  const moved = await transitionTask(rc.db, taskId, task.status, "error", [
    sql`stop_time = ${Date.now()}`,
    sql`error = ${ru.tasks.log.deadLetter}`,
  ]);
  if (moved) await taskStub(rc.env, taskId).appendLog("error", ru.tasks.log.deadLetter);
  return `dead wake-up of task ${taskId}: task ended as error`;
}


/** Priority of the tasks made after an upload: previews first (people wait for them in the grid). */
const PREVIEW_PRIORITY = 6;
const TECH_FIELDS_PRIORITY = 4;

/**
 * The `process-variant` operation (after every upload commit), for the messages of one queue batch together: each
 * image's and video's `preview` task, run at once (people wait for them in the grid), and ONE `tech-fields` task per
 * owner for every asset of the batch, owned by the assets' owner so it shows in that person's /jobs. A task per file
 * cost a task row, a log Durable Object and a wake-up each, which made a burst of small uploads wait on its own
 * bookkeeping.
 */
export async function runProcessVariants(rc: RequestContext, messages: readonly ProcessVariantMessage[]): Promise<string> {
  const techByOwner = new Map<string, { id: string; name: string }[]>();
  const made: string[] = [];
  const previews: string[] = [];
  const skipped: string[] = [];
  for (const message of messages) {
    const { asset, source } = await loadAssetSource(rc, message.assetId);
    if (!asset || !source || source.main.version !== message.version) {
      skipped.push(message.variantId);
      continue;
    }
    const mime = source.main.variant.mimeType.toLowerCase();
    if (mime.startsWith("image/") || mime.startsWith("video/") || mime.startsWith("audio/") || hasTextCard(mime, source.main.variant.fileName || asset.name)) {
      const { job_id } = await createTask(rc, {
        operationClass: "preview",
        name: `${ru.tasks.operations.preview}: ${asset.name}`,
        ownerId: asset.ownerId,
        entities: [{ id: asset.id, type: "asset" }],
        srcEntity: message.variantId,
        priority: PREVIEW_PRIORITY,
      });
      made.push(job_id);
      previews.push(job_id);
    }
    const owned = techByOwner.get(asset.ownerId) ?? [];
    if (!owned.some((a) => a.id === asset.id)) owned.push({ id: asset.id, name: asset.name });
    techByOwner.set(asset.ownerId, owned);
  }
  for (const [ownerId, assets] of techByOwner) {
    const entities = assets.map((a) => ({ id: a.id, type: "asset" as const }));
    const { job_id } = await createTask(rc, {
      operationClass: "tech-fields",
      name: `${ru.tasks.operations["tech-fields"]}: ${titleOf(entities, new Map(assets.map((a) => [a.id, a.name])))}`,
      ownerId,
      entities,
      srcEntity: entities.length === 1 ? messages.find((m) => m.assetId === entities[0].id)?.variantId : undefined,
      priority: TECH_FIELDS_PRIORITY,
    });
    made.push(job_id);
  }
  // If a wake-up took a preview first, this does nothing.
  for (const preview of previews) await runTaskNow(rc, preview);
  return `${messages.length} variant(s): tasks ${made.join(", ") || "none"} queued${skipped.length ? `; ${skipped.length} gone or superseded` : ""}`;
}
