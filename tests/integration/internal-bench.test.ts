import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { createApiApp } from "../../workers/api/app";
import { call, expectError, ORIGIN, signInAdmin } from "./factories";
import { admin, createGroup, insertAsset, uniqueName } from "./library-factories";

const TOKEN = "bench-token-for-vitest-0123456789";
const MiB = 1024 * 1024;

/**
 * The API app with BENCH_TOKEN set (as `wrangler dev --var BENCH_TOKEN:…` does for the benchmark), or, with
 * `benchToken: null`, certainly unset (whatever a developer's .dev.vars holds).
 */
async function withToken(
  path: string,
  init: { method?: string; authorization?: string; benchToken?: string | null; body?: Uint8Array<ArrayBuffer> } = {},
) {
  const headers: Record<string, string> = init.authorization ? { authorization: init.authorization } : {};
  // A Request made in-process carries no Content-Length of its own (the HTTP layer adds it).
  if (init.body) headers["content-length"] = String(init.body.byteLength);
  const { BENCH_TOKEN: _unset, ...withoutToken } = env as typeof env & { BENCH_TOKEN?: string };
  const testEnv = init.benchToken === null ? withoutToken : { ...env, BENCH_TOKEN: init.benchToken ?? TOKEN };
  const ctx = createExecutionContext();
  const res = await createApiApp().fetch(
    new Request(`${ORIGIN}${path}`, { method: init.method ?? "GET", headers, body: init.body }),
    testEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

async function expectRouteNotFound(res: Response, method: string, path: string) {
  const error = await expectError(res, 404);
  expect(error.message).toBe(ru.errors.routeNotFound(method, path));
}

const OBJECT = "/internal/bench/object";
const READ = "/internal/bench/r2-read";

describe("internal bench routes: guard", () => {
  it("answer 404 like an unknown route when BENCH_TOKEN is not set, whatever the caller sends", async () => {
    const admin = await signInAdmin();
    for (const bearer of [undefined, TOKEN, admin.bearer, "x".repeat(16)]) {
      const authorization = bearer ? `Bearer ${bearer}` : undefined;
      const written = await withToken(`${OBJECT}?key=bench/x&size=10`, { method: "POST", authorization, benchToken: null });
      await expectRouteNotFound(written, "POST", OBJECT);
      await expectRouteNotFound(await withToken(`${READ}?key=bench/x`, { authorization, benchToken: null }), "GET", READ);
    }
    expect(await env.MEDIA.head("bench/x")).toBeNull();
  });

  it("are reached through the Worker entry (/internal/* goes to the API) and refuse a caller without the token", async () => {
    const admin = await signInAdmin();
    await expectRouteNotFound(await call(`${OBJECT}?key=bench/x&size=10`, { method: "POST", bearer: admin.bearer }), "POST", OBJECT);
    await expectRouteNotFound(await call(`${READ}?key=bench/x`), "GET", READ);
  });

  it("answer 404 without the bearer, with a wrong one, or with an administrator's access token", async () => {
    const admin = await signInAdmin();
    const wrong = [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, TOKEN, `Bearer ${admin.bearer}`];
    for (const authorization of wrong) {
      await expectRouteNotFound(await withToken(`${OBJECT}?key=bench/x&size=10`, { method: "POST", authorization }), "POST", OBJECT);
      await expectRouteNotFound(await withToken(`${READ}?key=bench/x`, { authorization }), "GET", READ);
    }
    expect(await env.MEDIA.head("bench/x")).toBeNull();
  });

  it("stay off when BENCH_TOKEN is too short to be a secret", async () => {
    const res = await withToken(`${READ}?key=bench/x`, { benchToken: "short", authorization: "Bearer short" });
    await expectRouteNotFound(res, "GET", READ);
  });
});

describe("internal bench routes: with the token", () => {
  const authorization = `Bearer ${TOKEN}`;

  it("write a generated object in parts and read it back straight from the binding", async () => {
    const size = 17 * MiB + 3; // two parts of the multipart upload (16 MiB + the rest)
    const written = await withToken(`${OBJECT}?key=bench/two-parts&size=${size}`, { method: "POST", authorization });
    expect(written.status).toBe(200);
    expect(await written.json()).toMatchObject({ key: "bench/two-parts", size, parts: 2 });
    expect((await env.MEDIA.head("bench/two-parts"))?.size).toBe(size);

    const read = await withToken(`${READ}?key=bench/two-parts`, { authorization });
    expect(read.status).toBe(200);
    expect(read.headers.get("content-length")).toBe(String(size));
    const bytes = new Uint8Array(await read.arrayBuffer());
    expect(bytes.byteLength).toBe(size);
    // Generated, not zero-filled.
    expect(new Set(bytes.subarray(0, 4096)).size).toBeGreaterThan(200);
  });

  it("store a request body as one object (the small-file floor of bench/uploads.mjs)", async () => {
    const body = new Uint8Array(10_000).map((_, i) => i % 251);
    const stored = await withToken("/internal/bench/r2-put?key=bench/small.bin", { method: "PUT", authorization, body });
    expect(await stored.json()).toEqual({ key: "bench/small.bin", size: 10_000 });
    expect(new Uint8Array(await (await env.MEDIA.get("bench/small.bin"))!.arrayBuffer())).toEqual(body);
    await expectError(await withToken("/internal/bench/r2-put?key=assets/x", { method: "PUT", authorization, body }), 400);
  });

  it("confine keys to bench/ and bound the size (400)", async () => {
    for (const query of ["key=assets/x&size=10", "key=bench/../x&size=10", "key=bench/x&size=0", "key=bench/x&size=abc", "size=10"]) {
      await expectError(await withToken(`${OBJECT}?${query}`, { method: "POST", authorization }), 400);
    }
    await expectError(await withToken(`${READ}?key=assets/x`, { authorization }), 400);
  });

  it("start a bench library shard and list a members page in it as over D1; shard names only of the bench", async () => {
    const shard = await withToken("/internal/bench/shard?shard=bench-test&n=3", { authorization });
    expect(shard.status).toBe(200);
    const stats = (await shard.json()) as { id: string; migrations: number; n: number };
    expect(stats).toMatchObject({ migrations: env.TEST_MIGRATIONS.length, n: 3 });
    expect(stats.id).toBe(env.LIBRARY_SHARDS.idFromName("bench-test").toString());
    // An empty shard has no such folder: the service's own 404 comes back through the call.
    const admin = await env.DB.prepare("SELECT id FROM users WHERE login = ?").bind(env.ADMIN_LOGIN).first<string>("id");
    const page = `/internal/bench/members-page?user=${admin}&group=${"a".repeat(32)}&n=1`;
    await expectError(await withToken(`${page}&shard=bench-test`, { authorization }), 404);
    await expectError(await withToken(page, { authorization }), 404);
    for (const name of ["", "library-1", "bench-", "bench-A", `bench-${"x".repeat(41)}`]) {
      await expectError(await withToken(`/internal/bench/shard?shard=${name}`, { authorization }), 400);
      await expectError(await withToken(`${page}&shard=${name}`, { authorization }), 400);
    }
    await expectRouteNotFound(
      await withToken("/internal/bench/shard?shard=bench-test", { benchToken: null }),
      "GET",
      "/internal/bench/shard",
    );
  });

  it("move a library into its shard in budgeted runs; only ids of libraries", async () => {
    const boss = await admin();
    const library = await createGroup(boss, uniqueName("Переезд"));
    await insertAsset({ ownerId: boss.id, groups: [library], size: 10 });
    const moved = await withToken(`/internal/bench/library-move?library=${library}`, { method: "POST", authorization });
    expect(moved.status).toBe(200);
    const body = (await moved.json()) as { move: { state: string }; paused_at: number | null; switched_at: number | null };
    expect(body.move.state).toBe("shard");
    expect(body.switched_at).toBeGreaterThanOrEqual(body.paused_at!);
    await env.DB.batch([
      env.DB.prepare("DELETE FROM library_directory WHERE library_id = ?").bind(library),
      env.DB.prepare("DELETE FROM id_directory WHERE library_id = ?").bind(library),
    ]);
    for (const query of ["library=x", `library=${library}&budget=5`, ""]) {
      await expectError(await withToken(`/internal/bench/library-move?${query}`, { method: "POST", authorization }), 400);
    }
    await expectError(await withToken(`/internal/bench/library-move?library=${"a".repeat(32)}`, { method: "POST", authorization }), 404);
    await expectRouteNotFound(
      await withToken(`/internal/bench/library-move?library=${library}`, { method: "POST", benchToken: null }),
      "POST",
      "/internal/bench/library-move",
    );
  });

  it("answer 404 for a missing object", async () => {
    const error = await expectError(await withToken(`${READ}?key=bench/missing`, { authorization }), 404);
    expect(error.message).toBe(ru.assets.contentMissing);
  });
});
