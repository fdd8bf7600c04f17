import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BUILD_INFO } from "../../shared/generated/build-info";
import { ru } from "../../app/i18n/ru";
import { createApiApp } from "../../workers/api/app";
import { call, expectError, ORIGIN, signIn } from "./factories";

/** Calls the API app with extra configuration vars (getConfig parses each env object once). */
async function fetchWithVars(vars: Partial<Record<keyof Env, string>>, path: string, init: RequestInit = {}) {
  const ctx = createExecutionContext();
  const res = await createApiApp().fetch(new Request(`${ORIGIN}${path}`, init), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("GET /api/version", () => {
  it("answers the build and API versions without sign-in", async () => {
    const res = await call("/api/version");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ version: BUILD_INFO.version, api_version: "1.0", built_at: BUILD_INFO.builtAt });
  });
});

describe("GET /api/health", () => {
  it("checks D1 and R2 with real round trips", async () => {
    const res = await call("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; latency_ms: number }> };
    expect(body.status).toBe("ok");
    expect(body.checks.d1).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
    expect(body.checks.r2).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
  });

  it("answers 503 and names the failing dependency", async () => {
    const broken = { head: () => Promise.reject(new Error("R2 unreachable")) } as unknown as R2Bucket;
    const ctx = createExecutionContext();
    const res = await createApiApp().fetch(new Request(`${ORIGIN}/api/health`), { ...env, MEDIA: broken }, ctx);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> };
    expect(body).toMatchObject({ status: "fail", checks: { d1: { ok: true }, r2: { ok: false, error: "R2 unreachable" } } });
  });
});

describe("GET /api/ping", () => {
  it("answers pong as text, uncached", async () => {
    const res = await call("/api/ping");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe("pong");
  });
});

describe("GET /api/uldl-list", () => {
  it("lists this origin's API as the one default server", async () => {
    const user = await signIn();
    const res = await call("/api/uldl-list", { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: "default", url: `${ORIGIN}/api` }]);
  });

  it("lists the configured servers", async () => {
    const user = await signIn();
    const servers = [
      { id: "eu", url: "https://eu.example/api" },
      { id: "us", url: "https://us.example/api" },
    ];
    const res = await fetchWithVars({ ULDL_SERVERS: JSON.stringify(servers) }, "/api/uldl-list", {
      headers: { authorization: `Bearer ${user.bearer}` },
    });
    expect(await res.json()).toEqual(servers);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/uldl-list"), 401);
  });
});

describe("POST /api/uldl-status", () => {
  const servers = [
    { id: "eu", url: "https://eu.example/api" },
    { id: "us", url: "https://us.example/api" },
    { id: "asia", url: "https://asia.example/api" },
  ];

  function postStatus(bearer: string, pings: unknown) {
    return fetchWithVars({ ULDL_SERVERS: JSON.stringify(servers) }, "/api/uldl-status", {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify(pings),
    });
  }

  it("chooses the default server with the default configuration", async () => {
    const user = await signIn();
    const res = await call("/api/uldl-status", { method: "POST", bearer: user.bearer, json: [{ id: "default", ping: 12 }] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("default");
  });

  it("answers the id of the lowest ping, ignoring unreachable and unknown servers", async () => {
    const user = await signIn();
    const res = await postStatus(user.bearer, [
      { id: "eu", ping: 80 },
      { id: "us", ping: null },
      { id: "asia", ping: 35 },
      { id: "rogue", ping: 1 },
    ]);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("asia");
  });

  it("falls back to the first configured server when none answered", async () => {
    const user = await signIn();
    const res = await postStatus(user.bearer, [
      { id: "asia", ping: null },
      { id: "us", ping: null },
    ]);
    expect(await res.text()).toBe("us");
  });

  it("answers 400 for an empty list, unknown ids only, or a malformed list", async () => {
    const user = await signIn();
    await expectError(await postStatus(user.bearer, []), 400);
    const unknown = await expectError(await postStatus(user.bearer, [{ id: "mars", ping: 5 }]), 400);
    expect(unknown.message).toBe(ru.errors.unknownServer);
    await expectError(await postStatus(user.bearer, [{ id: "eu", ping: "fast" }]), 400);
    await expectError(await postStatus(user.bearer, { id: "eu", ping: 1 }), 400);
    await expectError(
      await postStatus(
        user.bearer,
        Array.from({ length: 101 }, () => ({ id: "eu", ping: 1 })),
      ),
      400,
    );
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/uldl-status", { method: "POST", json: [{ id: "default", ping: 1 }] }), 401);
  });
});
