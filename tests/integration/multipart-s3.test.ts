import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { createAsset, createGroup, json, rows, sha256Of, snapshot } from "./asset-fixtures";
import { call, expectError, signIn, tamperedSig } from "./factories";
import {
  MIB,
  captureTasks,
  complete,
  completeXml,
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
  xmlTag,
  type Signed,
} from "./multipart-fixtures";

/** The S3-compatible endpoints (/api/s3) with signatures from /api/upload/sign: happy paths, errors, security. */

describe("POST /api/asset/create-version/{id}: the multipart form", () => {
  it("answers part size, key and sign URL for large files (or on request) and inserts an invisible pending variant", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const big = await json<Record<string, unknown>>(
      await call(`/api/asset/create-version/${id}`, {
        method: "POST",
        bearer: user.bearer,
        json: { file_name: "film.mov", mime_type: "video/quicktime", size: 3 * 1024 ** 3 },
      }),
    );
    expect(big).toMatchObject({ mode: "multipart", part_size: 16 * MIB, max_size: 3 * 1024 ** 3, sign_url: "/api/upload/sign" });
    expect(big.key).toBe(`assets/${id}/${big.variant_id}`);
    expect(Date.parse(big.expire as string) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const small = await startMultipart(user.bearer, id, 1000);
    expect(small.part_size).toBe(16 * MIB);
    const [variant] = await rows("select status, part_size, upload_id, version_id from variants where id = ?", small.variant_id);
    expect(variant).toEqual({ status: "pending", part_size: 16 * MIB, upload_id: null, version_id: null });
    // Each create-version made a numbered version (issue 29): empty until a multipart upload begins at the storage.
    expect([big.version, small.version]).toEqual([1, 2]);
    const listed = await json<{ version: number; state: string; version_id: string | null }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(listed.map((v) => [v.version, v.state, v.version_id])).toEqual([
      [2, "empty", null],
      [1, "empty", null],
    ]);
    await createUpload(user.bearer, small.variant_id);
    const begun = await json<{ version: number; state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(begun.map((v) => [v.version, v.state])).toEqual([
      [2, "uploading"],
      [1, "empty"],
    ]);
    // An empty file is always the single form.
    const empty = await json<Record<string, unknown>>(
      await call(`/api/asset/create-version/${id}`, {
        method: "POST",
        bearer: user.bearer,
        json: { file_name: "empty.txt", mime_type: "text/plain", size: 0, multipart: true },
      }),
    );
    expect(empty).toMatchObject({ mode: "single", method: "PUT", max_size: 0 });
  });
});

describe("a multipart upload end to end", () => {
  it("creates, uploads parts, lists, completes with SHA-256 and commits; a second complete answers the same", async () => {
    const tasks = captureTasks();
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer, { in_group: group });
    const parts = [partBytes(5 * MIB, 1), partBytes(1234, 2)];
    const bytes = concat(...parts);
    const info = await startMultipart(user.bearer, id, bytes.byteLength, { file_name: "финал.mp4" });

    const create = await sign(user.bearer, info.variant_id, "create");
    expect(create.key).toBe(info.key);
    const url = new URL(create.url);
    expect(url.pathname).toBe(`/api/s3/media/${info.key}`);
    expect(url.searchParams.has("uploads")).toBe(true);
    expect(Date.parse(create.expire) - Date.now()).toBeLessThanOrEqual(900_000);
    const created = await s3(create.url, { method: "POST", headers: { "content-type": "video/mp4" } });
    expect(created.headers.get("content-type")).toBe("application/xml");
    const createdXml = await created.text();
    expect(createdXml).toContain("<InitiateMultipartUploadResult");
    expect(xmlTag(createdXml, "Key")).toBe(info.key);
    expect(xmlTag(createdXml, "Bucket")).toBe("media");
    const uploadId = xmlTag(createdXml, "UploadId")!;
    expect((await rows("select upload_id from variants where id = ?", info.variant_id))[0]).toEqual({ upload_id: uploadId });

    const partUrl = await sign(user.bearer, info.variant_id, "part", { upload_id: uploadId, part_number: 1 });
    const first = await s3(partUrl.url, { method: "PUT", body: parts[0] });
    expect(first.status).toBe(200);
    expect(first.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect(first.headers.get("access-control-expose-headers")).toBe("ETag");
    const etags = [first.headers.get("etag")!, await putPart(user.bearer, info.variant_id, uploadId, 2, parts[1])];

    const list = await sign(user.bearer, info.variant_id, "list", { upload_id: uploadId });
    const listed = await (await s3(list.url, { method: "GET" })).text();
    expect(listed).toContain("<ListPartsResult");
    expect(
      [
        ...listed.matchAll(
          /<Part><PartNumber>(\d+)<\/PartNumber><LastModified>[^<]+<\/LastModified><ETag>([^<]+)<\/ETag><Size>(\d+)<\/Size><\/Part>/g,
        ),
      ].map((m) => [m[1], m[2], m[3]]),
    ).toEqual([
      ["1", etags[0].replaceAll('"', "&quot;"), String(5 * MIB)],
      ["2", etags[1].replaceAll('"', "&quot;"), "1234"],
    ]);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "pending",
      uploaded_bytes: bytes.byteLength,
    });

    const done = await complete(user.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: etags[0] },
      { partNumber: 2, etag: etags[1] },
    ]);
    const doneXml = await done.text();
    expect(done.status, doneXml).toBe(200);
    expect(done.headers.get("content-type")).toBe("application/xml");
    expect(done.headers.get("x-mam-upload-state")).toBe("ready");
    expect(doneXml).toContain("<CompleteMultipartUploadResult");
    expect(xmlTag(doneXml, "Key")).toBe(info.key);
    expect(xmlTag(doneXml, "Location")).toBe(`https://mam.test/api/upload/status/${info.variant_id}`);
    expect(xmlTag(doneXml, "ETag")).toMatch(/^&quot;.+&quot;$/);

    const sha256 = await sha256Of(bytes);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toEqual({
      variant_id: info.variant_id,
      asset_id: id,
      state: "ready",
      size: bytes.byteLength,
      asset_version: 1,
      sha256,
    });
    const versions = await json<Record<string, unknown>[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(versions).toMatchObject([{ version: 1, variant_id: info.variant_id, content_size: bytes.byteLength, file_name: "финал.mp4" }]);
    const download = await call(`/api/asset/content/download/${id}/1/initial`, { bearer: user.bearer });
    expect(download.status).toBe(200);
    expect(await sha256Of(new Uint8Array(await download.arrayBuffer()))).toBe(sha256);
    expect(await rows("select el_size from group_members where group_id = ? and el_id = ?", group, id)).toEqual([
      { el_size: bytes.byteLength },
    ]);
    expect(await rows("select * from upload_parts where variant_id = ?", info.variant_id)).toEqual([]);
    expect(tasks).toHaveBeenCalledWith({ op: "process-variant", variantId: info.variant_id, assetId: id, version: 1 });

    // Uppy retries a Complete whose answer it lost: same result, no second version.
    const again = await complete(user.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: etags[0] },
      { partNumber: 2, etag: etags[1] },
    ]);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(doneXml);
    expect(await rows("select version from asset_versions where asset_id = ?", id)).toEqual([{ version: 1 }]);
    expect(tasks).toHaveBeenCalledTimes(1);
    // The upload is over: no more parts.
    expect(
      (
        await expectError(
          await signCall(user.bearer, { variant_id: info.variant_id, op: "part", method: "PUT", upload_id: uploadId, part_number: 3 }),
          409,
        )
      ).message,
    ).toBe(ru.s3.alreadyCompleted);
  });

  it("resumes after a reload: create answers the same upload, ListParts the stored parts, the rest completes", async () => {
    captureTasks();
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const parts = [partBytes(5 * MIB, 7), partBytes(5 * MIB, 8), partBytes(10, 9)];
    const info = await startMultipart(user.bearer, id, 10 * MIB + 10);
    const uploadId = await createUpload(user.bearer, info.variant_id);
    const firstEtag = await putPart(user.bearer, info.variant_id, uploadId, 1, parts[0]);

    // The page reloads: new signatures, the same upload (a client that lost its state gets the same id back).
    expect(await createUpload(user.bearer, info.variant_id)).toBe(uploadId);
    const list = await sign(user.bearer, info.variant_id, "list", { upload_id: uploadId });
    const listed = await (await s3(list.url, { method: "GET" })).text();
    expect([...listed.matchAll(/<PartNumber>(\d+)<\/PartNumber>/g)].map((m) => m[1])).toEqual(["1"]);
    const etag1 = xmlTag(listed, "ETag")!.replaceAll("&quot;", '"');
    expect(etag1).toBe(firstEtag);
    const rest = [
      await putPart(user.bearer, info.variant_id, uploadId, 2, parts[1]),
      await putPart(user.bearer, info.variant_id, uploadId, 3, parts[2]),
    ];
    const done = await complete(user.bearer, info.variant_id, uploadId, [
      { partNumber: 1, etag: etag1 },
      { partNumber: 2, etag: rest[0] },
      { partNumber: 3, etag: rest[1] },
    ]);
    expect(done.status, await done.clone().text()).toBe(200);
    const [variant] = await rows<{ sha256: string; status: string }>("select sha256, status from variants where id = ?", info.variant_id);
    expect(variant).toEqual({ status: "ready", sha256: await sha256Of(concat(...parts)) });
  });

  it("keeps a 255-character Cyrillic file name through a multipart upload", async () => {
    captureTasks();
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const name = `${"ё".repeat(251)}.mp4`;
    expect(name.length).toBe(255);
    const bytes = partBytes(4096, 3);
    const info = await startMultipart(user.bearer, id, bytes.byteLength, { file_name: name });
    const uploadId = await createUpload(user.bearer, info.variant_id);
    const etag = await putPart(user.bearer, info.variant_id, uploadId, 1, bytes);
    expect((await complete(user.bearer, info.variant_id, uploadId, [{ partNumber: 1, etag }])).status).toBe(200);
    const [version] = await json<{ file_name: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(version.file_name).toBe(name);
    const download = await call(`/api/asset/content/download-variant/${info.variant_id}`, { bearer: user.bearer });
    expect(download.headers.get("content-disposition")).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
    await download.arrayBuffer();
  });

  it("aborts: storage drops the upload, the variant reads as aborted, a second abort is fine, nothing is visible", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startMultipart(user.bearer, id, 6 * MIB);
    const uploadId = await createUpload(user.bearer, info.variant_id);
    await putPart(user.bearer, info.variant_id, uploadId, 1, partBytes(1024, 1));
    const abort = await sign(user.bearer, info.variant_id, "abort", { upload_id: uploadId });
    const res = await s3(abort.url, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await rows("select status from variants where id = ?", info.variant_id)).toEqual([{ status: "aborted" }]);
    expect(await rows("select * from upload_parts where variant_id = ?", info.variant_id)).toEqual([]);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({ state: "aborted" });
    await expect(env.MEDIA.resumeMultipartUpload(info.key, uploadId).uploadPart(2, "x")).rejects.toThrow();
    expect((await s3(abort.url, { method: "DELETE" })).status).toBe(204);
    await expectError(
      await signCall(user.bearer, { variant_id: info.variant_id, op: "part", method: "PUT", upload_id: uploadId, part_number: 2 }),
      404,
    );
    expect(await json(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }))).toEqual([]);
  });
});

describe("PutObject through the S3 endpoint (the single form, as Uppy sends small files)", () => {
  it("stores a 0-byte file: version 1 with the SHA-256 of nothing", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await json<{ variant_id: string; key: string; mode: string }>(
      await call(`/api/asset/create-version/${id}`, {
        method: "POST",
        bearer: user.bearer,
        json: { file_name: "пусто.txt", mime_type: "text/plain", size: 0 },
      }),
    );
    expect(info.mode).toBe("single");
    await expectError(await signCall(user.bearer, { variant_id: info.variant_id, op: "create", method: "POST" }), 409);
    const put = await sign(user.bearer, info.variant_id, "put");
    expect(new URL(put.url).pathname).toBe(`/api/s3/media/${info.key}`);
    const res = await s3(put.url, { method: "PUT", headers: { "content-length": "0" } });
    expect(res.status, await res.clone().text()).toBe(200);
    const emptySha = await sha256Of(new Uint8Array(0));
    expect(res.headers.get("etag")).toBe(`"${emptySha}"`);
    expect(await json(await call(`/api/upload/status/${info.variant_id}`, { bearer: user.bearer }))).toMatchObject({
      state: "ready",
      asset_version: 1,
      sha256: emptySha,
      size: 0,
    });
    const download = await call(`/api/asset/content/download/${id}/latest/initial`, { bearer: user.bearer });
    expect(download.headers.get("content-length")).toBe("0");
    expect((await download.arrayBuffer()).byteLength).toBe(0);
  });

  it("accepts a 0-byte PUT on the classic upload link too", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await json<{ upload_url: string }>(
      await call(`/api/asset/create-version/${id}`, {
        method: "POST",
        bearer: user.bearer,
        json: { file_name: "e", mime_type: "a/b", size: 0 },
      }),
    );
    const res = await call(new URL(info.upload_url).pathname + new URL(info.upload_url).search, {
      method: "PUT",
      headers: { "content-length": "0" },
    });
    expect(await json(res, 201)).toMatchObject({ asset_version: 1, file_size: 0, checksum: await sha256Of(new Uint8Array(0)) });
  });
});

describe("S3 endpoint errors", () => {
  async function openUpload() {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startMultipart(user.bearer, id, 12 * MIB);
    const uploadId = await createUpload(user.bearer, info.variant_id);
    return { user, id, info, uploadId };
  }

  it("refuses part numbers 0 and 10001 (400 InvalidArgument) and a missing Content-Length (411)", async () => {
    const { user, info, uploadId } = await openUpload();
    const signed = await sign(user.bearer, info.variant_id, "part", { upload_id: uploadId, part_number: 1 });
    for (const n of ["0", "10001", "x"]) {
      const url = new URL(signed.url);
      url.searchParams.set("partNumber", n);
      await expectS3Error(await s3(url.href, { method: "PUT", body: "abc" }), 400, "InvalidArgument");
    }
    for (const n of [0, 10001]) {
      await expectError(
        await signCall(user.bearer, { variant_id: info.variant_id, op: "part", method: "PUT", upload_id: uploadId, part_number: n }),
        400,
      );
    }
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(3));
        c.close();
      },
    });
    const res = await s3(signed.url, { method: "PUT", body: stream });
    if (res.status === 411) await expectS3Error(res, 411, "MissingContentLength");
    else expect(res.status).toBe(200); // the runtime may have buffered the stream and set the length itself
    await expectS3Error(await s3(signed.url, { method: "PUT", body: new Uint8Array(16 * MIB + 1) }), 400, "EntityTooLarge");
  });

  it("answers unknown operations and paths with S3 XML (400/405/404)", async () => {
    const { user, info } = await openUpload();
    const signed = await sign(user.bearer, info.variant_id, "create");
    const url = new URL(signed.url);
    await expectS3Error(await s3(`${url.origin}${url.pathname}?${url.search.slice(1)}`, { method: "GET" }), 400, "InvalidRequest");
    await expectS3Error(await s3(signed.url, { method: "PATCH" }), 405, "MethodNotAllowed");
    await expectS3Error(await call(`/api/s3/media/other/${newId()}`, { method: "GET" }), 404, "NoSuchKey");
    await expectS3Error(
      await call(`/api/s3/bucket/assets/${newId()}/${newId()}?uploads&u=x&exp=1&sig=x`, { method: "POST" }),
      404,
      "NoSuchKey",
    );
  });
});

describe("S3 endpoint security: every call needs its own valid signature", () => {
  async function setup() {
    const owner = await signIn();
    const id = await createAsset(owner.bearer);
    const info = await startMultipart(owner.bearer, id, 12 * MIB);
    const uploadId = await createUpload(owner.bearer, info.variant_id);
    const part1 = await sign(owner.bearer, info.variant_id, "part", { upload_id: uploadId, part_number: 1 });
    return { owner, id, info, uploadId, part1 };
  }

  const withQuery = (signed: Signed | string, change: (q: URLSearchParams) => void) => {
    const url = new URL(typeof signed === "string" ? signed : signed.url);
    change(url.searchParams);
    return url.href;
  };

  it("refuses forged, expired, replayed and re-targeted signatures with 403 XML, storing nothing", async () => {
    const { owner, info, uploadId, part1 } = await setup();
    const body = partBytes(1024, 5);
    const refused = async (url: string, method = "PUT") =>
      expectS3Error(await s3(url, { method, body: method === "PUT" ? body : undefined }), 403, "AccessDenied");

    // Forged: a changed signature, a missing one, another user's id under the owner's signature.
    await refused(withQuery(part1, (q) => q.set("sig", tamperedSig(q.get("sig")!))));
    await refused(withQuery(part1, (q) => q.delete("sig")));
    const stranger = await signIn();
    await refused(withQuery(part1, (q) => q.set("u", stranger.id)));
    // Expired.
    await refused(
      `${new URL(part1.url).origin}${new URL(part1.url).pathname}?partNumber=1&uploadId=${encodeURIComponent(uploadId)}&${await forgedQuery(
        "part",
        owner.id,
        info.variant_id,
        uploadId,
        1,
        -1,
      )}`,
    );
    // Replayed for another part, another upload id, another operation, another object.
    await refused(withQuery(part1, (q) => q.set("partNumber", "2")));
    await refused(withQuery(part1, (q) => q.set("uploadId", `${uploadId}x`)));
    await refused(
      withQuery(part1, (q) => q.delete("partNumber")),
      "DELETE",
    );
    await refused(
      withQuery(part1, (q) => q.delete("partNumber")),
      "GET",
    );
    const other = await startMultipart(owner.bearer, await createAsset(owner.bearer), 12 * MIB);
    await refused(part1.url.replace(info.key, other.key));
    // A list signature used to abort, a create signature used to complete.
    const list = await sign(owner.bearer, info.variant_id, "list", { upload_id: uploadId });
    await refused(list.url, "DELETE");
    const create = await sign(owner.bearer, info.variant_id, "create");
    await refused(
      withQuery(create, (q) => (q.delete("uploads"), q.set("uploadId", uploadId))),
      "POST",
    );
    // Another user's own valid signature for this object (the server would never issue it): still refused.
    await refused(
      `${new URL(part1.url).origin}${new URL(part1.url).pathname}?partNumber=1&uploadId=${encodeURIComponent(uploadId)}&${await forgedQuery(
        "part",
        stranger.id,
        info.variant_id,
        uploadId,
        1,
      )}`,
    );
    expect(await rows("select * from upload_parts where variant_id = ?", info.variant_id)).toEqual([]);
    // The genuine URL still works.
    expect((await s3(part1.url, { method: "PUT", body })).status).toBe(200);
  });

  it("stops honouring signatures of a disabled user", async () => {
    const { owner, info, part1 } = await setup();
    await env.DB.prepare("update users set enabled = 0 where id = ?").bind(owner.id).run();
    await expectS3Error(await s3(part1.url, { method: "PUT", body: partBytes(10, 1) }), 403, "AccessDenied");
    void info;
  });

  it("signs only for the user who started the upload, with the right method, upload id and key", async () => {
    const { owner, info, uploadId } = await setup();
    const stranger = await signIn();
    const ask = (who: string, body: Record<string, unknown>) => signCall(who, { variant_id: info.variant_id, ...body });
    await expectError(await ask(stranger.bearer, { op: "part", method: "PUT", upload_id: uploadId, part_number: 1 }), 404);
    await expectError(
      await call("/api/upload/sign", { method: "POST", json: { variant_id: info.variant_id, op: "create", method: "POST" } }),
      401,
    );
    await expectError(await ask(owner.bearer, { op: "part", method: "POST", upload_id: uploadId, part_number: 1 }), 400);
    await expectError(await ask(owner.bearer, { op: "part", method: "PUT", part_number: 1 }), 400);
    await expectError(await ask(owner.bearer, { op: "part", method: "PUT", upload_id: "other-upload", part_number: 1 }), 404);
    await expectError(await ask(owner.bearer, { op: "create", method: "POST", key: "assets/x/y" }), 400);
    await expectError(await ask(owner.bearer, { op: "put", method: "PUT" }), 409);
    await expectError(await signCall(owner.bearer, { variant_id: newId(), op: "create", method: "POST" }), 404);
    await expectError(await call(`/api/upload/status/${info.variant_id}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/upload/status/${newId()}`, { bearer: owner.bearer }), 404);
    // Trashed asset: no more signing.
    await call(`/api/asset/${info.key.split("/")[1]}`, { method: "DELETE", bearer: owner.bearer });
    await expectError(await ask(owner.bearer, { op: "list", method: "GET", upload_id: uploadId }), 404);
  });

  it("refuses a signature for an upload the client never created (no upload id yet)", async () => {
    const owner = await signIn();
    const id = await createAsset(owner.bearer);
    const info = await startMultipart(owner.bearer, id, 12 * MIB);
    const before = await snapshot(id);
    expect(
      (await expectError(await signCall(owner.bearer, { variant_id: info.variant_id, op: "list", method: "GET", upload_id: "abc" }), 409))
        .message,
    ).toBe(ru.s3.notStarted);
    const url = `/api/s3/media/${info.key}?uploadId=abc&${await forgedQuery("complete", owner.id, info.variant_id, "abc")}`;
    await expectS3Error(await call(url, { method: "POST", body: completeXml([{ partNumber: 1, etag: "x" }]) }), 404, "NoSuchUpload");
    expect(await snapshot(id)).toEqual(before);
  });
});
