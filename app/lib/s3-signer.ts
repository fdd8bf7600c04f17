import type { MultipartUploadInfo, UploadInfo } from "../../workers/services/library";
import { MIN_PART_BYTES, partSizeFor, type S3Op } from "../../workers/services/storage/pure";
import type { SignedRequest, UploadStatus } from "../../workers/services/uploads";
import { apiRequest, type RequestOptions } from "./api-client";

/**
 * The browser half of multipart uploads: Uppy's `@uppy/aws-s3` (v6, `signRequest` mode) asks our API to sign each S3
 * call (POST /api/upload/sign) and sends it to our S3-compatible endpoints (/api/s3). The object key is always the
 * server's (`assets/<asset>/<variant>` from create-version), so the signer knows the variant from the key alone,
 * also after a reload (Uppy keeps `{ uploadId, key }` for resumable uploads).
 *
 * @example
 *   import Uppy from "@uppy/core";
 *   import AwsS3 from "@uppy/aws-s3";
 *   const uppy = new Uppy().use(AwsS3, uppyS3Options({ limit: 4 }));
 *   // per file, before uppy.upload():
 *   const info = await startVersionUpload(assetId, file.data, { toGroup: groupId });
 *   uppy.setFileMeta(file.id, uploadMeta(info));
 *   // after Uppy's upload-success: wait until the version is committed (a large file is hashed for a while)
 *   const status = await waitUntilReady(info.variant_id);
 */

/** Files above this size take the multipart form (resumable, parts in parallel across files); smaller ones one PUT. */
export const MULTIPART_MIN_BYTES = MIN_PART_BYTES;

/** The Uppy file meta field that holds the create-version answer of the file. */
export const UPLOAD_META = "mamUpload";

/** What a file's meta must hold before Uppy uploads it: the create-version answer (either form). */
export type UploadTarget =
  | Pick<UploadInfo, "mode" | "variant_id" | "key">
  | Pick<MultipartUploadInfo, "mode" | "variant_id" | "key" | "part_size">;

/** A request Uppy's S3 client wants signed (its `PresignableRequest`). */
export interface S3PresignableRequest {
  method: "PUT" | "POST" | "GET" | "DELETE";
  key: string;
  uploadId?: string;
  partNumber?: number;
  contentType?: string;
  expiresIn?: number;
}

/** What `signRequest` answers Uppy (its `PresignedResponse`): the signed URL, our key, headers to send. */
export interface S3PresignedResponse {
  url: string;
  key?: string;
  headers?: Record<string, string>;
}

/** The API call the signer makes; `apiRequest` by default (tests pass their own). */
export type ApiRequestFn = <T>(path: string, options?: RequestOptions) => Promise<T>;

const VARIANT_IN_KEY = /^assets\/[0-9a-f]{32}\/([0-9a-f]{32})$/;

/** The variant id in one of our object keys (`assets/<asset>/<variant>`), or null for any other key. */
export function variantIdOfKey(key: string): string | null {
  return VARIANT_IN_KEY.exec(key)?.[1] ?? null;
}

/**
 * The S3 operation of an Uppy request: POST without upload id = create; PUT with part number = part; GET = list;
 * POST with upload id = complete; DELETE with upload id = abort; PUT alone = put (single PutObject). Null otherwise
 * (Uppy's DeleteObject: never signed).
 */
export function s3OpOfRequest(request: S3PresignableRequest): S3Op | null {
  const hasUpload = typeof request.uploadId === "string" && request.uploadId !== "";
  switch (request.method) {
    case "POST":
      return hasUpload ? "complete" : "create";
    case "PUT":
      if (hasUpload) return request.partNumber !== undefined ? "part" : null;
      return "put";
    case "GET":
      return hasUpload ? "list" : null;
    case "DELETE":
      return hasUpload ? "abort" : null;
  }
}

/**
 * Adapts Uppy v6's `signRequest(request)` to POST /api/upload/sign: the variant comes from the key, the operation
 * from the method and parameters. Answers `{ url, key, headers }`; Uppy adopts `key` on create and PutObject.
 * Errors are ApiErrors (no toast unless `toast: true`: the upload engine reports them).
 * @example new Uppy().use(AwsS3, { signRequest: makeSignRequest(), shouldUseMultipart: … })
 */
export function makeSignRequest(options: { request?: ApiRequestFn; toast?: boolean } = {}) {
  const request = options.request ?? apiRequest;
  return async (s3: S3PresignableRequest): Promise<S3PresignedResponse> => {
    const variantId = variantIdOfKey(s3.key);
    const op = s3OpOfRequest(s3);
    if (!variantId || !op) throw new Error(`s3-signer: cannot sign ${s3.method} ${s3.key}`);
    const signed = await request<SignedRequest>("/api/upload/sign", {
      method: "POST",
      toast: options.toast ?? false,
      body: {
        variant_id: variantId,
        op,
        method: s3.method,
        key: s3.key,
        ...(op !== "create" && op !== "put" ? { upload_id: s3.uploadId } : {}),
        ...(op === "part" ? { part_number: s3.partNumber } : {}),
      },
    });
    return { url: signed.url, key: signed.key, ...(signed.headers ? { headers: signed.headers } : {}) };
  };
}

interface UppyFileLike {
  name?: string;
  size?: number | null;
  meta: Record<string, unknown>;
}

function targetOf(file: UppyFileLike): UploadTarget {
  const target = file.meta[UPLOAD_META] as UploadTarget | undefined;
  if (!target?.key) throw new Error(`s3-signer: ${file.name ?? "file"} has no upload target; set uploadMeta(createVersionAnswer) first`);
  return target;
}

/**
 * Options for `uppy.use(AwsS3, …)`: our signer; multipart exactly when create-version chose the multipart form;
 * the part size the server expects (the same rule as create-version); our object key; `limit` files at a time.
 * @example new Uppy().use(AwsS3, uppyS3Options({ limit: 4 }))
 */
export function uppyS3Options(options: { limit?: number; request?: ApiRequestFn; toast?: boolean } = {}) {
  return {
    signRequest: makeSignRequest(options),
    shouldUseMultipart: (file: UppyFileLike) => targetOf(file).mode === "multipart",
    // Uppy passes only the size: the part size follows from it exactly as on the server.
    getChunkSize: ({ size }: { size: number }) => partSizeFor(size) ?? MIN_PART_BYTES,
    generateObjectKey: (file: UppyFileLike) => targetOf(file).key,
    limit: options.limit ?? 4,
    allowedMetaFields: false,
  };
}

/** The file meta to set on an Uppy file from its create-version answer. */
export function uploadMeta(info: UploadInfo | MultipartUploadInfo): Record<typeof UPLOAD_META, UploadTarget> {
  const target: UploadTarget =
    info.mode === "multipart"
      ? { mode: info.mode, variant_id: info.variant_id, key: info.key, part_size: info.part_size }
      : { mode: info.mode, variant_id: info.variant_id, key: info.key };
  return { [UPLOAD_META]: target };
}

/**
 * POST /api/asset/create-version/{assetId} for a browser file: the multipart form above `MULTIPART_MIN_BYTES`, the
 * single form otherwise (empty files included).
 */
export function startVersionUpload(
  assetId: string,
  file: { name: string; size: number; type: string },
  options: { toGroup?: string | null; variantType?: string; request?: ApiRequestFn } = {},
): Promise<UploadInfo | MultipartUploadInfo> {
  const request = options.request ?? apiRequest;
  return request<UploadInfo | MultipartUploadInfo>(`/api/asset/create-version/${assetId}`, {
    method: "POST",
    body: {
      to_group: options.toGroup ?? null,
      variant_type: options.variantType ?? "initial",
      file_name: file.name,
      mime_type: file.type || "application/octet-stream",
      size: file.size,
      multipart: file.size > MULTIPART_MIN_BYTES,
    },
  });
}

/**
 * Polls GET /api/upload/status/{variantId} until the upload is committed ('ready') or 'aborted'; a completed
 * multipart upload stays 'saving' while its SHA-256 is computed. Bounded by `timeoutMs` (then answers the last state).
 */
export async function waitUntilReady(
  variantId: string,
  options: {
    intervalMs?: number;
    timeoutMs?: number;
    signal?: AbortSignal;
    request?: ApiRequestFn;
    /** the file it is a version of: the status is then read where the file's library lives */
    assetId?: string;
  } = {},
): Promise<UploadStatus> {
  const request = options.request ?? apiRequest;
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
  const query = options.assetId ? { a: options.assetId } : undefined;
  for (;;) {
    const status = await request<UploadStatus>(`/api/upload/status/${variantId}`, { signal: options.signal, toast: false, query });
    if (status.state === "ready" || status.state === "aborted" || Date.now() >= deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
    options.signal?.throwIfAborted();
  }
}
