import { describe, expect, it, vi } from "vitest";
import {
  MULTIPART_MIN_BYTES,
  UPLOAD_META,
  makeSignRequest,
  s3OpOfRequest,
  startVersionUpload,
  uploadMeta,
  uppyS3Options,
  variantIdOfKey,
  waitUntilReady,
  type ApiRequestFn,
} from "../../app/lib/s3-signer";

const ASSET = "0".repeat(31) + "a";
const VARIANT = "0".repeat(31) + "b";
const KEY = `assets/${ASSET}/${VARIANT}`;

function fakeApi(answer: unknown) {
  const fn = vi.fn(async () => answer);
  return { fn, request: fn as unknown as ApiRequestFn };
}

describe("makeSignRequest", () => {
  it.each([
    [{ method: "POST", key: KEY }, { op: "create" }],
    [
      { method: "PUT", key: KEY, uploadId: "U", partNumber: 7 },
      { op: "part", upload_id: "U", part_number: 7 },
    ],
    [
      { method: "GET", key: KEY, uploadId: "U" },
      { op: "list", upload_id: "U" },
    ],
    [
      { method: "POST", key: KEY, uploadId: "U" },
      { op: "complete", upload_id: "U" },
    ],
    [
      { method: "DELETE", key: KEY, uploadId: "U" },
      { op: "abort", upload_id: "U" },
    ],
    [{ method: "PUT", key: KEY, contentType: "video/mp4" }, { op: "put" }],
  ] as const)("signs %j as %j through POST /api/upload/sign", async (request, expected) => {
    const { fn, request: api } = fakeApi({ url: "https://mam.test/api/s3/media/x?sig=1", method: request.method, key: KEY, expire: "t" });
    const signed = await makeSignRequest({ request: api })(request);
    expect(signed).toEqual({ url: "https://mam.test/api/s3/media/x?sig=1", key: KEY });
    expect(fn).toHaveBeenCalledWith("/api/upload/sign", {
      method: "POST",
      toast: false,
      body: { variant_id: VARIANT, method: request.method, key: KEY, ...expected },
    });
  });

  it("refuses keys that are not ours and requests it cannot sign", async () => {
    const { request } = fakeApi({});
    await expect(makeSignRequest({ request })({ method: "POST", key: "uuid-clip.mp4" })).rejects.toThrow(/cannot sign/);
    await expect(makeSignRequest({ request })({ method: "DELETE", key: KEY })).rejects.toThrow(/cannot sign/);
    expect(s3OpOfRequest({ method: "PUT", key: KEY, uploadId: "U" })).toBeNull();
    expect(variantIdOfKey(KEY)).toBe(VARIANT);
    expect(variantIdOfKey(`${KEY}/x`)).toBeNull();
  });
});

describe("uppyS3Options", () => {
  it("follows the create-version answer: multipart or not, our key, the server's part size", () => {
    const options = uppyS3Options({ limit: 3 });
    const multipart = {
      name: "a",
      meta: uploadMeta({
        mode: "multipart",
        variant_id: VARIANT,
        version: 2,
        key: KEY,
        part_size: 16 << 20,
        expire: "",
        max_size: 1,
        sign_url: "/api/upload/sign",
      }),
    };
    const single = { name: "b", meta: { [UPLOAD_META]: { mode: "single", variant_id: VARIANT, key: KEY } } };
    expect(options.shouldUseMultipart(multipart)).toBe(true);
    expect(options.shouldUseMultipart(single)).toBe(false);
    expect(options.generateObjectKey(multipart)).toBe(KEY);
    expect(options.getChunkSize({ size: 1024 ** 3 })).toBe(16 << 20);
    expect(options.limit).toBe(3);
    expect(() => options.generateObjectKey({ name: "c", meta: {} })).toThrow(/uploadMeta/);
  });
});

describe("startVersionUpload and waitUntilReady", () => {
  it("asks for the multipart form above 5 MiB only", async () => {
    const { fn, request } = fakeApi({ mode: "single" });
    await startVersionUpload(ASSET, { name: "a.mp4", size: MULTIPART_MIN_BYTES, type: "" }, { toGroup: "g", request });
    await startVersionUpload(ASSET, { name: "a.mp4", size: MULTIPART_MIN_BYTES + 1, type: "video/mp4" }, { request });
    const bodies = fn.mock.calls.map((c) => (c as unknown as [string, { body: Record<string, unknown> }])[1].body);
    expect(bodies[0]).toMatchObject({ multipart: false, mime_type: "application/octet-stream", to_group: "g", size: MULTIPART_MIN_BYTES });
    expect(bodies[1]).toMatchObject({ multipart: true, mime_type: "video/mp4", to_group: null });
  });

  it("polls the status until the upload is ready", async () => {
    const states = ["saving", "saving", "ready"];
    const fn = vi.fn(async () => ({ state: states.shift() }));
    const status = await waitUntilReady(VARIANT, { intervalMs: 1, request: fn as unknown as ApiRequestFn });
    expect(status.state).toBe("ready");
    expect(fn).toHaveBeenCalledTimes(3);
    expect(fn).toHaveBeenCalledWith(`/api/upload/status/${VARIANT}`, { signal: undefined, toast: false });
  });
});
