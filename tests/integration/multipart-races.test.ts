import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { findVariant } from "../../workers/db/repositories/asset-versions.repository";
import { createDb } from "../../workers/db/client";
import { createRequestContext } from "../../workers/services/access/context";
import { abortVariantUpload } from "../../workers/services/uploads/multipart-complete.service";
import { createAsset, rows, sha256Of } from "./asset-fixtures";
import { call, signIn } from "./factories";
import {
  MIB,
  captureTasks,
  complete,
  concat,
  createUpload,
  expectS3Error,
  forgedQuery,
  partBytes,
  putPart,
  s3,
  sign,
  signCall,
  startMultipart,
} from "./multipart-fixtures";

/**
 * S3 multipart uploads attacked at their edges: parts reused across uploads, sent out of order or twice with other
 * bytes, Completes that overlap each other or an Abort, and another user's upload id. The rule every test checks:
 * one upload commits at most one version, with exactly the bytes its Complete named, and nothing else is visible.
 */

const rc = () => createRequestContext(env, () => undefined, `test-${crypto.randomUUID()}`);

async function openUpload(size: number) {
  const user = await signIn();
  const id = await createAsset(user.bearer);
  const info = await startMultipart(user.bearer, id, size);
  const uploadId = await createUpload(user.bearer, info.variant_id);
  return { user, id, info, uploadId };
}

async function storedBytes(key: string): Promise<Uint8Array<ArrayBuffer>> {
  const object = await env.MEDIA.get(key);
  return object ? new Uint8Array(await object.arrayBuffer()) : new Uint8Array(0);
}

async function readyVersions(assetId: string) {
  return rows<{ n: number }>(
    "select count(distinct version_id) as n from variants where asset_id = ? and status = 'ready' and version_id is not null",
    assetId,
  );
}

describe("parts", () => {
  it("parts sent out of order are assembled in part-number order", async () => {
    captureTasks();
    const parts = [partBytes(5 * MIB, 1), partBytes(777, 2)];
    const { user, info, uploadId } = await openUpload(5 * MIB + 777);
    const second = await putPart(user.bearer, info.variant_id, uploadId, 2, parts[1]);
    const first = await putPart(user.bearer, info.variant_id, uploadId, 1, parts[0]);
    const res = await complete(user.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: first },
      { partNumber: 2, etag: second },
    ]);
    expect(res.status, await res.clone().text()).toBe(200);
    await res.body?.cancel();
    expect(await sha256Of(await storedBytes(info.key))).toBe(await sha256Of(concat(...parts)));
  });

  it("a part sent again with other bytes replaces the first: the first etag is refused, the object holds the second bytes", async () => {
    captureTasks();
    const { user, info, uploadId } = await openUpload(100);
    const before = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(100, 7));
    const after = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(100, 99));
    expect(after).not.toBe(before);
    await expectS3Error(await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag: before }]), 400, "InvalidPart");
    const res = await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag: after }]);
    expect(res.status, await res.clone().text()).toBe(200);
    await res.body?.cancel();
    expect(await sha256Of(await storedBytes(info.key))).toBe(await sha256Of(partBytes(100, 99)));
  });

  it("a part of one upload cannot be named in another upload's Complete, even by the same user", async () => {
    captureTasks();
    const a = await openUpload(100);
    const etagOfA = await putPart(a.user.bearer, a.info.variant_id, a.uploadId, 1, partBytes(100, 3));
    const id = await createAsset(a.user.bearer);
    const info = await startMultipart(a.user.bearer, id, 100);
    const uploadId = await createUpload(a.user.bearer, info.variant_id);
    await expectS3Error(await complete(a.user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag: etagOfA }]), 400, "InvalidPart");
    // Nor may A's upload id be used on B's object: the signature names one variant and one upload id.
    const signed = await signCall(a.user.bearer, { variant_id: info.variant_id, op: "complete", method: "POST", upload_id: a.uploadId });
    expect(signed.status).toBe(404);
    await signed.body?.cancel();
    expect(await readyVersions(id)).toEqual([{ n: 0 }]);
    expect(await env.MEDIA.head(info.key)).toBeNull();
  });

  it("another user cannot send, list, complete or abort parts of an upload whose id they learned", async () => {
    const { user, info, uploadId } = await openUpload(100);
    await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(100, 1));
    const intruder = await signIn();
    for (const op of ["part", "list", "complete", "abort"] as const) {
      const refused = await signCall(intruder.bearer, { variant_id: info.variant_id, op, method: "PUT", upload_id: uploadId, part_number: 1 });
      expect(refused.status, op).toBeGreaterThanOrEqual(400);
      expect(refused.status, op).toBeLessThan(500);
      await refused.body?.cancel();
    }
    // A signature the intruder made for himself (were the secret his) still names him, not the uploader: 403.
    const query = await forgedQuery("part", intruder.id, info.variant_id, uploadId, 1);
    query.set("partNumber", "1");
    query.set("uploadId", uploadId);
    const res = await call(`/api/s3/media/${info.key}?${query}`, { method: "PUT", body: partBytes(100, 66) });
    await expectS3Error(res, 403, "AccessDenied");
    expect(await rows("select size from upload_parts where variant_id = ?", info.variant_id)).toEqual([{ size: 100 }]);
  });
});

describe("Completes that overlap", () => {
  it("five Completes of one upload sent at once commit one version with one object; all answer the same", async () => {
    captureTasks();
    const { user, id, info, uploadId } = await openUpload(4096);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(4096, 5));
    const signed = await sign(user.bearer, info.variant_id, "complete", { upload_id: uploadId });
    const body = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`;
    const answers = await Promise.all(
      [0, 1, 2, 3, 4].map(() => s3(signed.url, { method: "POST", body, headers: { "content-type": "application/xml" } })),
    );
    const texts = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status), texts.join("\n")).toEqual([200, 200, 200, 200, 200]);
    expect(await readyVersions(id)).toEqual([{ n: 1 }]);
    expect(await rows("select count(*) as n from variants where asset_id = ? and status = 'ready'", id)).toEqual([{ n: 1 }]);
    expect(await sha256Of(await storedBytes(info.key))).toBe(await sha256Of(partBytes(4096, 5)));
  });

  it("a Complete and an Abort sent at once end in one of two states, never a version without its bytes", async () => {
    captureTasks();
    const { user, id, info, uploadId } = await openUpload(2048);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(2048, 9));
    const abort = await sign(user.bearer, info.variant_id, "abort", { upload_id: uploadId });
    const [done, dropped] = await Promise.all([
      complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag }]),
      s3(abort.url, { method: "DELETE" }),
    ]);
    await Promise.all([done.body?.cancel(), dropped.body?.cancel()]);
    const [variant] = await rows<{ status: string }>("select status from variants where id = ?", info.variant_id);
    if (variant.status === "ready") {
      expect(await readyVersions(id)).toEqual([{ n: 1 }]);
      expect(await env.MEDIA.head(info.key)).not.toBeNull();
    } else {
      expect(variant.status).toBe("aborted");
      expect(await readyVersions(id)).toEqual([{ n: 0 }]);
      expect(await env.MEDIA.head(info.key)).toBeNull();
    }
  });

  it("an Abort that read the upload as open before a Complete committed it does not delete the committed bytes", async () => {
    captureTasks();
    const { user, id, info, uploadId } = await openUpload(3000);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(3000, 11));
    // The Abort's view of the variant, read while the upload was still open…
    const seenByAbort = (await findVariant(createDb(env.DB), info.variant_id))!;
    expect(seenByAbort.status).toBe("pending");
    // …then the Complete runs to the end and commits version 1…
    const res = await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag }]);
    expect(res.status, await res.clone().text()).toBe(200);
    await res.body?.cancel();
    expect(await readyVersions(id)).toEqual([{ n: 1 }]);
    // …and only then does the Abort carry on.
    await abortVariantUpload(rc(), seenByAbort);
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "ready" }]);
    expect(await env.MEDIA.head(info.key), "the committed version's bytes").not.toBeNull();
    const download = await call(`/api/asset/content/download-variant/${info.variant_id}`, { bearer: user.bearer });
    expect(download.status).toBe(200);
    expect(await sha256Of(new Uint8Array(await download.arrayBuffer()))).toBe(await sha256Of(partBytes(3000, 11)));
  });

  it("an Abort that lands between storage's assembly and the Complete's commit wins: the Complete answers NoSuchUpload, not 'saving'", async () => {
    captureTasks();
    const { user, id, info, uploadId } = await openUpload(1500);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(1500, 13));
    const abort = await sign(user.bearer, info.variant_id, "abort", { upload_id: uploadId });
    // The real R2 upload does the work; the Abort is sent the moment R2 has assembled the object, before the
    // Complete records it (the interleaving two requests on two machines can take).
    const resume = env.MEDIA.resumeMultipartUpload.bind(env.MEDIA);
    let aborted: number | null = null;
    vi.spyOn(env.MEDIA, "resumeMultipartUpload").mockImplementation((key: string, upload: string) => {
      const real = resume(key, upload);
      return {
        key: real.key,
        uploadId: real.uploadId,
        uploadPart: real.uploadPart.bind(real),
        abort: real.abort.bind(real),
        complete: async (parts: R2UploadedPart[]) => {
          const object = await real.complete(parts);
          if (aborted === null) {
            const res = await s3(abort.url, { method: "DELETE" });
            aborted = res.status;
            await res.body?.cancel();
          }
          return object;
        },
      } as R2MultipartUpload;
    });
    const res = await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag }]);
    vi.restoreAllMocks();
    expect(aborted).toBe(204);
    await expectS3Error(res, 404, "NoSuchUpload");
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "aborted" }]);
    expect(await readyVersions(id)).toEqual([{ n: 0 }]);
    expect(await env.MEDIA.head(info.key)).toBeNull();
  });

  it("a 2 MiB Complete body of parts that never close answers 400 MalformedXML at once, and the upload stays open", async () => {
    captureTasks();
    const { user, info, uploadId } = await openUpload(100);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(100, 21));
    const signed = await sign(user.bearer, info.variant_id, "complete", { upload_id: uploadId });
    const unit = "<Part><PartNumber>1</PartNumber><ETag>a</ETag><X>";
    const body = `<CompleteMultipartUpload>${unit.repeat(Math.floor((2 * MIB - 60) / unit.length))}</CompleteMultipartUpload>`;
    const started = Date.now();
    const res = await s3(signed.url, { method: "POST", body, headers: { "content-type": "application/xml" } });
    await expectS3Error(res, 400, "MalformedXML");
    expect(Date.now() - started).toBeLessThan(3000);
    const done = await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag }]);
    expect(done.status, await done.clone().text()).toBe(200);
    await done.body?.cancel();
  });
});
