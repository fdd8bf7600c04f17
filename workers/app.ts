import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
import * as remixBuild from "remix-server-build";
import { createApiApp } from "./api/app";
import { newId } from "./lib/ids";
import { requestMetrics } from "./lib/metrics";
import { handleTaskBatch } from "./queue/consumer";
import { wakeStrandedTasks } from "./services/task-runner";
import type { TaskMessageInput } from "./queue/messages";
import { runDueSchedules } from "./services/automation.service";
import { ensureAdministrator } from "./services/bootstrap.service";
import { createRequestContext } from "./services/context";

export { UploadQueueDO } from "../durable-objects/upload-queue.do";
export { TaskStateDO } from "../durable-objects/task-state.do";
export { LoginThrottleDO } from "../durable-objects/login-throttle.do";
export { WopiLockDO } from "../durable-objects/wopi-lock.do";
export { AutomationWorkflow } from "./workflows/automation.workflow";

const api = createApiApp();
/** The wrangler.toml cron that queues housekeeping; the other one (every minute) only checks automation schedules. */
const HOUSEKEEPING_CRON = "17 * * * *";
const handleRemix = createRequestHandler(remixBuild as unknown as ServerBuild);

/** Paths the API owns; every other path is a page rendered by Remix (static files never reach the Worker). */
export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/") || pathname === "/metrics" || pathname.startsWith("/internal/");
}

async function renderPage(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const started = performance.now();
  const requestId = request.headers.get("cf-ray") ?? newId();
  const rc = createRequestContext(env, (p) => ctx.waitUntil(p), requestId);
  await ensureAdministrator(rc);
  const response = await handleRemix(request, { rc });
  requestMetrics.observe(request.method, "page", response.status, (performance.now() - started) / 1000);
  return response;
}

export default {
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    return isApiPath(pathname) ? api.fetch(request, env, ctx) : renderPage(request, env, ctx);
  },

  queue(batch, env) {
    return handleTaskBatch(batch, env);
  },

  /**
   * Cron triggers: every minute, the automations whose schedule is due start; hourly (HOUSEKEEPING_CRON), the
   * periodic housekeeping is queued: dead sessions, and the trash past its retention period.
   */
  async scheduled(controller, env, ctx) {
    if (controller.cron === HOUSEKEEPING_CRON) {
      await env.TASKS.sendBatch([
        { body: { op: "cleanup-sessions", olderThanDays: 7 } satisfies TaskMessageInput },
        { body: { op: "purge-trash" } satisfies TaskMessageInput },
        { body: { op: "abort-stale-multipart" } satisfies TaskMessageInput },
      ]);
    }
    await runDueSchedules(
      createRequestContext(env, (p) => ctx.waitUntil(p), newId()),
      controller.scheduledTime,
    );
    await wakeStrandedTasks(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
