import { Hono } from "hono";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { requestMetrics } from "../../lib/metrics";
import { timingSafeEqual } from "../../lib/crypto";
import { databaseGauges } from "../../services/system";
import type { AppEnv } from "../types";

function sameSecret(a: string, b: string): boolean {
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(a), enc.encode(b));
}

/**
 * GET /metrics: Prometheus text, only with `Authorization: Bearer $METRICS_TOKEN`. Without a configured token the
 * endpoint does not exist (404): route names, request counts and user and session gauges are nobody's business by
 * default (issue 24).
 */
export const metricsRoutes = new Hono<AppEnv>().get("/", async (c) => {
  const token = c.var.rc.config.METRICS_TOKEN;
  if (!token) throw new AppError("NOT_FOUND", ru.errors.metricsOff);
  const presented = /^Bearer (\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
  if (!sameSecret(presented, token)) throw new AppError("UNAUTHORIZED", ru.errors.metricsToken, { "WWW-Authenticate": "Bearer" });
  const body = requestMetrics.render(await databaseGauges(c.var.rc));
  return c.body(body, 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store" });
});
