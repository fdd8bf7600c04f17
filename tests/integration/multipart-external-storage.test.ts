import { afterEach, describe, expect, it, vi } from "vitest";
import { createAsset, createGroup, json, rows, sha256Of } from "./asset-fixtures";
import { call, signIn } from "./factories";
import { externalStorage } from "./library-factories";
import { MIB, complete, concat, createUpload, partBytes, putPart, sign, s3, startMultipart } from "./multipart-fixtures";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A file above the single-request size into a folder whose default storage is an external S3 bucket. */
describe("multipart uploads into an external S3 storage", () => {
  it("passes every part to the bucket's multipart API and commits the version with the SHA-256 of the whole file", async () => {
    const { id: storageId, fake } = await externalStorage();
    const user = await signIn();
    const group = await createGroup(user.id);
    await rows("update groups set default_storage = ? where id = ?", storageId, group);
    const asset = await createAsset(user.bearer, { in_group: group });
    const parts = [partBytes(5 * MIB, 7), partBytes(321, 8)];
    const bytes = concat(...parts);
    const info = await startMultipart(user.bearer, asset, bytes.byteLength, { file_name: "архив.mov" });

    const uploadId = await createUpload(user.bearer, info.variant_id);
    expect(fake.uploads.get(uploadId)?.key).toBe(info.key);
    const etags = [await putPart(user.bearer, info.variant_id, uploadId, 1, parts[0]), await putPart(user.bearer, info.variant_id, uploadId, 2, parts[1])];
    const done = await complete(user.bearer, info.variant_id, uploadId, etags.map((etag, i) => ({ partNumber: i + 1, etag })));
    expect(done.status, await done.clone().text()).toBe(200);
    expect(done.headers.get("x-mam-upload-state")).toBe("ready");

    expect(fake.objects.get(info.key)?.body).toEqual(bytes);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "ready",
      sha256: await sha256Of(bytes),
    });
    expect((await rows("select storage_id from variants where id = ?", info.variant_id))[0]).toEqual({ storage_id: storageId });
  });

  it("aborts the bucket's upload when the client aborts", async () => {
    const { id: storageId, fake } = await externalStorage();
    const user = await signIn();
    const group = await createGroup(user.id);
    await rows("update groups set default_storage = ? where id = ?", storageId, group);
    const asset = await createAsset(user.bearer, { in_group: group });
    const info = await startMultipart(user.bearer, asset, 6 * MIB);
    const uploadId = await createUpload(user.bearer, info.variant_id);
    await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(5 * MIB, 9));
    const abort = await sign(user.bearer, info.variant_id, "abort", { upload_id: uploadId });
    expect((await s3(abort.url, { method: "DELETE" })).status).toBe(204);
    expect(fake.uploads.size).toBe(0);
    expect(fake.objects.has(info.key)).toBe(false);
  });
});
