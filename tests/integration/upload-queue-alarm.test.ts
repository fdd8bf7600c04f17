import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import type { UploadQueueDO } from "../../durable-objects/upload-queue.do";
import { QUEUE_POLICY } from "../../durable-objects/upload-queue.rules";
import { worker } from "./worker-handlers";
import { runAbortUpload } from "../../workers/queue/operations";
import type { QueueState } from "../../workers/services/uploads/upload-queue.service";
import { createAsset, startUpload } from "./asset-fixtures";
import { call, signIn } from "./factories";

/**
 * The queue's alarm: busy/uploading/uploaded items whose browser went silent become error and their multipart
 * uploads go to the TASKS queue (`abort-upload`); items left alone for the retention period are forgotten. Also the
 * `abort-upload` operation itself, against a real R2 multipart upload.
 */

type User = Awaited<ReturnType<typeof signIn>>;
const file = (id: string) => ({ id, fileName: `${id}.mov`, size: 10, groupId: null });
const objectOf = (u: User) => env.UPLOADS.get(env.UPLOADS.idFromName(u.id));
const queue = async (u: User) => (await (await call("/api/uploads", { bearer: u.bearer })).json()) as QueueState;
const patch = async (u: User, id: string, json: unknown) => {
  const res = await call(`/api/uploads/${id}`, { method: "PATCH", bearer: u.bearer, json });
  expect(res.status, await res.clone().text()).toBe(200);
};

/** Replaces the object's TASKS binding with a recorder (the object keeps it until it is evicted). */
async function recordTasks(u: User, sendBatch = vi.fn<Queue["sendBatch"]>().mockResolvedValue({} as QueueSendBatchResponse)) {
  await runInDurableObject(objectOf(u), (instance: UploadQueueDO) => {
    const target = instance as unknown as { env: Env };
    target.env = { ...target.env, TASKS: { ...target.env.TASKS, sendBatch } as Queue };
  });
  return sendBatch;
}

/** Moves the last sign of life (and, optionally, the last change) of some items into the past. */
async function age(u: User, ids: string[], ms: number, alsoChanged = false) {
  await runInDurableObject(objectOf(u), (_i: UploadQueueDO, state) => {
    for (const id of ids) {
      state.storage.sql.exec(`UPDATE queue_items SET last_seen = last_seen - ?${alsoChanged ? ", mtime = mtime - ?" : ""} WHERE id = ?`, ...(alsoChanged ? [ms, ms, id] : [ms, id]));
    }
  });
}

const alarmOf = (u: User) => runInDurableObject(objectOf(u), (_i: UploadQueueDO, state) => state.storage.getAlarm());
const pendingAborts = (u: User) =>
  runInDurableObject(objectOf(u), (_i: UploadQueueDO, state) => state.storage.sql.exec("SELECT variant_id, upload_id FROM pending_aborts").toArray());

describe("UploadQueueDO alarm", () => {
  it("is set for the next deadline: retention for a waiting item, the stale limit once it starts", async () => {
    const u = await signIn();
    await call("/api/uploads", { method: "POST", bearer: u.bearer, json: { items: [file("a")] } });
    const waiting = (await queue(u)).items[0];
    expect(await alarmOf(u)).toBe(waiting.lastSeen + QUEUE_POLICY.retentionMs);
    await patch(u, "a", { status: "busy" });
    const busy = (await queue(u)).items[0];
    expect(await alarmOf(u)).toBe(busy.lastSeen + QUEUE_POLICY.staleAfterMs);
  });

  it("fails busy/uploading/uploaded items without keep-alive for 2 minutes and hands their uploads to the TASKS queue", async () => {
    const u = await signIn();
    const { variant_id: variantId } = await startUpload(u.bearer, await createAsset(u.bearer));
    await call("/api/uploads", { method: "POST", bearer: u.bearer, json: { items: ["a", "b", "c", "d", "e"].map(file) } });
    await patch(u, "a", { status: "busy", variantId });
    await patch(u, "a", { status: "uploading", uploadId: "r2-upload-a", progress: 40 });
    await patch(u, "b", { status: "uploading" });
    await patch(u, "c", { status: "uploading" });
    await patch(u, "c", { status: "uploaded" });
    await patch(u, "d", { status: "uploading" });
    for (const status of ["uploaded", "saving"]) await patch(u, "d", { status });
    const sendBatch = await recordTasks(u);
    // a, c and d went silent 3 minutes ago; b keeps sending keep-alives; e is still waiting.
    await age(u, ["a", "c", "d", "e"], 3 * 60_000);

    expect(await runDurableObjectAlarm(objectOf(u))).toBe(true);

    const items = Object.fromEntries((await queue(u)).items.map((i) => [i.id, i]));
    expect(items.a).toMatchObject({ status: "error", error: ru.queue.stale, progress: 40, speed: null });
    expect(items.c).toMatchObject({ status: "error", error: ru.queue.stale });
    expect(items.b).toMatchObject({ status: "uploading", error: null });
    expect(items.d).toMatchObject({ status: "saving" });
    expect(items.e).toMatchObject({ status: "waiting" });
    expect(sendBatch).toHaveBeenCalledTimes(1);
    expect(sendBatch).toHaveBeenCalledWith([{ body: { op: "abort-upload", variantId, uploadId: "r2-upload-a" } }]);
    expect(await pendingAborts(u)).toEqual([]);
    // The alarm rings again when b may go stale.
    expect(await alarmOf(u)).toBe(items.b.lastSeen + QUEUE_POLICY.staleAfterMs);
    // The browser comes back: the failed item can be retried.
    await patch(u, "a", { status: "waiting" });
  });

  it("keeps an abort the TASKS queue refused and hands it on at the next ring", async () => {
    const u = await signIn();
    const { variant_id: variantId } = await startUpload(u.bearer, await createAsset(u.bearer));
    await call("/api/uploads", { method: "POST", bearer: u.bearer, json: { items: [file("a")] } });
    await patch(u, "a", { status: "uploading", variantId, uploadId: "r2-upload-a" });
    const failing = await recordTasks(u, vi.fn<Queue["sendBatch"]>().mockRejectedValue(new Error("queue unavailable")));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await age(u, ["a"], 5 * 60_000);
    const before = Date.now();

    expect(await runDurableObjectAlarm(objectOf(u))).toBe(true);
    expect(failing).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("abort-upload hand-off failed"));
    expect((await queue(u)).items[0]).toMatchObject({ status: "error", error: ru.queue.stale });
    expect(await pendingAborts(u)).toEqual([{ variant_id: variantId, upload_id: "r2-upload-a" }]);
    const retryAt = (await alarmOf(u))!;
    expect(retryAt - before).toBeGreaterThan(0);
    expect(retryAt - before).toBeLessThanOrEqual(60_000);

    const working = await recordTasks(u);
    expect(await runDurableObjectAlarm(objectOf(u))).toBe(true);
    expect(working).toHaveBeenCalledWith([{ body: { op: "abort-upload", variantId, uploadId: "r2-upload-a" } }]);
    expect(await pendingAborts(u)).toEqual([]);
    warn.mockRestore();
  });

  it("forgets items left alone for the retention period, and rests once the queue is empty", async () => {
    const u = await signIn();
    await call("/api/uploads", { method: "POST", bearer: u.bearer, json: { items: [file("done"), file("failed"), file("recent")] } });
    for (const status of ["uploading", "uploaded", "saving", "completed"]) await patch(u, "done", { status });
    await patch(u, "failed", { status: "error" });
    await age(u, ["done", "failed"], QUEUE_POLICY.retentionMs + 1, true);

    expect(await runDurableObjectAlarm(objectOf(u))).toBe(true);
    expect((await queue(u)).items.map((i) => i.id)).toEqual(["recent"]);
    expect(await alarmOf(u)).not.toBeNull();

    await age(u, ["recent"], QUEUE_POLICY.retentionMs + 1, true);
    expect(await runDurableObjectAlarm(objectOf(u))).toBe(true);
    expect((await queue(u)).items).toEqual([]);
    expect(await alarmOf(u)).toBeNull();
  });
});

describe("abort-upload operation", () => {
  async function pendingVariant(u: User) {
    const { variant_id: variantId } = await startUpload(u.bearer, await createAsset(u.bearer));
    const row = await env.DB.prepare("SELECT storage_key FROM variants WHERE id = ?").bind(variantId).first<{ storage_key: string }>();
    return { variantId, key: row!.storage_key };
  }

  it("aborts the open R2 multipart upload of a pending variant", async () => {
    const u = await signIn();
    const { variantId, key } = await pendingVariant(u);
    const upload = await env.MEDIA.createMultipartUpload(key);
    await upload.uploadPart(1, "first part");

    expect(await runAbortUpload(env, { op: "abort-upload", variantId, uploadId: upload.uploadId })).toMatch(/aborted$/);
    await expect(env.MEDIA.resumeMultipartUpload(key, upload.uploadId).uploadPart(2, "more")).rejects.toThrow();
    // Again: the upload is gone, which is not an error.
    await expect(runAbortUpload(env, { op: "abort-upload", variantId, uploadId: upload.uploadId })).resolves.toMatch(/variant/);
  });

  it("leaves unknown variants alone and is acknowledged by the queue consumer", async () => {
    const message = { op: "abort-upload", variantId: "0".repeat(32), uploadId: "nothing" };
    expect(await runAbortUpload(env, message as Parameters<typeof runAbortUpload>[1])).toMatch(/nothing to abort/);
    const batch = createMessageBatch("edge-mam-tasks", [{ id: "m-1", timestamp: new Date(), attempts: 1, body: message }]);
    const ctx = createExecutionContext();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m-1"]);
    log.mockRestore();
  });
});
