import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { AppError } from "../../workers/lib/errors";
import { S3Error, s3Backend, s3ObjectUrl } from "../../workers/services/storage/s3-backend";
import { bytesOf, FakeS3, streamOf } from "./catalog-fixtures";

const OPTS = {
  endpoint: "https://s3.fake.test",
  bucket: "media-bucket",
  accessKeyId: "AKIAFAKE0123456789",
  secretAccessKey: "fake/secret+key0123456789abcdefghijklmnop",
  region: "eu-central-1",
};

function setup(overrides: Partial<typeof OPTS> = {}) {
  const fake = new FakeS3({ ...OPTS, ...overrides });
  const backend = s3Backend(
    { url: OPTS.endpoint, bucket: OPTS.bucket, region: OPTS.region },
    { accessKeyId: OPTS.accessKeyId, secretAccessKey: OPTS.secretAccessKey },
    fake.fetch,
  );
  return { fake, backend };
}

const text = (s: string) => new TextEncoder().encode(s);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("s3Backend against a fake S3 (inside workerd)", () => {
  it("puts a stream of known size, signs with SigV4, and reads it back whole", async () => {
    const { fake, backend } = setup();
    const bytes = text("Привет, S3! ".repeat(50));
    const put = await backend.put("variants/abc/def", streamOf(bytes), { contentType: "text/plain; charset=utf-8", size: bytes.length });
    expect(put).toEqual({ size: bytes.length, etag: expect.stringMatching(/^".+"$/) });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: "PUT", url: `${OPTS.endpoint}/${OPTS.bucket}/variants/abc/def`, authError: null });
    expect(fake.requests[0].authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${OPTS.accessKeyId}/\\d{8}/eu-central-1/s3/aws4_request, SignedHeaders=\\S+, Signature=[0-9a-f]{64}$`),
    );
    expect(fake.objects.get("variants/abc/def")?.body).toEqual(bytes);

    const got = await backend.get("variants/abc/def");
    expect(got).toMatchObject({ size: bytes.length, etag: put.etag, contentType: "text/plain; charset=utf-8" });
    expect(await bytesOf(got!.body)).toEqual(bytes);
  });

  it("puts buffered bodies (ArrayBuffer and Uint8Array)", async () => {
    const { fake, backend } = setup();
    await backend.put("a/one", text("one").buffer as ArrayBuffer, { contentType: "text/plain", size: 3 });
    await backend.put("a/two", text("two"), { contentType: "text/plain", size: 3 });
    expect(new TextDecoder().decode(fake.objects.get("a/one")?.body)).toBe("one");
    expect(new TextDecoder().decode(fake.objects.get("a/two")?.body)).toBe("two");
  });

  it("reads a byte range (206 with Content-Range) and reports the whole size", async () => {
    const { fake, backend } = setup();
    const bytes = text("0123456789abcdefghij");
    await backend.put("r/key", bytes, { contentType: "application/octet-stream", size: bytes.length });
    const got = await backend.get("r/key", { offset: 5, length: 4 });
    expect(fake.requests.at(-1)?.range).toBe("bytes=5-8");
    expect(got).toMatchObject({ size: 20, range: { offset: 5, length: 4 } });
    expect(new TextDecoder().decode(await bytesOf(got!.body))).toBe("5678");
  });

  it("cuts the range itself when the server ignores Range and answers 200", async () => {
    const { fake, backend } = setup();
    const bytes = text("0123456789abcdefghij");
    await backend.put("r/key", bytes, { contentType: "application/octet-stream", size: bytes.length });
    fake.ignoreRange = true;
    const got = await backend.get("r/key", { offset: 8, length: 5 });
    expect(got?.size).toBe(20);
    expect(new TextDecoder().decode(await bytesOf(got!.body))).toBe("89abc");
  });

  it("heads an object without its body", async () => {
    const { backend } = setup();
    await backend.put("h/key", text("12345"), { contentType: "image/png", size: 5 });
    expect(await backend.head("h/key")).toEqual({ size: 5, etag: expect.any(String), contentType: "image/png" });
  });

  it("answers null for a missing object on get and head", async () => {
    const { backend } = setup();
    expect(await backend.get("missing/key")).toBeNull();
    expect(await backend.head("missing/key")).toBeNull();
  });

  it("deletes many keys (missing ones are fine)", async () => {
    const { fake, backend } = setup();
    for (const k of ["d/1", "d/2", "d/3"]) await backend.put(k, text(k), { contentType: "text/plain", size: 3 });
    await backend.delete(["d/1", "d/2", "d/3", "d/never"]);
    expect(fake.objects.size).toBe(0);
    expect(fake.requests.filter((r) => r.method === "DELETE")).toHaveLength(4);
  });

  it("encodes each key segment in the path-style URL", () => {
    expect(s3ObjectUrl({ url: "https://h.test/prefix/", bucket: "b" }, "a b/ä#?")).toBe("https://h.test/prefix/b/a%20b/%C3%A4%23%3F");
  });

  it("signs keys that need encoding so the server's own canonical request matches", async () => {
    const { fake, backend } = setup();
    await backend.put("dir/имя файла (1).txt", text("x"), { contentType: "text/plain", size: 1 });
    expect(fake.requests[0].authError).toBeNull();
    expect(fake.objects.has("dir/имя файла (1).txt")).toBe(true);
  });

  it("uses region auto when none is configured", async () => {
    const fake = new FakeS3({ ...OPTS, region: "auto" });
    const backend = s3Backend({ url: OPTS.endpoint, bucket: OPTS.bucket }, { accessKeyId: OPTS.accessKeyId, secretAccessKey: OPTS.secretAccessKey }, fake.fetch);
    await backend.put("k", text("x"), { contentType: "text/plain", size: 1 });
    expect(fake.requests[0].authorization).toContain("/auto/s3/aws4_request");
    expect(fake.requests[0].authError).toBeNull();
  });

  it("sends the session token as x-amz-security-token (signed) when given", async () => {
    const fake = new FakeS3(OPTS);
    const seen: Headers[] = [];
    const backend = s3Backend(
      { url: OPTS.endpoint, bucket: OPTS.bucket, region: OPTS.region },
      { accessKeyId: OPTS.accessKeyId, secretAccessKey: OPTS.secretAccessKey, sessionToken: "session-token-1" },
      (req) => {
        seen.push(new Headers(req.headers));
        return fake.fetch(req);
      },
    );
    await backend.head("k");
    expect(seen[0].get("x-amz-security-token")).toBe("session-token-1");
    expect(fake.requests[0].authorization).toContain("x-amz-security-token");
    expect(fake.requests[0].authError).toBeNull();
  });

  it("uses the global fetch when no fetcher is given", async () => {
    const fake = new FakeS3(OPTS);
    vi.stubGlobal("fetch", fake.fetch);
    const backend = s3Backend({ url: OPTS.endpoint, bucket: OPTS.bucket, region: OPTS.region }, { accessKeyId: OPTS.accessKeyId, secretAccessKey: OPTS.secretAccessKey });
    await backend.put("g/k", text("global"), { contentType: "text/plain", size: 6 });
    expect(fake.objects.has("g/k")).toBe(true);
  });
});

describe("s3Backend: errors", () => {
  it("refuses with a 503 AppError when the secret is wrong (the server rejects the signature)", async () => {
    const fake = new FakeS3(OPTS);
    const backend = s3Backend({ url: OPTS.endpoint, bucket: OPTS.bucket, region: OPTS.region }, { accessKeyId: OPTS.accessKeyId, secretAccessKey: "wrong" }, fake.fetch);
    const error = await backend.put("k", text("x"), { contentType: "text/plain", size: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3Error);
    expect(error).toMatchObject({ status: 503, message: ru.catalog.storageUnavailable, upstreamStatus: 403, upstreamCode: "SignatureDoesNotMatch" });
    expect(fake.requests[0].authError).toBe("signature mismatch");
    expect(fake.objects.size).toBe(0);
  });

  it("retries reads on 5xx and succeeds", async () => {
    const { fake, backend } = setup();
    await backend.put("k", text("retry"), { contentType: "text/plain", size: 5 });
    fake.failNext = { count: 2, status: 503 };
    const got = await backend.get("k");
    expect(new TextDecoder().decode(await bytesOf(got!.body))).toBe("retry");
    expect(fake.requests.filter((r) => r.method === "GET")).toHaveLength(3);
  });

  it("gives up after the retries with S3Error", async () => {
    const { fake, backend } = setup();
    fake.failNext = { count: 10, status: 500 };
    await expect(backend.head("k")).rejects.toMatchObject({ status: 503, upstreamStatus: 500 });
    expect(fake.requests).toHaveLength(3);
  });

  it("never retries a streamed put (the stream is spent) and reports the failure", async () => {
    const { fake, backend } = setup();
    fake.failNext = { count: 1, status: 500 };
    await expect(backend.put("k", streamOf(text("abc")), { contentType: "text/plain", size: 3 })).rejects.toBeInstanceOf(S3Error);
    expect(fake.requests).toHaveLength(1);
  });

  it("fails a streamed put whose length differs from the declared size, storing nothing", async () => {
    const { fake, backend } = setup();
    await expect(backend.put("k", streamOf(text("abcdef")), { contentType: "text/plain", size: 3 })).rejects.toBeInstanceOf(S3Error);
    expect(fake.objects.size).toBe(0);
  });

  it("answers 400 for a range past the end (416 from S3)", async () => {
    const { backend } = setup();
    await backend.put("k", text("abc"), { contentType: "text/plain", size: 3 });
    const error = await backend.get("k", { offset: 10, length: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, message: ru.catalog.rangeNotSatisfiable });
  });

  it("maps a network failure to S3Error without leaking details", async () => {
    const backend = s3Backend({ url: OPTS.endpoint, bucket: OPTS.bucket }, { accessKeyId: "a", secretAccessKey: "b" }, () =>
      Promise.reject(new Error("connect ECONNREFUSED 10.0.0.1:443")),
    );
    const error = await backend.head("k").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, message: ru.catalog.storageUnavailable, upstreamStatus: null });
  });
});

describe("s3Backend: multipart uploads", () => {
  it("creates an upload, stores signed parts, completes into one object and reports its size and etag", async () => {
    const { fake, backend } = setup();
    const uploadId = await backend.multipart.create("big/one", "video/mp4");
    expect(fake.uploads.get(uploadId)).toMatchObject({ key: "big/one", contentType: "video/mp4" });
    const parts = [text("a".repeat(10)), text("b".repeat(4))];
    const etags = [];
    for (const [i, part] of parts.entries()) etags.push(await backend.multipart.uploadPart("big/one", uploadId, i + 1, streamOf(part), part.length));
    const done = await backend.multipart.complete("big/one", uploadId, [
      { partNumber: 1, etag: etags[0] },
      { partNumber: 2, etag: etags[1].replaceAll('"', "") },
    ]);
    expect(done.size).toBe(14);
    expect(done.etag).toMatch(/^[0-9a-f]{32}-2$/);
    expect(new TextDecoder().decode(fake.objects.get("big/one")?.body)).toBe("aaaaaaaaaabbbb");
    expect(fake.uploads.size).toBe(0);
    expect(fake.requests.every((r) => r.authError === null)).toBe(true);
    expect(fake.requests.map((r) => `${r.method} ${new URL(r.url).search}`)).toEqual([
      "POST ?uploads",
      `PUT ?partNumber=1&uploadId=${uploadId}`,
      `PUT ?partNumber=2&uploadId=${uploadId}`,
      `POST ?uploadId=${uploadId}`,
      "HEAD ",
    ]);
  });

  it("answers NoSuchUpload for a part or a completion of an unknown upload, and aborting one is not an error", async () => {
    const { fake, backend } = setup();
    const uploadId = await backend.multipart.create("big/two", "application/octet-stream");
    await backend.multipart.abort("big/two", uploadId);
    expect(fake.uploads.size).toBe(0);
    await backend.multipart.abort("big/two", uploadId);
    const part = await backend.multipart.uploadPart("big/two", uploadId, 1, streamOf(text("x")), 1).catch((e: unknown) => e);
    expect(part).toMatchObject({ s3Code: "NoSuchUpload", message: ru.s3.uploadNotFound });
    const done = await backend.multipart.complete("big/two", uploadId, [{ partNumber: 1, etag: "x" }]).catch((e: unknown) => e);
    expect(done).toMatchObject({ s3Code: "NoSuchUpload" });
  });

  it("reports an error the bucket puts into a 200 answer of Complete as unavailable storage", async () => {
    const { fake, backend } = setup();
    const uploadId = await backend.multipart.create("big/three", "application/octet-stream");
    await backend.multipart.uploadPart("big/three", uploadId, 1, streamOf(text("y")), 1);
    const error = await backend.multipart.complete("big/three", uploadId, [{ partNumber: 1, etag: "wrong" }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3Error);
    expect(error).toMatchObject({ status: 503, upstreamCode: "InvalidPart" });
    expect(fake.objects.has("big/three")).toBe(false);
  });
});
