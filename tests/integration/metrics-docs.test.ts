import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApiApp } from "../../workers/api/app";
import { call, expectError, ORIGIN, signIn } from "./factories";

async function metricsWithToken(authorization?: string, token = "x") {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = authorization ? { authorization } : {};
  const res = await createApiApp().fetch(new Request(`${ORIGIN}/metrics`, { headers }), { ...env, METRICS_TOKEN: token }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("GET /metrics", () => {
  it("exposes request counters by route template, the latency histogram and database gauges", async () => {
    const user = await signIn();
    await (await call("/api/ping")).text();
    await (await call("/api/auth/whoami", { bearer: user.bearer })).text();
    await (await call("/api/nowhere")).text();

    const res = await call("/metrics", { bearer: env.METRICS_TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();

    expect(text).toContain("# TYPE mam_http_requests_total counter");
    expect(text).toMatch(/^mam_http_requests_total\{method="GET",route="\/api\/ping",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^mam_http_requests_total\{method="POST",route="\/api\/auth\/login",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^mam_http_requests_total\{method="GET",route="\/api\/auth\/whoami",status="200"\} [1-9]\d*$/m);
    // Unknown paths share one label so the series set stays small.
    expect(text).toMatch(/^mam_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]\d*$/m);
    expect(text).not.toContain("/api/nowhere");

    expect(text).toContain("# TYPE mam_http_request_duration_seconds histogram");
    expect(text).toMatch(/^mam_http_request_duration_seconds_bucket\{method="GET",route="\/api\/ping",status="200",le="0\.005"\} \d+$/m);
    expect(text).toMatch(
      /^mam_http_request_duration_seconds_bucket\{method="GET",route="\/api\/ping",status="200",le="\+Inf"\} [1-9]\d*$/m,
    );
    expect(text).toMatch(/^mam_http_request_duration_seconds_sum\{method="GET",route="\/api\/ping",status="200"\} [\d.e-]+$/m);
    expect(text).toMatch(/^mam_http_request_duration_seconds_count\{method="GET",route="\/api\/ping",status="200"\} [1-9]\d*$/m);

    // The gauges agree with the database (at least: the bootstrapped admin + this user, the virtual root, this session).
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1]);
    const count = async (sql: string, ...binds: unknown[]) =>
      (await env.DB.prepare(sql)
        .bind(...binds)
        .first<{ n: number }>())!.n;
    expect(text).toMatch(/^# TYPE mam_users_enabled gauge$/m);
    expect(gauge("mam_users_enabled")).toBe(await count("SELECT count(*) AS n FROM users WHERE enabled = 1"));
    expect(gauge("mam_users_enabled")).toBeGreaterThanOrEqual(2);
    expect(gauge("mam_groups")).toBe(await count("SELECT count(*) AS n FROM groups WHERE deleted_at IS NULL"));
    expect(gauge("mam_groups")).toBeGreaterThanOrEqual(1);
    expect(gauge("mam_sessions_active")).toBe(
      await count("SELECT count(*) AS n FROM sessions WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > ?", Date.now()),
    );
    expect(gauge("mam_sessions_active")).toBeGreaterThanOrEqual(1);

    // Each database's size and its share of D1's 10 GB: what an alert at 70 % watches (docs/scale.md).
    expect(text.match(/^# TYPE mam_database_bytes gauge$/gm)).toHaveLength(1);
    const sizes = (body: string, database: string) => ({
      bytes: Number(new RegExp(`^mam_database_bytes\\{database="${database}"\\} (\\d+)$`, "m").exec(body)?.[1]),
      ratio: Number(new RegExp(`^mam_database_fill_ratio\\{database="${database}"\\} ([\\d.e-]+)$`, "m").exec(body)?.[1]),
    });
    for (const database of ["DB", "LOGS"]) {
      const { bytes, ratio } = sizes(text, database);
      expect(bytes, database).toBeGreaterThan(0);
      expect(ratio).toBeCloseTo(bytes / 10_000_000_000, 6);
    }
    // The gauge is D1's own figure (the `size_after` of its answers) at the time of the call.
    for (const [database, d1] of [
      ["DB", env.DB],
      ["LOGS", env.LOGS],
    ] as const) {
      const sizeNow = async () => (await d1.prepare("select 1").run()).meta.size_after;
      // Between the two reads: background work of earlier files (the group's files share the database) may grow
      // it or free pages.
      const before = await sizeNow();
      const { bytes } = sizes(await (await call("/metrics", { bearer: env.METRICS_TOKEN })).text(), database);
      const after = await sizeNow();
      expect(bytes, database).toBeGreaterThanOrEqual(Math.min(before, after));
      expect(bytes, database).toBeLessThanOrEqual(Math.max(before, after));
    }
  });

  it("does not exist when METRICS_TOKEN is empty (404), whatever the caller sends", async () => {
    await expectError(await metricsWithToken(undefined, ""), 404);
    await expectError(await metricsWithToken("Bearer ", ""), 404);
    const user = await signIn();
    const asUser = await metricsWithToken(`Bearer ${user.bearer}`, "");
    expect(asUser.status).toBe(404);
    expect(await asUser.text()).not.toContain("mam_http_requests_total");
  });

  it("is 401 for anonymous callers and signed-in users when a token is configured", async () => {
    await expectError(await call("/metrics"), 401);
    const user = await signIn();
    await expectError(await call("/metrics", { bearer: user.bearer }), 401);
  });

  it("requires the bearer METRICS_TOKEN when it is set", async () => {
    const missing = await metricsWithToken();
    await expectError(missing, 401);
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");
    await expectError(await metricsWithToken("Bearer y"), 401);
    await expectError(await metricsWithToken("Bearer xx"), 401);
    await expectError(await metricsWithToken("Basic x"), 401);

    const ok = await metricsWithToken("Bearer x");
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("mam_http_requests_total");
  });
});

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every API path", async () => {
    const res = await call("/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0");
    const expected: [string, string][] = [
      ["post", "/api/auth/login"],
      ["get", "/api/auth/refresh"],
      ["get", "/api/auth/logout"],
      ["post", "/api/auth/exchange-token"],
      ["get", "/api/auth/whoami"],
      ["get", "/api/auth/list-acl-perms"],
      ["get", "/api/auth/user-abilities"],
      ["get", "/api/auth/sso-providers"],
      ["get", "/api/version"],
      ["get", "/api/health"],
      ["get", "/api/ping"],
      ["get", "/api/uldl-list"],
      ["post", "/api/uldl-status"],
    ];
    for (const [method, path] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths["/api/auth/whoami"].get.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.schemas).toHaveProperty("Error");
    expect(doc.components.schemas).toHaveProperty("LoginPayload");
  });
});

describe("GET /api/docs", () => {
  it("serves the Swagger UI page over the OpenAPI document from our own assets", async () => {
    const res = await call("/api/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('url: "/api/openapi.json"');
    expect(html).toContain('src="/vendor/swagger-ui/swagger-ui-bundle.js"');
    expect(html).not.toMatch(/https?:\/\/(?:unpkg|cdn)/);
  });
});
