import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { signLink } from "../../workers/lib/signed-url";
import { S3_OP_PURPOSE, s3SignedObject, type S3Op } from "../../workers/services/storage/multipart-plan";
import { call } from "./factories";
import { json, pathOf } from "./asset-fixtures";

/** Test data and calls for multipart uploads: create-version's multipart form, signing, the S3 endpoints. */

export const MIB = 1024 * 1024;

export interface MultipartInfo {
  mode: "multipart";
  variant_id: string;
  /** the version create-version made (issue 29) */
  version: number;
  key: string;
  part_size: number;
  expire: string;
  max_size: number;
  sign_url: string;
}

export interface Signed {
  url: string;
  method: string;
  key: string;
  expire: string;
}

/** POST /api/asset/create-version/{id} asking for the multipart form. */
export async function startMultipart(
  bearer: string,
  assetId: string,
  size: number,
  body: Record<string, unknown> = {},
): Promise<MultipartInfo> {
  const res = await call(`/api/asset/create-version/${assetId}`, {
    method: "POST",
    bearer,
    json: { file_name: "clip.mp4", mime_type: "video/mp4", size, multipart: true, ...body },
  });
  const info = await json<MultipartInfo>(res);
  expect(info.mode).toBe("multipart");
  return info;
}

/** POST /api/upload/sign (raw answer). */
export function signCall(bearer: string, body: Record<string, unknown>): Promise<Response> {
  return call("/api/upload/sign", { method: "POST", bearer, json: body });
}

const METHOD: Record<S3Op, string> = { create: "POST", part: "PUT", list: "GET", complete: "POST", abort: "DELETE", put: "PUT" };

/** Signs one S3 call through the API; fails the test unless 200. */
export async function sign(
  bearer: string,
  variantId: string,
  op: S3Op,
  extra: { upload_id?: string; part_number?: number } = {},
): Promise<Signed> {
  return json<Signed>(await signCall(bearer, { variant_id: variantId, op, method: METHOD[op], ...extra }));
}

/** Sends an S3 call to a signed URL (the test calls the Worker directly). */
export function s3(url: string, init: { method: string; body?: BodyInit; headers?: Record<string, string> }): Promise<Response> {
  return call(pathOf(url), init);
}

/** The text of the first `<tag>` in an XML answer. */
export function xmlTag(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** Asserts an S3 XML error answer and returns its code. */
export async function expectS3Error(res: Response, status: number, code?: string): Promise<string> {
  const body = await res.text();
  expect(res.status, body).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/xml");
  expect(body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>\w+<\/Code><Message>[^<]+<\/Message>/);
  const found = xmlTag(body, "Code")!;
  if (code) expect(found).toBe(code);
  return found;
}

/** CreateMultipartUpload through a fresh signature; answers the upload id. */
export async function createUpload(bearer: string, variantId: string): Promise<string> {
  const signed = await sign(bearer, variantId, "create");
  const res = await s3(signed.url, { method: "POST" });
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return xmlTag(body, "UploadId")!;
}

/** UploadPart through a fresh signature; answers the ETag header. */
export async function putPart(
  bearer: string,
  variantId: string,
  uploadId: string,
  partNumber: number,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const signed = await sign(bearer, variantId, "part", { upload_id: uploadId, part_number: partNumber });
  const res = await s3(signed.url, { method: "PUT", body: bytes });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.headers.get("etag")!;
}

/** A CompleteMultipartUpload body. */
export function completeXml(parts: { partNumber: number; etag: string }[]): string {
  return `<CompleteMultipartUpload>${parts
    .map((p) => `<Part><PartNumber>${p.partNumber}</PartNumber><ETag>${p.etag}</ETag></Part>`)
    .join("")}</CompleteMultipartUpload>`;
}

/** CompleteMultipartUpload through a fresh signature (raw answer). */
export async function complete(
  bearer: string,
  variantId: string,
  uploadId: string,
  parts: { partNumber: number; etag: string }[],
): Promise<Response> {
  const signed = await sign(bearer, variantId, "complete", { upload_id: uploadId });
  return s3(signed.url, { method: "POST", body: completeXml(parts), headers: { "content-type": "application/xml" } });
}

/** Signed-URL query made with the test secret, for forging and expiring signatures. */
export async function forgedQuery(op: S3Op, userId: string, variantId: string, uploadId?: string, partNumber?: number, expIn = 600) {
  const exp = Math.floor(Date.now() / 1000) + expIn;
  return new URLSearchParams(
    await signLink(env.JWT_SECRET, { purpose: S3_OP_PURPOSE[op], id: s3SignedObject(variantId, uploadId, partNumber), userId, exp }),
  );
}

/** Captures what the code sends to the TASKS queue instead of letting the local queue deliver it. */
export function captureTasks() {
  return vi.spyOn(env.TASKS, "send").mockResolvedValue({} as QueueSendResponse);
}

/** Bytes that differ from part to part: `size` bytes starting at value `seed`. */
export function partBytes(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) out[i] = (seed + i / 4096) % 256;
  out[size - 1] = seed;
  return out;
}

/** Concatenation of byte arrays. */
export function concat(...chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
