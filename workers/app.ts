import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
import * as remixBuild from "remix-server-build";
import { createApiApp } from "./api/app";
import { newId } from "./lib/ids";
import { requestMetrics } from "./lib/metrics";
import { runDeliverEvents, runDeliverNotifications } from "./queue/deliver";
import { wakeStrandedTasks } from "./services/tasks";
import type { TaskMessageInput } from "./queue/messages";
import { runDueSchedules } from "./services/automations";
import { runLogsMove } from "./services/logs";
import { finishStaleCrossings, refreshShardCopies, writeBackShards } from "./services/library";
import { feedAfterChange, runIndexFeed } from "./services/search";
import { ensureAdministrator, createRequestContext } from "./services/access";
import { cachedSharedPage } from "./services/sharing";
import { getConfig } from "./lib/config";
import { applyBookmark, sessionStartOf } from "./lib/d1-bookmark";
import { applyServerTiming, timingDetailAllowed } from "./lib/server-timing";
import type { RoundTripMeter } from "./db/round-trips";
import { reportError, withErrorTracking } from "./lib/sentry";
import {
  CSP_REPORT_PATH,
  applyBaseHeaders,
  applyPageHeaders,
  isCrossSiteRequest,
  newNonce,
  originOf,
  pageKind,
} from "./lib/security-headers";

export { UploadQueueDO } from "../durable-objects/upload-queue.do";
export { TaskStateDO } from "../durable-objects/task-state.do";
export { LoginThrottleDO } from "../durable-objects/login-throttle.do";
export { RateLimitDO } from "../durable-objects/rate-limit.do";
export { WopiLockDO } from "../durable-objects/wopi-lock.do";
export { NotificationHubDO } from "../durable-objects/notification-hub.do";
export { LibraryShardDO } from "../durable-objects/library-shard.do";
export { AutomationWorkflow } from "./workflows/automation.workflow";

const api = createApiApp();
/**
 * The wrangler.toml cron that queues housekeeping; the other one (every minute) checks automation schedules and
 * sweeps the event outbox.
 */
const HOUSEKEEPING_CRON = "17 * * * *";
const handleRemix = createRequestHandler(remixBuild as unknown as ServerBuild);

/** Paths the API owns; every other path is a page rendered by Remix (static files never reach the Worker). */
export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/") || pathname === "/metrics" || pathname.startsWith("/internal/");
}

/** The public shared-link page (`/sl/{id}`), the one page the edge cache may answer. */
function isSharedPagePath(pathname: string): boolean {
  return pathname.startsWith("/sl/");
}

/** A page form posted from another site never reaches an action (CSRF); the answer is a plain 403 page. */
function crossSiteRefusal(): Response {
  return new Response("<!doctype html><html lang=\"ru\"><meta charset=\"utf-8\"><title>403</title><p>Запрос с другого сайта отклонён.</p></html>", {
    status: 403,
    headers: { "Content-Type": "text/html; charset=utf-8" },
  });
}

/**
 * The browser policy of a page answer: HTML (pages, error pages, 404s) gets the CSP with this response's nonce and
 * the framing and isolation headers; loader data and redirects get the base set.
 */
export function securePageResponse(request: Request, env: Env, response: Response, nonce: string): Response {
  const secured = new Response(response.body, response);
  const url = new URL(request.url);
  if (!(secured.headers.get("content-type") ?? "").startsWith("text/html")) {
    applyBaseHeaders(secured.headers, url);
    return secured;
  }
  const config = getConfig(env);
  applyPageHeaders(secured.headers, url, {
    nonce,
    kind: pageKind(url.pathname),
    // upload servers, and the map's tile server (its images)
    connectOrigins: [...config.ULDL_SERVERS.map((server) => server.url), config.MAP_TILE_URL]
      .map((url) => originOf(url))
      .filter((o): o is string => !!o),
    diskHelperOrigin: config.DISK_HELPER_URL,
    // the browser SDK posts its events to the DSN's host: allowed only when error tracking is on
    errorTrackingOrigin: originOf(config.SENTRY_DSN),
    editorOrigin: originOf(config.WOPI_DISCOVERY_URL),
    shortlinkFrameAncestors: config.SL_FRAME_ANCESTORS,
    reportUri: CSP_REPORT_PATH,
  });
  // A sign-in link's page holds a credential in its address until the script takes it out: no request it makes
  // (its own scripts and styles included) may carry that address as a Referer.
  if (url.searchParams.has("token")) secured.headers.set("Referrer-Policy", "no-referrer");
  return secured;
}

async function renderPage(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const started = performance.now();
  const nonce = newNonce();
  let response: Response;
  let meter: RoundTripMeter | null = null;
  let bookmark: string | null = null;
  let admin = false;
  if (request.method !== "GET" && request.method !== "HEAD" && isCrossSiteRequest(request)) {
    response = crossSiteRefusal();
  } else {
    const requestId = request.headers.get("cf-ray") ?? newId();
    const rc = createRequestContext(env, (p) => ctx.waitUntil(p), requestId, sessionStartOf(request));
    const render = async () => {
      await ensureAdministrator(rc);
      return handleRemix(request, { rc, cspNonce: nonce, reportError: (error) => reportError(error, { requestId }) });
    };
    // Anonymous shared-link pages may come from the edge cache (docs/security.md «Edge cache»); nothing else does.
    response = isSharedPagePath(new URL(request.url).pathname) ? await cachedSharedPage(rc, request, nonce, render) : await render();
    if (request.method !== "GET" && request.method !== "HEAD" && response.status < 400) feedAfterChange(rc);
    meter = rc.dbSession.meter;
    bookmark = rc.dbSession.bookmark();
    admin = rc.viewerIsAdmin === true;
  }
  requestMetrics.observe(request.method, "page", response.status, (performance.now() - started) / 1000);
  const secured = securePageResponse(request, env, response, nonce);
  applyBookmark(request, secured.headers, bookmark);
  applyServerTiming(secured.headers, meter, performance.now() - started, timingDetailAllowed(request, getConfig(env).METRICS_TOKEN, admin));
  return secured;
}

/**
 * The API Worker's handlers: requests and cron triggers. It answers requests and never decodes media: the TASKS
 * queue is consumed by the media Worker (workers/media/media-worker.ts, decision 032). Wrapped by error tracking
 * when SENTRY_DSN is set (workers/lib/sentry.ts): an error thrown out of any of them is reported with the request's
 * trace; without a DSN they run exactly as written.
 */
export default withErrorTracking({
  fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    return isApiPath(pathname) ? api.fetch(request, env, ctx) : renderPage(request, env, ctx);
  },

  /**
   * Cron triggers: every minute, the automations whose schedule is due start, the event outbox is swept and old logs
   * move to LOGS; hourly (HOUSEKEEPING_CRON), the periodic housekeeping is queued: dead sessions, and the trash past
   * its retention period.
   */
  async scheduled(controller, env, ctx) {
    if (controller.cron === HOUSEKEEPING_CRON) {
      await env.TASKS.sendBatch([
        { body: { op: "cleanup-sessions", olderThanDays: 7 } satisfies TaskMessageInput },
        { body: { op: "purge-trash" } satisfies TaskMessageInput },
        { body: { op: "abort-stale-multipart" } satisfies TaskMessageInput },
      ]);
    }
    const rc = createRequestContext(env, (p) => ctx.waitUntil(p), newId());
    await runDueSchedules(rc, controller.scheduledTime);
    await wakeStrandedTasks(rc, controller.scheduledTime);
    // The outbox sweeper: events whose queue wake-up was lost (the Worker died after the commit) are delivered here.
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "deliver-events", summary: await runDeliverEvents(env) }));
    // The notification sweeper (decision 035): lost wake-ups, events other capabilities wrote, and due e-mail digests.
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "deliver-notifications", summary: await runDeliverNotifications(env) }));
    // Old logs leave the hot database (decision 038), a bounded slice of them every minute.
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "move-logs", summary: await runLogsMove(env, controller.scheduledTime) }));
    // Library shards' copies of global rows (names of people, tags, classes) made current (decision 043).
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "shard-copies", summary: await refreshShardCopies(env) }));
    // What routed writes left to write back to the catalog (a Worker that died after the shard committed).
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "shard-writeback", summary: await writeBackShards(env) }));
    // Changes across libraries whose Worker died half-way (decision 046): ended, their shards let go.
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "library-crossing", ended: await finishStaleCrossings(env) }));
    // The search index's sweeper (decision 040): what changes outside a request (queue, workflows) marked, or a feed left.
    console.log(JSON.stringify({ level: "info", cron: controller.cron, op: "feed-search", summary: await runIndexFeed(env) }));
  },
} satisfies ExportedHandler<Env>);
