import { afterEach, describe, expect, it, vi } from "vitest";
import { s3Backend } from "../../workers/services/storage/s3-backend";
import { call, expectError, signInAdmin } from "./factories";
import { uniqueName } from "./catalog-fixtures";

/**
 * The storage endpoint filter inside workerd: hostile spellings through the API (the route and the service judge the
 * URL as fetch will see it), and the backend's own requests, which must not follow a redirect that an endpoint on a
 * public address answers towards an internal one.
 */

afterEach(() => {
  vi.unstubAllGlobals();
});

const CREDS = { user: "AKIAFAKEEXAMPLE01", passwd: "very/secret+passwd-0123456789" };

describe("POST /api/storage/create with hostile endpoints", () => {
  it.each([
    "http://2130706433:9000", // 127.0.0.1 in decimal
    "http://0177.0.0.1", // octal
    "http://0x7f.1", // hex, short form
    "http://2852039166/latest/meta-data", // 169.254.169.254 in decimal
    "http://[::ffff:a9fe:a9fe]", // IPv4-mapped metadata address, in hex groups
    "http://[::ffff:0:10.0.0.1]", // IPv4-translated
    "http://[2002:a9fe:a9fe::]", // 6to4 of the metadata address
    "http://[64:ff9b:1::a00:1]", // local-use NAT64
    "http://[fec0::1]", // site-local
    "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ:9000",
    "http://s3.example.com@127.0.0.1",
    "ftp://s3.example.com",
  ])("refuses %s with 400 before any call", async (url) => {
    const calls: string[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return new Response("<ListBucketResult/>");
    });
    const admin = await signInAdmin();
    const error = await expectError(
      await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: uniqueName("S3"), setup: { url, bucket: "b1" }, creds: CREDS } }),
      400,
    );
    expect(error.message).toContain("«setup.url»");
    expect(calls).toEqual([]);
  });
});

describe("the S3 backend's requests", () => {
  function recordingBackend(answer: (request: Request) => Response) {
    const seen: { url: string; redirect: string }[] = [];
    const backend = s3Backend({ url: "https://s3.public.example", bucket: "media" }, { accessKeyId: "AKIA", secretAccessKey: "secret" }, async (request) => {
      seen.push({ url: request.url, redirect: request.redirect });
      await request.body?.cancel();
      return answer(request);
    });
    return { backend, seen };
  }

  it("every request is sent with redirect: manual (fetch would otherwise follow a 302 to an internal address)", async () => {
    const { backend, seen } = recordingBackend((request) => {
      const url = new URL(request.url);
      if (url.searchParams.has("uploads")) return new Response("<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>");
      if (request.method === "POST") return new Response("<CompleteMultipartUploadResult/>");
      return new Response(request.method === "HEAD" ? null : "x", { headers: { etag: '"e"', "content-length": "1" } });
    });
    await backend.put("a/b", new TextEncoder().encode("x").buffer as ArrayBuffer, { contentType: "text/plain", size: 1 });
    await (await backend.get("a/b"))?.body?.cancel();
    await backend.head("a/b");
    await backend.delete(["a/b"]);
    const id = await backend.multipart.create("a/c", "text/plain");
    await backend.multipart.uploadPart("a/c", id, 1, new Blob(["x"]).stream(), 1);
    await backend.multipart.complete("a/c", id, [{ partNumber: 1, etag: "e" }]);
    await backend.multipart.abort("a/c", id);
    expect(seen.length).toBeGreaterThanOrEqual(9);
    expect(seen.filter((s) => s.redirect !== "manual")).toEqual([]);
  });

  it("a 302 towards the metadata address is a failure (503), not followed", async () => {
    const { backend, seen } = recordingBackend(
      () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/iam/security-credentials/" } }),
    );
    await expect(backend.get("a/b")).rejects.toMatchObject({ status: 503 });
    await expect(backend.head("a/b")).rejects.toMatchObject({ status: 503 });
    expect(seen.every((s) => s.url.startsWith("https://s3.public.example/"))).toBe(true);
  });
});
