import type { SignedPurpose } from "../../lib/signed-url";

/**
 * The numbers and names of multipart uploads, shared by create-version (asset-content.service), the signing and S3
 * endpoints (multipart.service) and their tests. Pure: no bindings.
 */

const MiB = 1024 * 1024;

/** Largest single-request upload: under the Workers request body limit (100 MB) with room for headers. */
export const MAX_SINGLE_UPLOAD_BYTES = 95 * MiB;
/** S3's (and R2's) smallest part, except the last. */
export const MIN_PART_BYTES = 5 * MiB;
/** S3's (and R2's) part number range is 1 … MAX_PARTS. */
export const MAX_PARTS = 10_000;
/** The part size create-version proposes: large enough for few requests, small enough to retry cheaply. */
export const DEFAULT_PART_BYTES = 16 * MiB;
/** Parts travel through the Worker, so one part is bounded by the request body limit like a single PUT. */
export const MAX_PART_BYTES = MAX_SINGLE_UPLOAD_BYTES;
/** The hard cap of one file (S3's object limit); `UPLOAD_MAX_BYTES` may lower it. */
export const TECHNICAL_MAX_UPLOAD_BYTES = 5 * 1024 ** 4;
/** Files above this many bytes always take the multipart form. */
export const MULTIPART_THRESHOLD_BYTES = MAX_SINGLE_UPLOAD_BYTES;
/** Lifetime of a signed S3 request URL. */
export const S3_LINK_TTL_SECONDS = 15 * 60;
/** A multipart upload without a stored part for this long is aborted by the cleanup. */
export const STALE_UPLOAD_MS = 24 * 3600 * 1000;
/** The bucket segment of our S3 URLs: the label of the R2 binding MEDIA. */
export const BUCKET_LABEL = "media";

/**
 * The part size for a file of `size` bytes: the default, or larger when the default would need more than 10,000
 * parts (rounded up to whole MiB). Null when even the largest part that fits a Worker request is not enough.
 * @example partSizeFor(1024 ** 3) // 16 MiB
 */
export function partSizeFor(size: number): number | null {
  const needed = Math.ceil(Math.ceil(size / MAX_PARTS) / MiB) * MiB;
  const part = Math.max(DEFAULT_PART_BYTES, needed);
  return part <= MAX_PART_BYTES ? part : null;
}

/** The operations of the S3 endpoints a signed URL may be for. */
export const S3_OPS = ["create", "part", "list", "complete", "abort", "put"] as const;
export type S3Op = (typeof S3_OPS)[number];

/** The HTTP method of each operation (CreateMultipartUpload, UploadPart, ListParts, Complete…, Abort…, PutObject). */
export const S3_OP_METHOD: Record<S3Op, "POST" | "PUT" | "GET" | "DELETE"> = {
  create: "POST",
  part: "PUT",
  list: "GET",
  complete: "POST",
  abort: "DELETE",
  put: "PUT",
};

/** The signed-link purpose of each operation. */
export const S3_OP_PURPOSE: Record<S3Op, SignedPurpose> = {
  create: "s3-create",
  part: "s3-part",
  list: "s3-list",
  complete: "s3-complete",
  abort: "s3-abort",
  put: "s3-put",
};

/**
 * The object a signed S3 URL is for, as the HMAC covers it: the variant, and for calls on an open upload its upload
 * id, and for UploadPart the part number. A URL for part 3 therefore cannot send part 4, nor another upload's part 3.
 */
export function s3SignedObject(variantId: string, uploadId?: string | null, partNumber?: number | null): string {
  return [variantId, uploadId ?? "", partNumber ?? ""].join(":");
}

/** Upload ids are opaque strings from storage; anything else in a query is refused before any lookup. */
export const UPLOAD_ID_PATTERN = /^[A-Za-z0-9+/=._~-]{1,1024}$/;

/**
 * Which operation an S3 request is, from its method and query (as Uppy's S3 client sends them), or null.
 * @example s3OpOf("PUT", new URLSearchParams("partNumber=1&uploadId=x")) // "part"
 */
export function s3OpOf(method: string, query: URLSearchParams): S3Op | null {
  const hasUpload = query.has("uploadId");
  switch (method.toUpperCase()) {
    case "POST":
      if (query.has("uploads") && !hasUpload) return "create";
      return hasUpload && !query.has("uploads") ? "complete" : null;
    case "PUT":
      if (hasUpload && query.has("partNumber")) return "part";
      return !hasUpload && !query.has("partNumber") ? "put" : null;
    case "GET":
      return hasUpload ? "list" : null;
    case "DELETE":
      return hasUpload ? "abort" : null;
    default:
      return null;
  }
}
