import type { CloudflareOptions } from "@sentry/cloudflare";
import { BUILD_INFO } from "../../shared/generated/build-info";
import { getConfig } from "./config";
import { DATA_COLLECTION, TRACES_SAMPLE_RATE, scrubBreadcrumb, scrubEvent, scrubValue } from "./error-tracking-policy";

/**
 * Error tracking in the Worker (decision 015): `@sentry/cloudflare` with SPEC §9's traces sample rate, on only when
 * SENTRY_DSN is set. Every event, transaction and breadcrumb is scrubbed (workers/lib/error-tracking-policy.ts)
 * before it leaves; the SDK collects no user data, cookies or bodies (DATA_COLLECTION).
 */
export function sentryOptions(env: Env): CloudflareOptions {
  const dsn = getConfig(env).SENTRY_DSN;
  return {
    dsn,
    enabled: dsn !== undefined,
    release: BUILD_INFO.version,
    tracesSampleRate: TRACES_SAMPLE_RATE,
    dataCollection: DATA_COLLECTION,
    beforeSend: (event) => scrubEvent(event),
    // spans are streamed (SDK 11 default): their names, URLs and attributes go through the same scrubber
    beforeSendSpan: (span) => scrubValue(span),
    beforeBreadcrumb: (breadcrumb) => scrubBreadcrumb(breadcrumb),
  };
}

/** Whether error tracking is on for this environment (a DSN is configured). */
export function trackingEnabled(env: Env): boolean {
  return getConfig(env).SENTRY_DSN !== undefined;
}

type SentrySdk = typeof import("@sentry/cloudflare");

/** The SDK once a request with a DSN has loaded it: imported on first use, so without a DSN it is never loaded. */
let sdk: SentrySdk | null = null;
let loading: Promise<SentrySdk> | null = null;
const loadSdk = () => (loading ??= import("@sentry/cloudflare").then((module) => (sdk = module)));

/**
 * Reports an error the program handled itself (the API's 500 answer, a page that failed to render) to the
 * request's Sentry scope. Without a DSN no client exists and this does nothing.
 */
export function reportError(error: unknown, context?: Record<string, unknown>): void {
  if (!sdk?.getClient()) return;
  sdk.captureException(error, context ? { extra: context } : undefined);
}

/** What each Worker exports: fetch and cron handlers, and a queue handler in the Worker that consumes one. */
type TrackedHandlers = Required<Pick<ExportedHandler<Env>, "fetch" | "scheduled">> & Pick<ExportedHandler<Env>, "queue">;

/**
 * The exported handlers with Sentry around them when a DSN is configured, and exactly the plain handlers when not:
 * without a DSN the SDK is never loaded or initialised and no request pays for it.
 */
export function withErrorTracking<H extends TrackedHandlers>(handler: H): H {
  let instrumented: Promise<H> | null = null;
  // withSentry patches the object it is given in place: it gets a copy, so `handler` stays uninstrumented.
  const tracked = () => (instrumented ??= loadSdk().then((Sentry) => Sentry.withSentry(sentryOptions, { ...handler } as ExportedHandler<Env>) as H));
  const wrapped = {
    ...handler,
    fetch: async (request, env, ctx) => (trackingEnabled(env) ? (await tracked()).fetch(request, env, ctx) : handler.fetch(request, env, ctx)),
    scheduled: async (controller, env, ctx) =>
      trackingEnabled(env) ? (await tracked()).scheduled(controller, env, ctx) : handler.scheduled(controller, env, ctx),
  } as H;
  // Only the media Worker consumes a queue (decision 032); the API Worker has no queue handler.
  const queue = handler.queue;
  if (queue) wrapped.queue = async (batch, env, ctx) => (trackingEnabled(env) ? (await tracked()).queue!(batch, env, ctx) : queue(batch, env, ctx));
  return wrapped;
}
