/** Signing each S3 call of a multipart upload for the browser (POST /api/upload/sign), and the upload's status. */
import { ru } from "../../../shared/i18n/ru";
import { findReadyVariant, findVariant } from "../../db/repositories/asset-versions.repository";
import { selectParts } from "../../db/repositories/multipart.repository";
import type { VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { signLink } from "../../lib/signed-url";
import { requireAsset } from "../library";
import type { Actor, RequestContext } from "../access";
import {
  BUCKET_LABEL,
  MAX_PARTS,
  S3_LINK_TTL_SECONDS,
  S3_OP_METHOD,
  S3_OP_PURPOSE,
  UPLOAD_ID_PATTERN,
  s3SignedObject,
  type S3Op,
} from "../storage/pure";
import { nowSeconds } from "./multipart.service";

// ---------------------------------------------------------------------------------------------------------------
// Signing (POST /api/upload/sign)

/** What the browser asks to have signed: one S3 call of one upload (Uppy's `signRequest`, via app/lib/s3-signer.ts). */
export interface SignInput {
  variant_id: string;
  op: S3Op;
  method: "POST" | "PUT" | "GET" | "DELETE";
  upload_id?: string;
  part_number?: number;
  /** the object key Uppy asks about; when given it must be the variant's */
  key?: string;
}

/** A signed S3 call: send `method` to `url` (no bearer; the URL carries the signature) with `headers`. */
export interface SignedRequest {
  /** root-relative unless the caller resolves it against its origin */
  url: string;
  method: "POST" | "PUT" | "GET" | "DELETE";
  /** the object key (for Uppy: the key of the upload from now on) */
  key: string;
  expire: string;
  headers?: Record<string, string>;
}

/** `/api/s3/<bucket>/<key>` of a variant's object. */
function objectPath(variant: VariantRow): string {
  return `/api/s3/${BUCKET_LABEL}/${variant.storageKey}`;
}

/** The S3 query of an operation (`uploads`, `uploadId`, `partNumber`) followed by the signature. */
function s3Query(op: S3Op, uploadId: string | null, partNumber: number | null, signature: Record<string, string>): string {
  const parts: string[] = [];
  if (op === "create") parts.push("uploads");
  if (op === "part") parts.push(`partNumber=${partNumber}`);
  if (uploadId && op !== "create" && op !== "put") parts.push(`uploadId=${encodeURIComponent(uploadId)}`);
  return [...parts, new URLSearchParams(signature).toString()].join("&");
}

/**
 * Signs one S3 call of the actor's upload for 15 minutes. The signature binds the user, the variant, the operation
 * and, for calls on an open upload, its upload id and part number; so it cannot be replayed for another object,
 * part, operation or user. Checks now: the actor started this upload and still holds create on the asset (and on
 * the target group), the variant is in a state where the operation makes sense, and the method matches the operation.
 * @example await signS3Request(rc, actor, { variant_id, op: "part", method: "PUT", upload_id, part_number: 3 })
 */
export async function signS3Request(rc: RequestContext, actor: Actor, input: SignInput): Promise<SignedRequest> {
  if (S3_OP_METHOD[input.op] !== input.method) throw new AppError("BAD_REQUEST", ru.s3.methodMismatch(input.op, S3_OP_METHOD[input.op]));
  const variant = await findVariant(rc.db, input.variant_id);
  if (!variant || variant.userId !== actor.id) throw new AppError("NOT_FOUND", ru.s3.uploadNotFound);
  await requireAsset(rc, actor, variant.assetId, "create");
  if (input.key !== undefined && input.key !== variant.storageKey) throw new AppError("BAD_REQUEST", ru.s3.keyMismatch);
  requireSignable(variant, input);

  const uploadId = input.op === "create" || input.op === "put" ? null : input.upload_id ?? null;
  const partNumber = input.op === "part" ? input.part_number ?? null : null;
  const exp = nowSeconds() + S3_LINK_TTL_SECONDS;
  const signature = await signLink(rc.config.JWT_SECRET, {
    purpose: S3_OP_PURPOSE[input.op],
    id: s3SignedObject(variant.id, uploadId, partNumber),
    userId: actor.id,
    exp,
  });
  return {
    url: `${objectPath(variant)}?${s3Query(input.op, uploadId, partNumber, signature)}`,
    method: input.method,
    key: variant.storageKey,
    expire: new Date(exp * 1000).toISOString(),
  };
}

/** The state rules of signing: 409 for a finished upload, 404 for an aborted one or a wrong upload id, 400 for bad input. */
function requireSignable(variant: VariantRow, input: SignInput): void {
  const multipart = variant.partSize != null;
  if (variant.status === "aborted") {
    if (input.op === "abort") return;
    throw new AppError("NOT_FOUND", ru.s3.aborted);
  }
  if (variant.status !== "pending" && input.op !== "complete") throw new AppError("CONFLICT", ru.s3.alreadyCompleted);
  if (input.op === "put") {
    if (multipart) throw new AppError("CONFLICT", ru.s3.isMultipart);
    return;
  }
  if (!multipart) throw new AppError("CONFLICT", ru.s3.notMultipart);
  if (input.op === "create") return;
  if (!input.upload_id || !UPLOAD_ID_PATTERN.test(input.upload_id)) throw new AppError("BAD_REQUEST", ru.s3.notStarted);
  if (variant.uploadId === null) throw new AppError("CONFLICT", ru.s3.notStarted);
  if (variant.uploadId !== input.upload_id) throw new AppError("NOT_FOUND", ru.s3.uploadNotFound);
  if (input.op === "part" && !validPartNumber(input.part_number)) throw new AppError("BAD_REQUEST", ru.s3.partNumber(MAX_PARTS));
}

export function validPartNumber(n: number | undefined): n is number {
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= MAX_PARTS;
}

// ---------------------------------------------------------------------------------------------------------------
// Status (GET /api/upload/status/{variantId})

/** Where an upload is; the client waits on 'saving' until 'ready'. */
export interface UploadStatus {
  variant_id: string;
  asset_id: string;
  state: "pending" | "saving" | "ready" | "aborted";
  /** declared size */
  size: number;
  /** pending multipart uploads: bytes of the parts stored so far */
  uploaded_bytes?: number;
  /** saving: bytes hashed so far (objects hashed in several runs) */
  hashed_bytes?: number;
  /** ready: the committed version */
  asset_version?: number;
  /** ready: hex SHA-256 of the stored bytes */
  sha256?: string;
}

/** The state of an upload, for the user who started it (or anyone who may read the asset). 404 otherwise. */
export async function uploadStatus(
  rc: RequestContext,
  actor: Actor,
  variantId: string,
  /** the file the caller says it is a version of (which placed the read): another file's upload is not found */
  assetId?: string,
): Promise<UploadStatus> {
  const variant = await findVariant(rc.db, variantId);
  if (!variant || (assetId !== undefined && variant.assetId !== assetId)) throw new AppError("NOT_FOUND", ru.s3.uploadNotFound);
  if (variant.userId !== actor.id)
    await requireAsset(rc, actor, variant.assetId, "read").catch(() => {
      throw new AppError("NOT_FOUND", ru.s3.uploadNotFound);
    });
  const base = { variant_id: variant.id, asset_id: variant.assetId, state: variant.status, size: variant.contentSize };
  switch (variant.status) {
    case "pending": {
      if (variant.uploadId === null) return base;
      const parts = await selectParts(rc.db, variant.id);
      return { ...base, uploaded_bytes: parts.reduce((sum, p) => sum + p.size, 0) };
    }
    case "saving":
      return { ...base, hashed_bytes: variant.hashOffset ?? 0 };
    case "ready": {
      const ready = await findReadyVariant(rc.db, variant.id);
      return { ...base, asset_version: ready?.version, sha256: variant.sha256 ?? undefined };
    }
    default:
      return base;
  }
}
