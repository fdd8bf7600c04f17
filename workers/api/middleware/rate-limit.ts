import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ru } from "../../../shared/i18n/ru";
import type { RateLimitBucket } from "../../../durable-objects/rate-limit.policy";
import { getConfig } from "../../lib/config";
import { AppError } from "../../lib/errors";
import type { AppEnv } from "../types";

/** One call against the key's bucket; the wait in milliseconds. */
function take(env: Env, bucket: RateLimitBucket, subject: "user" | "ip", key: string): Promise<number> {
  const stub = env.RATE_LIMIT.get(env.RATE_LIMIT.idFromName(`${bucket}:${subject}:${key}`));
  return stub.take({ bucket, subject });
}

/**
 * Limits an expensive call per signed-in user and per client IP (`RATE_LIMITS`); over the limit the answer is 429
 * with Retry-After in seconds. Mount after `requireAuth` (an anonymous call is limited by its IP alone).
 * `RATE_LIMITS=off` switches it off for benchmarks.
 */
export function rateLimit(bucket: RateLimitBucket) {
  return createMiddleware<AppEnv>(async (c, next) => {
    await enforceRateLimit(c, bucket);
    await next();
  });
}

/** The same limit taken inside a handler, for a call that is limited only in one of its modes (heal-on-view). */
export async function enforceRateLimit(c: Context<AppEnv>, bucket: RateLimitBucket, o: { perIp?: boolean } = {}): Promise<void> {
  if (getConfig(c.env).RATE_LIMITS !== "on") return;
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const userId = c.get("actor")?.id;
  const waits = await Promise.all([
    o.perIp === false ? 0 : take(c.env, bucket, "ip", ip),
    userId ? take(c.env, bucket, "user", userId) : 0,
  ]);
  const wait = Math.max(...waits);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError("TOO_MANY_REQUESTS", ru.errors.rateLimited(seconds), { "Retry-After": String(seconds) });
  }
}
