import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { worker } from "./worker-handlers";
import { createRequestContext } from "../../workers/services/access/context";
import { runAbortStaleMultipart, runHashVariant } from "../../workers/services/uploads/multipart-saving.service";
import { createAsset, json, rows, sha256Of, snapshot } from "./asset-fixtures";
import { call, signIn, signInAdmin } from "./factories";
import {
  MIB,
  captureTasks,
  complete,
  concat,
  createUpload,
  expectS3Error,
  partBytes,
  putPart,
  s3,
  sign,
  startMultipart,
} from "./multipart-fixtures";

/** CompleteMultipartUpload's rules, hashing in the queue ('saving' → 'ready'), and the stale-upload cleanup. */

const rc = () => createRequestContext(env, () => undefined, `test-${crypto.randomUUID()}`);
const HOUR = 3600_000;

async function openUpload(size: number) {
  const user = await signIn();
  const id = await createAsset(user.bearer);
  const info = await startMultipart(user.bearer, id, size);
  const uploadId = await createUpload(user.bearer, info.variant_id);
  return { user, id, info, uploadId };
}

describe("CompleteMultipartUpload refuses a bad part list (400) and leaves nothing visible", () => {
  it("refuses a part smaller than 5 MiB that is not the last (EntityTooSmall)", async () => {
    const { user, id, info, uploadId } = await openUpload(MIB + 1);
    const etags = [
      await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(MIB, 1)),
      await putPart(user.bearer, info.variant_id, uploadId, 2, partBytes(1, 2)),
    ];
    const before = await snapshot(id);
    const res = await complete(user.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: etags[0] },
      { partNumber: 2, etag: etags[1] },
    ]);
    expect(await expectS3Error(res, 400, "EntityTooSmall")).toBe("EntityTooSmall");
    expect(await snapshot(id)).toEqual(before);
    // Nothing committed: the version create-version made is still receiving its bytes.
    expect((await json<{ state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }))).map((v) => v.state)).toEqual(["uploading"]);
    expect(await env.MEDIA.head(info.key)).toBeNull();
  });

  it("refuses a missing part, a list that does not add up, a wrong etag, parts out of order or repeated, bad XML", async () => {
    const { user, id, info, uploadId } = await openUpload(30);
    const etags = [
      await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(10, 1)),
      await putPart(user.bearer, info.variant_id, uploadId, 2, partBytes(10, 2)),
      await putPart(user.bearer, info.variant_id, uploadId, 3, partBytes(10, 3)),
    ];
    const p = (n: number, etag = etags[n - 1]) => ({ partNumber: n, etag });
    const before = await snapshot(id);
    const refused = async (parts: { partNumber: number; etag: string }[], code: string) =>
      expectS3Error(await complete(user.bearer, info.variant_id, uploadId, parts), 400, code);
    await refused([p(1), p(2), p(4, '"nope"')], "InvalidPart");
    await refused([p(1), p(3)], "InvalidPart"); // sizes do not add up to the declared 30 bytes
    await refused([p(1), p(2), p(3, '"0123"')], "InvalidPart");
    await refused([p(2), p(1), p(3)], "InvalidPartOrder");
    await refused([p(1), p(1), p(2), p(3)], "InvalidPartOrder");
    await refused([], "MalformedXML");
    const signed = await sign(user.bearer, info.variant_id, "complete", { upload_id: uploadId });
    for (const body of [
      "<nope/>",
      "<CompleteMultipartUpload><Part><PartNumber>x</PartNumber><ETag>a</ETag></Part></CompleteMultipartUpload>",
      "x".repeat(3 * MIB),
    ]) {
      await expectS3Error(await s3(signed.url, { method: "POST", body }), 400, "MalformedXML");
    }
    expect(await snapshot(id)).toEqual(before);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "pending",
      uploaded_bytes: 30,
    });
    // Parts 1–3 are each under 5 MiB, so even the right list is refused: nothing but the last part may be that small.
    await refused([p(1), p(2), p(3)], "EntityTooSmall");
  });

  it("refuses parts of different sizes before the last (R2 assembles only uniform parts)", async () => {
    const { user, info, uploadId } = await openUpload(11 * MIB);
    const bigger = partBytes(5 * MIB + 1, 1);
    const etags = [
      await putPart(user.bearer, info.variant_id, uploadId, 1, bigger),
      await putPart(user.bearer, info.variant_id, uploadId, 2, partBytes(5 * MIB, 2)),
      await putPart(user.bearer, info.variant_id, uploadId, 3, partBytes(MIB - 1, 3)),
    ];
    const res = await complete(
      user.bearer,
      info.variant_id,
      uploadId,
      etags.map((etag, i) => ({ partNumber: i + 1, etag })),
    );
    expect((await res.clone().text()).includes(ru.s3.partsUneven(2))).toBe(true);
    await expectS3Error(res, 400, "InvalidPart");
  });
});

describe("hashing in the queue: 'saving' until the hash is recorded, then one commit", () => {
  /** A pending multipart variant whose object storage already holds (as after R2's complete), marked saving. */
  async function savingVariant(bytes: Uint8Array<ArrayBuffer>) {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startMultipart(user.bearer, id, bytes.byteLength);
    await env.MEDIA.put(info.key, bytes);
    await env.DB.prepare("update variants set status = 'saving', upload_id = 'u1', hash_offset = 0, progress_at = ? where id = ?")
      .bind(Date.now(), info.variant_id)
      .run();
    return { user, id, info };
  }

  it("hashes a large object in segments across runs (state saved in D1), then commits and queues processing", async () => {
    const tasks = captureTasks();
    const bytes = concat(partBytes(MIB, 1), partBytes(MIB, 2), partBytes(MIB + 17, 3));
    const { user, id, info } = await savingVariant(bytes);
    const opts = { nativeMaxBytes: 0, segmentBytes: MIB };
    expect(await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id }, opts)).toContain("continued in a new message");
    expect(tasks).toHaveBeenLastCalledWith({ op: "hash-variant", variantId: info.variant_id });
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "saving",
      hashed_bytes: MIB,
    });
    expect((await json<{ state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }))).map((v) => v.state)).toEqual(["uploading"]);
    await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id }, opts);
    await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id }, opts);
    const last = await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id }, opts);
    const sha256 = await sha256Of(bytes);
    expect(last).toBe(`variant ${info.variant_id}: sha256 ${sha256}, committed as version 1`);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "ready",
      asset_version: 1,
      sha256,
    });
    expect(tasks).toHaveBeenLastCalledWith({ op: "process-variant", variantId: info.variant_id, assetId: id, version: 1 });
    // A duplicate delivery finds nothing to do.
    expect(await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id })).toContain("not saving (ready)");
    expect(await rows("select hash_state from variants where id = ?", info.variant_id)).toEqual([{ hash_state: null }]);
  });

  it("hashes in one native pass when the object fits one run", async () => {
    captureTasks();
    const bytes = partBytes(3 * MIB + 5, 4);
    const { info } = await savingVariant(bytes);
    await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id });
    expect(await rows("select status, sha256 from variants where id = ?", info.variant_id)).toEqual([
      { status: "ready", sha256: await sha256Of(bytes) },
    ]);
  });

  it("drops the bytes and reads as aborted when the asset was trashed while hashing", async () => {
    captureTasks();
    const { user, id, info } = await savingVariant(partBytes(1000, 1));
    expect((await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer })).status).toBe(204);
    expect(await runHashVariant(rc(), { op: "hash-variant", variantId: info.variant_id })).toContain("upload dropped");
    expect(await rows("select status, version_id from variants where id = ?", info.variant_id)).toEqual([
      { status: "aborted", version_id: null },
    ]);
    expect(await env.MEDIA.head(info.key)).toBeNull();
  });

  it("runs hash-variant and process-variant from the TASKS consumer", async () => {
    captureTasks();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { info } = await savingVariant(partBytes(2048, 9));
    const batch = createMessageBatch("edge-mam-tasks", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { op: "hash-variant", variantId: info.variant_id } },
      {
        id: "m2",
        timestamp: new Date(),
        attempts: 1,
        body: { op: "process-variant", variantId: info.variant_id, assetId: info.key.split("/")[1], version: 1 },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m1", "m2"]);
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "ready" }]);
    // process-variant turns the committed variant into its processing tasks (previews and technical metadata).
    expect(log.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/tasks [0-9a-f]{32}, [0-9a-f]{32} queued/);
    const processing = await rows<{ operation_class: string }>(
      "select operation_class from tasks where src_entity = ? order by operation_class",
      info.variant_id,
    );
    expect(processing.map((t) => t.operation_class)).toEqual(["preview", "tech-fields"]);
  });
});

describe("abort-stale-multipart (cron)", () => {
  it("aborts uploads idle for a day, re-queues dead hashing runs, forgets old aborts, leaves live uploads alone", async () => {
    const tasks = captureTasks();
    const batches = vi.spyOn(env.TASKS, "sendBatch").mockResolvedValue({} as QueueSendBatchResponse);
    const stale = await openUpload(12 * MIB);
    await putPart(stale.user.bearer, stale.info.variant_id, stale.uploadId, 1, partBytes(100, 1));
    const live = await openUpload(12 * MIB);
    const stuck = await openUpload(12 * MIB);
    const old = await openUpload(12 * MIB);
    // A value attached to the stale upload's reserved version goes when the upload is aborted.
    const admin = await signInAdmin();
    const template = await json<{ field_def_id: string }>(
      await call("/api/fields/template", { method: "POST", bearer: admin.bearer, json: { field_def_name: `Заметка ${crypto.randomUUID().slice(0, 8)}`, field_type: "text" } }),
    );
    const attached = await json<{ asset_version_id: string }>(
      await call(`/api/fields/create/${stale.id}`, {
        method: "POST",
        bearer: stale.user.bearer,
        json: { def_id: template.field_def_id, asset_version_id: stale.info.variant_id, data: "черновик" },
      }),
    );
    expect(attached.asset_version_id).toBe(stale.info.variant_id);
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("update variants set progress_at = ? where id = ?").bind(now - 25 * HOUR, stale.info.variant_id),
      env.DB.prepare("update variants set status = 'saving', progress_at = ? where id = ?").bind(now - 2 * HOUR, stuck.info.variant_id),
      env.DB.prepare("update variants set status = 'aborted', progress_at = ? where id = ?").bind(now - 8 * 24 * HOUR, old.info.variant_id),
    ]);
    const summary = await runAbortStaleMultipart(rc(), { op: "abort-stale-multipart", olderThanHours: 24, limit: 100 });
    // The catalog's counts, then (libraries in shards) each library's own run.
    expect(summary).toMatch(
      /^aborted \d+ stale uploads, re-queued \d+ hashing runs, forgot \d+ aborted uploads, dropped \d+ expired uploads(; [^;]+: aborted \d+ stale uploads, re-queued \d+ hashing runs, forgot \d+ aborted uploads, dropped \d+ expired uploads)*$/,
    );
    expect(await rows("select status from variants where id = ?", stale.info.variant_id)).toEqual([{ status: "aborted" }]);
    expect(await rows("select * from upload_parts where variant_id = ?", stale.info.variant_id)).toEqual([]);
    expect(await rows("select id from field_values where entity_id = ?", stale.id)).toEqual([]);
    await expect(env.MEDIA.resumeMultipartUpload(stale.info.key, stale.uploadId).uploadPart(2, "x")).rejects.toThrow();
    expect(await rows("select status from variants where id = ?", live.info.variant_id)).toEqual([{ status: "pending" }]);
    expect(await rows("select id from variants where id = ?", old.info.variant_id)).toEqual([]);
    expect(batches).toHaveBeenCalledTimes(1);
    expect(batches.mock.calls[0][0]).toContainEqual({ body: { op: "hash-variant", variantId: stuck.info.variant_id } });
    expect(tasks).not.toHaveBeenCalled(); // fewer than `limit` stale uploads: no continuation
    const [touched] = await rows<{ progress_at: number }>("select progress_at from variants where id = ?", stuck.info.variant_id);
    expect(touched.progress_at).toBeGreaterThanOrEqual(now);
  });
});

describe("upload housekeeping is wired to the cron and spares open uploads", () => {
  it("the scheduled handler queues abort-stale-multipart", async () => {
    const sendBatch = vi.fn<Queue["sendBatch"]>().mockResolvedValue({} as QueueSendBatchResponse);
    await worker.scheduled(
      createScheduledController({ cron: "17 * * * *" }),
      { ...env, TASKS: { ...env.TASKS, sendBatch } as Queue },
      createExecutionContext(),
    );
    expect(sendBatch.mock.calls[0][0]).toContainEqual({ body: { op: "abort-stale-multipart" } });
  });

  it("drop-empty-version leaves an open multipart upload alone, however old", async () => {
    const { user, id, info } = await openUpload(12 * MIB);
    await env.DB.prepare("update variants set ctime = ? where id = ?")
      .bind(Date.now() - 3 * HOUR, info.variant_id)
      .run();
    expect(await json(await call(`/api/asset/drop-empty-version/${id}`, { method: "POST", bearer: user.bearer }))).toEqual({ dropped: 0, versions: [] });
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "pending" }]);
  });
});
