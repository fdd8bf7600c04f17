import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { applyBaseHeaders } from "../../lib/security-headers";
import { requestMetrics } from "../../lib/metrics";
import { createRequestContext, ensureAdministrator } from "../../services/access";
import { feedAfterChange } from "../../services/search";
import { applyBookmark, sessionStartOf } from "../../lib/d1-bookmark";
import { applyServerTiming, timingDetailAllowed } from "../../lib/server-timing";
import type { AppEnv } from "../types";

/** API description version (SPEC §9); clients send it in `x-api-version` and get it back. */
export const API_VERSION = "1.0";
const SERVER_ID = /^[A-Za-z0-9._-]{1,64}$/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * First middleware of every API request: request id, per-request context (its D1 session starts from the caller's
 * bookmark), the answer's version, request-id, D1 bookmark (signed-in callers), Server-Timing (its database detail
 * for administrators and the operator only) and browser-safety headers (nosniff,
 * framing, referrer, HSTS over https), and the metrics observation once the answer (error answers included) is known.
 */
export const requestLifecycle = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  const requestId = c.req.header("cf-ray") ?? newId();
  c.set("requestId", requestId);
  const rc = createRequestContext(c.env, (p) => c.executionCtx.waitUntil(p), requestId, sessionStartOf(c.req.raw));
  // A browser marks the app's own calls same-origin; scripts and integrations send no such header. An office
  // editor's calls (WOPI) are their own channel, whatever program makes them.
  const wopi = new URL(c.req.url).pathname.startsWith("/api/wopi/");
  const channel = wopi ? "wopi" : c.req.header("sec-fetch-site") === "same-origin" ? "app" : "api";
  rc.client = { ip: c.req.header("cf-connecting-ip") ?? null, userAgent: c.req.header("user-agent")?.slice(0, 300) ?? null, channel };
  c.set("rc", rc);
  await next();
  c.header("x-api-version", API_VERSION);
  c.header("x-request-id", requestId);
  // c.header made the answer's headers writable (a binding's Response has immutable ones)
  applyBookmark(c.req.raw, c.res.headers, rc.dbSession.bookmark());
  const detailed = timingDetailAllowed(c.req.raw, rc.config.METRICS_TOKEN, c.var.actor?.isAdmin === true);
  applyServerTiming(c.res.headers, rc.dbSession.meter, performance.now() - started, detailed);
  const base = new Headers();
  applyBaseHeaders(base, new URL(c.req.url), "SAMEORIGIN");
  for (const [name, value] of base) if (!c.res.headers.has(name)) c.header(name, value);
  // What a change marked for the search index is indexed once it has answered (decision 040); a refused request
  // changed nothing, and costs the database no background read either.
  if (!SAFE_METHODS.has(c.req.method) && c.res.status < 400) feedAfterChange(rc);
  const route = routePath(c, -1);
  requestMetrics.observe(c.req.method, route.endsWith("*") ? "unmatched" : route, c.res.status, (performance.now() - started) / 1000);
});

/** Checks the protocol headers every call may carry (SPEC §7) and bootstraps the administrator on a fresh database. */
export const protocolHeaders = createMiddleware<AppEnv>(async (c, next) => {
  const version = c.req.header("x-api-version");
  if (version !== undefined && version.split(".")[0] !== API_VERSION.split(".")[0]) {
    throw new AppError("BAD_REQUEST", ru.errors.invalidField("x-api-version", `поддерживается версия ${API_VERSION}`));
  }
  const server = c.req.header("prefer-uldl-server");
  if (server !== undefined && !SERVER_ID.test(server)) {
    throw new AppError("BAD_REQUEST", ru.errors.invalidField("prefer-uldl-server", "ожидается идентификатор сервера"));
  }
  await ensureAdministrator(c.var.rc);
  await next();
});
