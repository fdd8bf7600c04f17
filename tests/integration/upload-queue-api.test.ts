import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import type { UploadQueueDO } from "../../durable-objects/upload-queue.do";
import { QUEUE_POLICY } from "../../durable-objects/upload-queue.rules";
import type { QueueState, UploadItem } from "../../workers/services/uploads/upload-queue.service";
import { createAsset, startUpload } from "./asset-fixtures";
import { call, expectError, signIn } from "./factories";

/** Every /api/uploads call: happy paths, errors (400/401/404/409) and isolation between users. */

type User = Awaited<ReturnType<typeof signIn>>;
const GROUP = "f".repeat(32);
const file = (id: string, extra: Record<string, unknown> = {}) => ({ id, fileName: `${id}.mov`, size: 1024, groupId: GROUP, ...extra });
const path = (id: string) => `/api/uploads/${encodeURIComponent(id)}`;

async function ok<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : null) as T;
}
const queue = (u: User) => call("/api/uploads", { bearer: u.bearer }).then((r) => ok<QueueState>(r));
const add = (u: User, items: unknown[]) => call("/api/uploads", { method: "POST", bearer: u.bearer, json: { items } });
const patch = (u: User, id: string, json: unknown) => call(path(id), { method: "PATCH", bearer: u.bearer, json });
const cancel = (u: User, id: string) => call(`${path(id)}/cancel`, { method: "POST", bearer: u.bearer });
const remove = (u: User, id: string) => call(path(id), { method: "DELETE", bearer: u.bearer });
const keepalive = (u: User, ids: string[]) => call("/api/uploads/keepalive", { method: "POST", bearer: u.bearer, json: { ids } });
const clear = (u: User) => call("/api/uploads/clear", { method: "POST", bearer: u.bearer });
/** The user's queue object, as the service addresses it. */
const objectOf = (u: User) => env.UPLOADS.get(env.UPLOADS.idFromName(u.id));

async function drive(u: User, id: string, steps: string[]) {
  for (const status of steps) await ok(await patch(u, id, { status }));
}

describe("GET and POST /api/uploads", () => {
  it("starts empty and finished, then queues files waiting, in arrival order, and names the next one", async () => {
    const u = await signIn();
    expect(await queue(u)).toEqual({ items: [], finished: true, next: null });
    const before = Date.now();
    const { items } = await ok<{ items: UploadItem[] }>(await add(u, [file("b"), file("a", { fileName: "Съёмка 2026 🎬.mov", size: 0 })]));
    expect(items).toHaveLength(2);
    expect(items[1]).toEqual({
      id: "a",
      fileName: "Съёмка 2026 🎬.mov",
      size: 0,
      groupId: GROUP,
      assetId: null,
      variantId: null,
      uploadId: null,
      status: "waiting",
      progress: 0,
      speed: null,
      error: null,
      cancelled: false,
      ctime: expect.any(Number),
      mtime: items[1].ctime,
      lastSeen: items[1].ctime,
    });
    expect(items[1].ctime).toBeGreaterThanOrEqual(before);
    await add(u, [file("c")]);
    const state = await queue(u);
    expect(state.items.map((i) => i.id)).toEqual(["b", "a", "c"]);
    expect(state).toMatchObject({ finished: false, next: "b" });
  });

  it("re-adding an id is idempotent: the item keeps its state, its place and its data", async () => {
    const u = await signIn();
    await add(u, [file("a"), file("b")]);
    await ok(await patch(u, "a", { status: "uploading", progress: 40 }));
    const { items } = await ok<{ items: UploadItem[] }>(await add(u, [file("a", { size: 9, fileName: "другое.mov" }), file("c")]));
    expect(items.map((i) => [i.id, i.status, i.size, i.fileName])).toEqual([
      ["a", "uploading", 1024, "a.mov"],
      ["c", "waiting", 1024, "c.mov"],
    ]);
    expect((await queue(u)).items.map((i) => i.id)).toEqual(["a", "b", "c"]);
  });

  it("keeps any Unicode file name of up to 255 characters and ids with slashes (Uppy's)", async () => {
    const u = await signIn();
    const name = "🎞".repeat(255);
    const id = "uppy-a/b/c-1e-video/mp4-1024";
    await ok(await add(u, [file(id, { fileName: name })]));
    expect((await queue(u)).items[0]).toMatchObject({ id, fileName: name });
    expect(await ok<UploadItem>(await patch(u, id, { status: "busy" }))).toMatchObject({ id, status: "busy" });
    await ok(await remove(u, id), 204);
    expect((await queue(u)).items).toEqual([]);
  });

  it.each([
    ["no items", { items: [] }],
    ["a missing file name", { items: [{ id: "a", size: 1 }] }],
    ["an empty file name", { items: [file("a", { fileName: "" })] }],
    ["a file name of 256 characters", { items: [file("a", { fileName: "я".repeat(256) })] }],
    ["a negative size", { items: [file("a", { size: -1 })] }],
    ["a fractional size", { items: [file("a", { size: 1.5 })] }],
    ["an id of 65 characters", { items: [file("x".repeat(65))] }],
    ["an empty id", { items: [file("")] }],
    ["a malformed group id", { items: [file("a", { groupId: "root" })] }],
    ["more items than one request may carry", { items: Array.from({ length: QUEUE_POLICY.maxAddBatch + 1 }, (_, n) => file(`f${n}`)) }],
    ["not an object", ["a"]],
  ])("refuses %s with 400 and queues nothing", async (_what, body) => {
    const u = await signIn();
    const res = await call("/api/uploads", { method: "POST", bearer: u.bearer, json: body });
    await expectError(res, 400);
    expect((await queue(u)).items).toEqual([]);
  });

  it("refuses to hold more than the queue limit (409)", async () => {
    const u = await signIn();
    const batch = (from: number) => Array.from({ length: QUEUE_POLICY.maxAddBatch }, (_, n) => file(`f${from + n}`));
    for (let from = 0; from < QUEUE_POLICY.maxItems; from += QUEUE_POLICY.maxAddBatch) await ok(await add(u, batch(from)));
    const body = await expectError(await add(u, [file("one-more")]), 409);
    expect(body.message).toBe(ru.queue.queueFull(QUEUE_POLICY.maxItems));
    await ok(await add(u, [file("f0")]));
  });
});

describe("PATCH /api/uploads/{id}", () => {
  it("walks an upload through busy, uploading, uploaded, saving and completed", async () => {
    const u = await signIn();
    const assetId = await createAsset(u.bearer);
    const { variant_id: variantId } = await startUpload(u.bearer, assetId);
    await add(u, [file("a"), file("b")]);
    expect(await ok<UploadItem>(await patch(u, "a", { status: "busy", assetId, variantId }))).toMatchObject({ status: "busy", assetId, variantId });
    expect(await ok<UploadItem>(await patch(u, "a", { status: "uploading", uploadId: "r2-upload-1", progress: 0 }))).toMatchObject({
      status: "uploading",
      uploadId: "r2-upload-1",
    });
    expect(await ok<UploadItem>(await patch(u, "a", { progress: 55.5, speed: 1_250_000 }))).toMatchObject({ progress: 55.5, speed: 1_250_000 });
    expect(await queue(u)).toMatchObject({ finished: false, next: "b" });
    expect(await ok<UploadItem>(await patch(u, "a", { status: "uploaded" }))).toMatchObject({ status: "uploaded", progress: 100, speed: null });
    await drive(u, "a", ["saving", "completed"]);
    await ok(await patch(u, "b", { status: "error", error: "Файл недоступен" }));
    const state = await queue(u);
    expect(state).toMatchObject({ finished: true, next: null });
    expect(state.items.map((i) => [i.id, i.status, i.error])).toEqual([
      ["a", "completed", null],
      ["b", "error", "Файл недоступен"],
    ]);
  });

  it("retries an error (back to waiting) and pauses an upload (uploading → waiting)", async () => {
    const u = await signIn();
    await add(u, [file("a")]);
    await drive(u, "a", ["uploading", "error"]);
    expect(await ok<UploadItem>(await patch(u, "a", { status: "waiting" }))).toMatchObject({ status: "waiting", error: null });
    await drive(u, "a", ["uploading"]);
    await ok(await patch(u, "a", { progress: 30 }));
    expect(await ok<UploadItem>(await patch(u, "a", { status: "waiting" }))).toMatchObject({ status: "waiting", progress: 30, speed: null });
  });

  it.each([
    ["waiting → completed", [], { status: "completed" }, ru.queue.illegalTransition("в очереди", "готово")],
    ["waiting → saving", [], { status: "saving" }, ru.queue.illegalTransition("в очереди", "сохранение")],
    ["busy → waiting", ["busy"], { status: "waiting" }, ru.queue.illegalTransition("подготовка", "в очереди")],
    ["busy → completed", ["busy"], { status: "completed" }, ru.queue.illegalTransition("подготовка", "готово")],
    ["error → uploading", ["error"], { status: "uploading" }, ru.queue.illegalTransition("ошибка", "передача")],
    ["progress while waiting", [], { progress: 10 }, ru.queue.progressOnlyUploading],
    ["progress with uploaded", ["uploading"], { status: "uploaded", progress: 100 }, ru.queue.progressOnlyUploading],
    ["an error text without error", ["uploading"], { error: "x" }, ru.queue.errorOnlyWithError],
    ["anything on a completed item", ["uploading", "uploaded", "saving", "completed"], { status: "error" }, ru.queue.completedFinal],
  ])("refuses %s with 409 and changes nothing", async (_what, steps, body, message) => {
    const u = await signIn();
    await add(u, [file("a")]);
    await drive(u, "a", steps);
    const before = (await queue(u)).items[0];
    expect((await expectError(await patch(u, "a", body), 409)).message).toBe(message);
    expect((await queue(u)).items[0]).toEqual(before);
  });

  it("answers 404 for an unknown item", async () => {
    const u = await signIn();
    expect((await expectError(await patch(u, "missing", { status: "busy" }), 404)).message).toBe(ru.queue.itemNotFound);
  });

  it.each([
    ["an unknown status", { status: "done" }],
    ["progress over 100", { progress: 101 }],
    ["a negative speed", { speed: -1 }],
    ["an unknown field", { fileName: "renamed.mov" }],
    ["a malformed asset id", { assetId: "asset-1" }],
    ["an upload id with spaces", { uploadId: "a b" }],
    ["a number as status", { status: 3 }],
  ])("refuses %s with 400", async (_what, body) => {
    const u = await signIn();
    await add(u, [file("a")]);
    await expectError(await patch(u, "a", body), 400);
    expect((await queue(u)).items[0]).toMatchObject({ status: "waiting", progress: 0, fileName: "a.mov" });
  });

  it("refuses an id of more than 64 characters in the path with 400", async () => {
    const u = await signIn();
    await expectError(await patch(u, "x".repeat(65), { status: "busy" }), 400);
  });
});

describe("POST /api/uploads/report", () => {
  const report = (u: User, reports: unknown) => call("/api/uploads/report", { method: "POST", bearer: u.bearer, json: { reports } });
  type Result = { id: string; status: number; item?: UploadItem; message?: string };

  it("applies several reports in order, each answering as PATCH would, and a refused one holds back none of the others", async () => {
    const u = await signIn();
    await add(u, [file("a"), file("b"), file("c")]);
    const { results } = await ok<{ results: Result[] }>(
      await report(u, [
        { id: "a", patch: { status: "uploading" } },
        { id: "b", patch: { status: "uploading" } },
        { id: "a", patch: { progress: 40, speed: 1000 } },
        { id: "a", patch: { status: "completed" } },
        { id: "c", patch: { status: "completed" } },
        { id: "nobody", patch: { status: "error" } },
        { id: "b", patch: { status: "error", error: "Сеть пропала" } },
      ]),
    );
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ["a", 200],
      ["b", 200],
      ["a", 200],
      ["a", 200],
      ["c", 409],
      ["nobody", 404],
      ["b", 200],
    ]);
    expect(results[2].item).toMatchObject({ progress: 40, speed: 1000 });
    expect(results[4].message).toBeTruthy();
    const state = await queue(u);
    expect(Object.fromEntries(state.items.map((i) => [i.id, i.status]))).toEqual({ a: "completed", b: "error", c: "waiting" });
    expect(state.items.find((i) => i.id === "b")?.error).toBe("Сеть пропала");
  });

  it("refuses an empty or oversized batch and a variant of another user, changing nothing", async () => {
    const u = await signIn();
    const other = await signIn();
    await add(u, [file("a")]);
    await expectError(await report(u, []), 400);
    await expectError(await report(u, Array.from({ length: 501 }, () => ({ id: "a", patch: { progress: 1 } }))), 400);
    await expectError(await report(u, [{ id: "a", patch: { status: "uploading", bogus: 1 } }]), 400);
    const assetId = await createAsset(other.bearer);
    const { variant_id: foreign } = await startUpload(other.bearer, assetId);
    await expectError(await report(u, [{ id: "a", patch: { status: "busy", variantId: foreign } }]), 404);
    expect((await queue(u)).items[0]).toMatchObject({ status: "waiting", variantId: null });
    await expectError(await call("/api/uploads/report", { method: "POST", json: { reports: [{ id: "a", patch: {} }] } }), 401);
  });
});

describe("POST /api/uploads/{id}/cancel and DELETE /api/uploads/{id}", () => {
  it("removes a waiting item at once", async () => {
    const u = await signIn();
    await add(u, [file("a"), file("b")]);
    expect(await ok(await cancel(u, "a"))).toEqual({ removed: true, item: null });
    expect((await queue(u)).items.map((i) => i.id)).toEqual(["b"]);
  });

  it("marks a running item cancelled for its engine, which then removes it", async () => {
    const u = await signIn();
    await add(u, [file("a")]);
    await drive(u, "a", ["uploading"]);
    const answer = await ok<{ removed: boolean; item: UploadItem }>(await cancel(u, "a"));
    expect(answer).toMatchObject({ removed: false, item: { id: "a", status: "uploading", cancelled: true } });
    expect(await ok(await cancel(u, "a"))).toEqual(answer);
    // Progress from the tab that has not heard of the cancel yet is refused…
    expect((await expectError(await patch(u, "a", { progress: 80 }), 409)).message).toBe(ru.queue.cancelled);
    // …and the engine removes the item once it has cancelled the upload and deleted the asset.
    await ok(await remove(u, "a"), 204);
    expect((await queue(u)).items).toEqual([]);
  });

  it("lets the engine report that cancelling failed: the item becomes error", async () => {
    const u = await signIn();
    await add(u, [file("a")]);
    await drive(u, "a", ["busy"]);
    await ok(await cancel(u, "a"));
    const failed = await ok<UploadItem>(await patch(u, "a", { status: "error", error: "Не удалось удалить файл" }));
    expect(failed).toMatchObject({ status: "error", cancelled: true, error: "Не удалось удалить файл" });
    expect((await queue(u)).finished).toBe(true);
  });

  it("refuses to cancel a completed item (409) and keeps it", async () => {
    const u = await signIn();
    await add(u, [file("a")]);
    await drive(u, "a", ["uploading", "uploaded", "saving", "completed"]);
    expect((await expectError(await cancel(u, "a"), 409)).message).toBe(ru.queue.cancelCompleted);
    expect((await queue(u)).items[0]).toMatchObject({ status: "completed", cancelled: false });
  });

  it("answers 404 for unknown items", async () => {
    const u = await signIn();
    expect((await expectError(await cancel(u, "missing"), 404)).message).toBe(ru.queue.itemNotFound);
    expect((await expectError(await remove(u, "missing"), 404)).message).toBe(ru.queue.itemNotFound);
  });
});

describe("POST /api/uploads/keepalive and /api/uploads/clear", () => {
  it("marks the listed items as seen now and ignores unknown ids", async () => {
    const u = await signIn();
    await add(u, [file("a"), file("b")]);
    await drive(u, "a", ["uploading"]);
    const past = Date.now() - 60_000;
    await runInDurableObject(objectOf(u), (_i: UploadQueueDO, state) => {
      state.storage.sql.exec("UPDATE queue_items SET last_seen = ?", past);
    });
    const before = Date.now();
    await ok(await keepalive(u, ["a", "unknown"]), 204);
    const [a, b] = (await queue(u)).items;
    expect(a.lastSeen).toBeGreaterThanOrEqual(before);
    expect(a.mtime).toBeLessThan(a.lastSeen + 1);
    expect(b.lastSeen).toBe(past);
    await ok(await keepalive(u, []), 204);
  });

  it("refuses a malformed keep-alive with 400", async () => {
    const u = await signIn();
    await expectError(await call("/api/uploads/keepalive", { method: "POST", bearer: u.bearer, json: { ids: "a" } }), 400);
    await expectError(await keepalive(u, Array.from({ length: QUEUE_POLICY.maxKeepAliveIds + 1 }, (_, n) => `i${n}`)), 400);
  });

  it("clears completed items only", async () => {
    const u = await signIn();
    await add(u, [file("a"), file("b"), file("c")]);
    await drive(u, "a", ["uploading", "uploaded", "saving", "completed"]);
    await drive(u, "b", ["error"]);
    expect(await ok(await clear(u))).toEqual({ removed: 1 });
    expect((await queue(u)).items.map((i) => i.id)).toEqual(["b", "c"]);
    expect(await ok(await clear(u))).toEqual({ removed: 0 });
  });
});

describe("/api/uploads security", () => {
  it("needs a bearer on every call", async () => {
    const calls: [string, string, unknown?][] = [
      ["GET", "/api/uploads"],
      ["POST", "/api/uploads", { items: [file("a")] }],
      ["PATCH", "/api/uploads/a", { status: "busy" }],
      ["POST", "/api/uploads/a/cancel"],
      ["DELETE", "/api/uploads/a"],
      ["POST", "/api/uploads/keepalive", { ids: ["a"] }],
      ["POST", "/api/uploads/clear"],
    ];
    for (const [method, p, json] of calls) {
      await expectError(await call(p, { method, json }), 401);
      await expectError(await call(p, { method, json, bearer: "not.a.token" }), 401);
    }
  });

  it("keeps each user's queue apart: another user can neither see nor change mine", async () => {
    const me = await signIn();
    const other = await signIn();
    await add(me, [file("a"), file("b")]);
    await drive(me, "a", ["uploading", "uploaded", "saving", "completed"]);
    await drive(me, "b", ["uploading"]);
    const mine = await queue(me);

    expect(await queue(other)).toEqual({ items: [], finished: true, next: null });
    await expectError(await patch(other, "b", { status: "error" }), 404);
    await expectError(await cancel(other, "b"), 404);
    await expectError(await remove(other, "b"), 404);
    await ok(await keepalive(other, ["b"]), 204);
    expect(await ok(await clear(other))).toEqual({ removed: 0 });
    // The same id in the other user's queue is the other user's own item.
    await ok(await add(other, [file("b", { fileName: "чужой.mov" })]));
    await ok(await patch(other, "b", { status: "error" }));

    expect(await queue(me)).toEqual(mine);
    expect((await queue(other)).items.map((i) => [i.id, i.fileName, i.status])).toEqual([["b", "чужой.mov", "error"]]);
  });

  it("accepts only the caller's own variant ids: a stale item's upload is aborted through them", async () => {
    const me = await signIn();
    const other = await signIn();
    const { variant_id: othersVariant } = await startUpload(other.bearer, await createAsset(other.bearer));
    await add(me, [file("a")]);
    expect((await expectError(await patch(me, "a", { status: "busy", variantId: othersVariant }), 404)).message).toBe(ru.assets.variantNotFound);
    await expectError(await patch(me, "a", { variantId: "0".repeat(32) }), 404);
    expect((await queue(me)).items[0]).toMatchObject({ status: "waiting", variantId: null });
  });
});

describe("OpenAPI document", () => {
  it("lists every /api/uploads call", async () => {
    const doc = await ok<{ paths: Record<string, Record<string, { security?: unknown }>>; components: { schemas: Record<string, unknown> } }>(
      await call("/api/openapi.json"),
    );
    const expected: [string, string][] = [
      ["get", "/api/uploads"],
      ["post", "/api/uploads"],
      ["patch", "/api/uploads/{id}"],
      ["delete", "/api/uploads/{id}"],
      ["post", "/api/uploads/{id}/cancel"],
      ["post", "/api/uploads/keepalive"],
      ["post", "/api/uploads/clear"],
      ["get", "/api/uploads/ws"],
    ];
    for (const [method, p] of expected) expect(doc.paths[p]?.[method], `${method} ${p}`).toBeDefined();
    expect(doc.paths["/api/uploads"].get.security).toEqual([{ bearer: [] }]);
    expect(doc.components.schemas).toHaveProperty("UploadItem");
    expect(doc.components.schemas).toHaveProperty("UploadPatch");
  });
});
