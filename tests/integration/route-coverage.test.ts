import { describe, expect, it } from "vitest";
import { createApiApp } from "../../workers/api/app";
import { call, signIn } from "./factories";

/**
 * Every route the API mounts has a row in the permission matrix: the routes of the OpenAPI document have theirs in
 * access-matrix.test.ts (its `covers every endpoint` fails for one without), and the few the document does not list
 * have theirs here — who may call it and what a stranger and an anonymous caller get. The route table is read from
 * the Hono app itself, so a route added anywhere, documented or not, without a row fails this test.
 */

interface UndocumentedRow {
  /** who may call it, for the reader of this table */
  who: string;
  /** a concrete request to try */
  path: string;
  method: string;
  /** the answer to a caller without any credential */
  anonymous: number;
  /** the answer to a signed-in ordinary user (his bearer is not the credential the route wants) */
  stranger: number;
}

const UNDOCUMENTED: Record<string, UndocumentedRow> = {
  "GET /metrics": { who: "the operator's METRICS_TOKEN only", method: "GET", path: "/metrics", anonymous: 401, stranger: 401 },
  "ALL /api/s3/*": {
    who: "an S3 signature of a storage's access key (SigV4) only",
    method: "GET",
    path: "/api/s3/mam/assets/anything",
    // unsigned: the S3 error answer (no storage answers unsigned requests), never the object
    anonymous: 404,
    stranger: 404,
  },
  // Benchmark-only: they exist only while BENCH_TOKEN is set (never in tests or wrangler.toml), else an unknown route.
  "ALL /internal/bench/*": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/d1-floor", anonymous: 404, stranger: 404 },
  "POST /internal/bench/object": { who: "BENCH_TOKEN only", method: "POST", path: "/internal/bench/object", anonymous: 404, stranger: 404 },
  "POST /internal/bench/r2-multipart": { who: "BENCH_TOKEN only", method: "POST", path: "/internal/bench/r2-multipart", anonymous: 404, stranger: 404 },
  "PUT /internal/bench/r2-multipart": { who: "BENCH_TOKEN only", method: "PUT", path: "/internal/bench/r2-multipart", anonymous: 404, stranger: 404 },
  "PUT /internal/bench/r2-put": { who: "BENCH_TOKEN only", method: "PUT", path: "/internal/bench/r2-put", anonymous: 404, stranger: 404 },
  "POST /internal/bench/r2-multipart/complete": {
    who: "BENCH_TOKEN only",
    method: "POST",
    path: "/internal/bench/r2-multipart/complete",
    anonymous: 404,
    stranger: 404,
  },
  "GET /internal/bench/access-check": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/access-check", anonymous: 404, stranger: 404 },
  "GET /internal/bench/d1-floor": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/d1-floor", anonymous: 404, stranger: 404 },
  "GET /internal/bench/members-page": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/members-page", anonymous: 404, stranger: 404 },
  "POST /internal/bench/library-move": { who: "BENCH_TOKEN only", method: "POST", path: `/internal/bench/library-move?library=${"a".repeat(32)}`, anonymous: 404, stranger: 404 },
  "GET /internal/bench/shard": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/shard?shard=bench-x", anonymous: 404, stranger: 404 },
  "GET /internal/bench/r2-read": { who: "BENCH_TOKEN only", method: "GET", path: "/internal/bench/r2-read", anonymous: 404, stranger: 404 },
};

/** `METHOD /path/{param}` of every route the Hono app mounts (Hono's `:param{pattern}` written as OpenAPI's `{param}`). */
function mountedRoutes(): string[] {
  const keys = createApiApp().routes.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")}`);
  return [...new Set(keys)];
}

async function documentedRoutes(): Promise<Set<string>> {
  const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  return new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
}

describe("every mounted route has a permission-matrix row", () => {
  it("each route of the app is documented (its row is in access-matrix.test.ts) or has a row here; no row outlives its route", async () => {
    const mounted = mountedRoutes();
    const documented = await documentedRoutes();
    // Middleware entries (`app.use`) are mounted as ALL on a pattern that also serves documented routes.
    const middleware = (key: string) => key.startsWith("ALL ") && [...documented].some((d) => d.split(" ")[1].startsWith(key.slice(4).replace(/\*$/, "")));
    const withoutRow = mounted.filter((key) => !documented.has(key) && !UNDOCUMENTED[key] && !middleware(key));
    expect(withoutRow, "routes without a row in the permission matrix").toEqual([]);
    expect(Object.keys(UNDOCUMENTED).filter((key) => !mounted.includes(key)), "rows of routes that are no longer mounted").toEqual([]);
    expect(Object.keys(UNDOCUMENTED).filter((key) => documented.has(key)), "documented routes belong in access-matrix.test.ts").toEqual([]);
    // The document lists nothing the app does not serve.
    const served = new Set(mounted);
    expect([...documented].filter((key) => !served.has(key)), "documented routes that are not mounted").toEqual([]);
  });

  it("the undocumented routes answer a stranger and an anonymous caller as their row says", async () => {
    const stranger = await signIn();
    const problems: string[] = [];
    for (const [key, row] of Object.entries(UNDOCUMENTED)) {
      const anonymous = await call(row.path, { method: row.method });
      await anonymous.body?.cancel();
      if (anonymous.status !== row.anonymous) problems.push(`${key} anonymous: ${anonymous.status}, expected ${row.anonymous}`);
      const signedIn = await call(row.path, { method: row.method, bearer: stranger.bearer });
      await signedIn.body?.cancel();
      if (signedIn.status !== row.stranger) problems.push(`${key} stranger: ${signedIn.status}, expected ${row.stranger}`);
    }
    expect(problems).toEqual([]);
  });
});
