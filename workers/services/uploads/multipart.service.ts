import { ru } from "../../../shared/i18n/ru";
import { changesOf, runBatch } from "../../db/repositories/asset.repository";
import { findVariant } from "../../db/repositories/asset-versions.repository";
import { claimUploadIdStatement, forgetPartStatement, recordPartStatements, selectParts } from "../../db/repositories/multipart.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN } from "../../lib/ids";
import { normalizeEtag, S3Error } from "../../lib/s3-xml";
import { verifyLink } from "../../lib/signed-url";
import { requireAsset, requirePendingUpload } from "../library";
import { outsideHold, type Actor, type RequestContext } from "../access";
import { BUCKET_LABEL, MAX_PARTS, S3_OP_PURPOSE, UPLOAD_ID_PATTERN, s3SignedObject, type S3Op } from "../storage/pure";
import { multipartStoreFor } from "./multipart-store";
import { checksumTap, type ChecksumHeaders } from "../storage";
import { validPartNumber } from "./multipart-sign.service";

/**
 * Multipart uploads (issue 4, "uploads that never lose a byte"): signing each S3 call for Uppy, the S3-compatible
 * endpoints behind those signatures (backed by the multipart API of the variant's storage: R2 or an external S3 bucket), completion with SHA-256 and
 * commit-after-upload, the upload status, and the queue operations that hash large objects and clean up.
 *
 * States of the variant: pending (parts arriving; `upload_id` once created) → saving (storage assembled the object;
 * its SHA-256 is being computed, inline for small objects, in `hash-variant` runs for large ones) → ready (committed
 * in one batch, exactly like the single PUT). pending → aborted on Abort or after a day without a part.
 *
 * This file holds the limits and the S3 calls that start an upload and carry its parts; signing and status are in
 * multipart-sign.service.ts, Complete / Abort / PUT in multipart-complete.service.ts, hashing and commit in
 * multipart-saving.service.ts.
 */

export const MiB = 1024 * 1024;
/** Objects up to this size are hashed inside the CompleteMultipartUpload request; larger ones in the queue. */
export const INLINE_HASH_MAX_BYTES = 256 * MiB;
/** A queue run hashes an object in one native pass up to this size (bounded CPU time per run)… */
export const NATIVE_HASH_MAX_BYTES = 4 * 1024 * MiB;
/** …and larger objects in segments of this many bytes, saving the hash state between runs. */
export const HASH_SEGMENT_BYTES = 1024 * MiB;
/** A 'saving' variant without hashing progress for this long has lost its run: the cleanup queues a new one. */
export const STUCK_SAVING_MS = 3600 * 1000;
/**
 * A Complete sent again for a 'saving' variant without hashing progress for this long re-queues its hashing: the
 * run that should be hashing died with its Worker (a restart right after the object was assembled), and the client
 * should not wait for the hourly cleanup. Longer than any live run goes without touching the variant.
 */
export const STALLED_SAVING_MS = 2 * 60 * 1000;
/** Aborted uploads are remembered this long (the client can read the state), then forgotten. */
export const ABORTED_KEPT_MS = 7 * 24 * 3600 * 1000;
/** The largest CompleteMultipartUpload body read (10,000 parts fit with room to spare). */
export const MAX_COMPLETE_BODY_BYTES = 2 * MiB;

export const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------------------------
// The S3 endpoints (/api/s3/<bucket>/assets/<asset>/<variant>?…)

/** One call on the S3 endpoints: the object from the path and the query (operation parameters and signature). */
export interface S3Call {
  bucket: string;
  assetId: string;
  variantId: string;
  query: URLSearchParams;
}

/** The checked parameters of a call: the upload id and part number its signature must cover. */
interface CallParams {
  uploadId: string | null;
  partNumber: number | null;
}

/** Syntax first (400, before any lookup): a part number outside 1–10000 or a malformed upload id. */
function callParams(op: S3Op, query: URLSearchParams): CallParams {
  let uploadId: string | null = null;
  let partNumber: number | null = null;
  if (op !== "create" && op !== "put") {
    uploadId = query.get("uploadId") ?? "";
    if (!UPLOAD_ID_PATTERN.test(uploadId)) throw new S3Error("InvalidArgument", ru.s3.uploadNotFound);
  }
  if (op === "part") {
    const raw = query.get("partNumber") ?? "";
    partNumber = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!validPartNumber(partNumber)) throw new S3Error("InvalidArgument", ru.s3.partNumber(MAX_PARTS));
  }
  return { uploadId, partNumber };
}

/**
 * The user a signed S3 call was issued to, re-checked now: valid, unexpired signature for exactly this operation,
 * object, upload id and part number; the user still exists and is enabled. Any failure is the same 403.
 */
async function callActor(rc: RequestContext, op: S3Op, call: S3Call, params: CallParams): Promise<Actor> {
  const { query } = call;
  const userId = await verifyLink(
    rc.config.JWT_SECRET,
    S3_OP_PURPOSE[op],
    s3SignedObject(call.variantId, params.uploadId, params.partNumber),
    {
      u: query.get("u") ?? undefined,
      exp: query.get("exp") ?? undefined,
      sig: query.get("sig") ?? undefined,
    },
  );
  const user = userId ? await findUserById(rc.db, userId) : undefined;
  if (!user || !user.enabled) throw new S3Error("AccessDenied", ru.s3.signatureInvalid);
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

/** The variant a call's path names, for its signed user: 404 NoSuchUpload when the path is not that variant's object. */
function callVariant(actor: Actor, call: S3Call, variant: VariantRow | undefined): VariantRow {
  if (!variant || variant.storageKey !== `assets/${call.assetId}/${call.variantId}`)
    throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
  if (variant.userId !== actor.id) throw new S3Error("AccessDenied", ru.s3.signatureInvalid);
  return variant;
}

/** Path syntax: our bucket label and two ids, else 404 NoSuchKey before anything else. */
function requireObjectPath(call: S3Call): void {
  if (call.bucket !== BUCKET_LABEL || !ID_PATTERN.test(call.assetId) || !ID_PATTERN.test(call.variantId)) {
    throw new S3Error("NoSuchKey", ru.s3.uploadNotFound);
  }
}

/** Everything an S3 call needs once its signature and path check out. */
export async function authorize(rc: RequestContext, op: S3Op, call: S3Call) {
  requireObjectPath(call);
  const params = callParams(op, call.query);
  // The signature's user and the variant are read at once; a bad signature still answers 403 before anything else.
  const [actor, found] = await Promise.all([callActor(rc, op, call, params), findVariant(rc.db, call.variantId)]);
  return { actor, variant: callVariant(actor, call, found), ...params };
}

/** The multipart store of an open upload of this variant (the upload id must be the variant's). */
export async function openUpload(rc: RequestContext, actor: Actor, variant: VariantRow, uploadId: string | null) {
  if (variant.status === "ready" || variant.status === "saving") throw new S3Error("NoSuchUpload", ru.s3.alreadyCompleted);
  if (variant.status !== "pending" || variant.uploadId === null || variant.uploadId !== uploadId) {
    throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
  }
  const asset = await requireAsset(rc, actor, variant.assetId, "create");
  return { asset, store: await multipartStoreFor(rc, variant.storageId) };
}

/** What an InitiateMultipartUploadResult reports. */
export interface CreatedUpload {
  bucket: string;
  key: string;
  uploadId: string;
}

/**
 * CreateMultipartUpload (`POST …?uploads`): starts the storage's upload for a pending multipart variant and stores
 * its id on the variant. Idempotent: a variant that already has an upload answers that one (a client that lost its
 * state after a reload gets the same upload back and may list its parts).
 */
export async function createMultipart(rc: RequestContext, call: S3Call): Promise<CreatedUpload> {
  const { actor, variant } = await authorize(rc, "create", call);
  const answer = (uploadId: string) => ({ bucket: BUCKET_LABEL, key: variant.storageKey, uploadId });
  await requirePendingUpload(rc, actor, variant);
  if (variant.partSize == null) throw new S3Error("InvalidRequest", ru.s3.notMultipart);
  if (variant.uploadId) return answer(variant.uploadId);
  const store = await multipartStoreFor(rc, variant.storageId);
  const uploadId = await store.create(variant.storageKey, variant.mimeType);
  const claimed = await claimUploadIdStatement(rc.db, variant.id, uploadId, variant.partSize, Date.now()).run();
  if (changesOf(claimed) > 0) return answer(uploadId);
  // Another create won the race: drop ours and answer theirs.
  await store.abort(variant.storageKey, uploadId);
  const current = await findVariant(rc.db, variant.id);
  if (current?.status !== "pending" || !current.uploadId) throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
  return answer(current.uploadId);
}

/** workerd's FixedLengthStream errors: the body was shorter or longer than its Content-Length (the client's fault). */
const BODY_LENGTH_ERROR = /FixedLengthStream/;

/**
 * UploadPart (`PUT …?partNumber=N&uploadId=…`): streams the body (Content-Length required, at most the part size)
 * into the storage's upload, then records the part (number, size, etag) in D1 for ListParts and the completion.
 * Answers the part's etag (unquoted).
 */
export async function uploadPart(
  rc: RequestContext,
  call: S3Call,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | undefined; checksums?: ChecksumHeaders },
): Promise<{ etag: string }> {
  const { actor, variant, uploadId, partNumber } = await authorize(rc, "part", call);
  const { store } = await openUpload(rc, actor, variant, uploadId);
  if (upload.contentLength === undefined) throw new S3Error("MissingContentLength", ru.assets.lengthRequired);
  const length = /^\d{1,16}$/.test(upload.contentLength.trim()) ? Number(upload.contentLength.trim()) : Number.NaN;
  const max = Math.min(variant.partSize ?? 0, variant.contentSize);
  if (Number.isNaN(length)) throw new S3Error("InvalidArgument", ru.assets.lengthRequired);
  if (length > max) throw new S3Error("EntityTooLarge", ru.s3.partTooLarge(max));
  if (length === 0 || !upload.body) throw new S3Error("IncompleteBody", ru.assets.bodyMissing);
  // Without a checksum header the body goes to storage natively (no JavaScript touches the bytes): flat memory, full
  // speed. With one, the bytes are digested on the way (400 InvalidDigest for a malformed header, before any byte).
  const tap = checksumTap(upload.body, upload.checksums ?? {});
  const startedAt = Date.now();

  let etag: string;
  try {
    etag = await outsideHold(rc, () => store.uploadPart(variant.storageKey, uploadId!, partNumber!, tap.body, length));
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (BODY_LENGTH_ERROR.test(String(error))) throw new S3Error("IncompleteBody", ru.s3.partIncomplete);
    console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "part write failed", error: String(error) }));
    throw new S3Error("ServiceUnavailable", ru.assets.uploadFailed);
  }
  try {
    await tap.verify();
  } catch (error) {
    // Storage now holds the damaged bytes under this part number: an earlier record of the part must go too, so the
    // completion cannot assemble them; the client sends the part again (the housekeeping drops an abandoned upload).
    await forgetPartStatement(rc.db, variant.id, partNumber!).run();
    throw error;
  }
  const [recorded] = await runBatch(
    rc.db,
    recordPartStatements(rc.db, {
      variantId: variant.id,
      uploadId: uploadId!,
      partNumber: partNumber!,
      size: length,
      etag,
      startedAt,
      now: Date.now(),
    }),
  );
  if (changesOf(recorded) === 0) {
    const current = await findVariant(rc.db, variant.id);
    // Completed or aborted while this part was on its way: the part belongs to no open upload.
    if (current?.status !== "pending" || current.uploadId !== uploadId) throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
    // Another send of this part was recorded while this one was on its way: storage holds one of the two, and which
    // cannot be known, so neither record may stand (the completion would name bytes storage may not hold). The part
    // is refused and sent again; ListParts no longer lists it.
    await forgetPartStatement(rc.db, variant.id, partNumber!).run();
    throw new S3Error("OperationAborted", ru.s3.partSentTwice(partNumber!));
  }
  return { etag: normalizeEtag(etag) };
}

/** One entry of a ListPartsResult. */
export interface ListedPart {
  partNumber: number;
  size: number;
  etag: string;
  lastModified: string;
}

/** ListParts (`GET …?uploadId=…`): the parts recorded for the open upload, all of them (Uppy reads one page). */
export async function listParts(
  rc: RequestContext,
  call: S3Call,
): Promise<{ bucket: string; key: string; uploadId: string; parts: ListedPart[] }> {
  const { actor, variant, uploadId } = await authorize(rc, "list", call);
  await openUpload(rc, actor, variant, uploadId);
  const parts = await selectParts(rc.db, variant.id);
  return {
    bucket: BUCKET_LABEL,
    key: variant.storageKey,
    uploadId: uploadId!,
    parts: parts.map((p) => ({ partNumber: p.partNumber, size: p.size, etag: p.etag, lastModified: new Date(p.ctime).toISOString() })),
  };
}
