import { ru } from "../../../shared/i18n/ru";
import {
  changesOf,
  deletePendingVariantsStatement,
  findAsset,
  findReadyVariant,
  findVariant,
  returnedRows,
  runBatch,
} from "../../db/repositories/asset.repository";
import {
  claimUploadIdStatement,
  deletePartsStatement,
  forgetOldAbortsStatements,
  forgetPartStatement,
  markAbortedStatements,
  markSavingStatement,
  recordPartStatements,
  saveHashProgressStatement,
  selectAbandonedUploads,
  selectParts,
  selectStaleMultipart,
  selectStuckSaving,
  touchSavingStatement,
} from "../../db/repositories/multipart.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { AssetRow, VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN, toHex } from "../../lib/ids";
import { normalizeEtag, parseCompleteMultipartUpload, S3Error } from "../../lib/s3-xml";
import { signLink, verifyLink } from "../../lib/signed-url";
import type { AbortStaleMultipartMessage, HashVariantMessage, TaskMessageInput } from "../../queue/messages";
import { requireAsset, requireTargetGroup } from "../library";
import {
  backendFor,
  commitUpload,
  deleteUnreferencedObjects,
  requirePendingUpload,
  storeSingleUpload,
  type UploadComplete,
} from "../library";
import type { Actor, RequestContext } from "../access";
import { Sha256 } from "./multipart-hash";
import {
  BUCKET_LABEL,
  MAX_PARTS,
  MIN_PART_BYTES,
  S3_LINK_TTL_SECONDS,
  S3_OP_METHOD,
  S3_OP_PURPOSE,
  UPLOAD_ID_PATTERN,
  s3SignedObject,
  type S3Op,
} from "../storage/pure";
import { multipartStoreFor } from "./multipart-store";
import { checksumTap, type ChecksumHeaders } from "../storage";

/**
 * Multipart uploads (issue 4, "uploads that never lose a byte"): signing each S3 call for Uppy, the S3-compatible
 * endpoints behind those signatures (backed by the multipart API of the variant's storage: R2 or an external S3 bucket), completion with SHA-256 and
 * commit-after-upload, the upload status, and the queue operations that hash large objects and clean up.
 *
 * States of the variant: pending (parts arriving; `upload_id` once created) → saving (storage assembled the object;
 * its SHA-256 is being computed, inline for small objects, in `hash-variant` runs for large ones) → ready (committed
 * in one batch, exactly like the single PUT). pending → aborted on Abort or after a day without a part.
 */

const MiB = 1024 * 1024;
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

const nowSeconds = () => Math.floor(Date.now() / 1000);

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

function validPartNumber(n: number | undefined): n is number {
  return n !== undefined && Number.isInteger(n) && n >= 1 && n <= MAX_PARTS;
}

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
async function authorize(rc: RequestContext, op: S3Op, call: S3Call) {
  requireObjectPath(call);
  const params = callParams(op, call.query);
  // The signature's user and the variant are read at once; a bad signature still answers 403 before anything else.
  const [actor, found] = await Promise.all([callActor(rc, op, call, params), findVariant(rc.db, call.variantId)]);
  return { actor, variant: callVariant(actor, call, found), ...params };
}

/** The multipart store of an open upload of this variant (the upload id must be the variant's). */
async function openUpload(rc: RequestContext, actor: Actor, variant: VariantRow, uploadId: string | null) {
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
    etag = await store.uploadPart(variant.storageKey, uploadId!, partNumber!, tap.body, length);
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

/** What a CompleteMultipartUploadResult reports, and the state the version is in (ready, or saving while hashing). */
export interface CompletedUpload {
  bucket: string;
  key: string;
  etag: string;
  variantId: string;
  state: "saving" | "ready";
  /** set once ready */
  assetVersion?: number;
  sha256?: string;
}

/**
 * CompleteMultipartUpload (`POST …?uploadId=…`, XML body). The listed parts must be in ascending order without
 * repeats (400 InvalidPartOrder), each one recorded with the same etag (400 InvalidPart), every part but the last at
 * least 5 MiB (400 EntityTooSmall) and of one size, and together exactly the declared size (400): then storage
 * assembles the object, the variant turns 'saving', and its SHA-256 is computed by streaming the object through a
 * digest: here for objects up to 256 MiB, in `hash-variant` queue runs above. Only then does the version commit, in
 * one batch like the single PUT, and `process-variant` is queued. Anything refused leaves nothing visible. A second
 * Complete of the same upload answers the same result.
 */
export async function completeMultipart(rc: RequestContext, call: S3Call, readBody: () => Promise<string>): Promise<CompletedUpload> {
  const { actor, variant, uploadId } = await authorize(rc, "complete", call);
  if ((variant.status === "saving" || variant.status === "ready") && variant.uploadId === uploadId) {
    if (variant.status === "saving" && Date.now() - (variant.progressAt ?? 0) > STALLED_SAVING_MS) {
      const [touched] = await runBatch(rc.db, [touchSavingStatement(rc.db, variant.id, Date.now())]);
      if (changesOf(touched) > 0) await rc.env.TASKS.send({ op: "hash-variant", variantId: variant.id } satisfies TaskMessageInput);
    }
    return completedAnswer(rc, variant);
  }
  const { asset, store } = await openUpload(rc, actor, variant, uploadId);
  if (variant.toGroup) await requireTargetGroup(rc, actor, variant.toGroup);

  const listed = parseCompleteMultipartUpload(await readBody());
  if (!listed) throw new S3Error("MalformedXML", ru.s3.malformedXml);
  if (listed.length === 0) throw new S3Error("MalformedXML", ru.s3.noParts);
  const recorded = new Map((await selectParts(rc.db, variant.id)).map((p) => [p.partNumber, p]));
  const sizes = checkPartList(listed, recorded, variant.contentSize);

  let assembled: { etag: string; size: number };
  try {
    assembled = await store.complete(
      variant.storageKey,
      uploadId!,
      listed.map((p) => ({ partNumber: p.partNumber, etag: recorded.get(p.partNumber)!.etag })),
    );
  } catch (error) {
    // A concurrent Complete may have won: then this one answers the same result.
    const current = await findVariant(rc.db, variant.id);
    if (current && (current.status === "saving" || current.status === "ready")) return completedAnswer(rc, current);
    // Storage already assembled the object but the variant is still pending: another Complete is between the two
    // steps, or one died there (the Worker restarted). The object under the variant's key can only have come from
    // this upload's checked parts, so this Complete carries on from it (the pending → saving step below is
    // conditional: of two, one commits and the other answers its result).
    const head = current?.status === "pending" ? await (await backendFor(rc, variant.storageId)).head(variant.storageKey) : null;
    if (head && head.size === sizes) {
      assembled = { etag: normalizeEtag(head.etag), size: head.size };
    } else {
      if (error instanceof AppError) throw error;
      console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "multipart complete failed", error: String(error) }));
      throw new S3Error("InvalidPart", ru.s3.assembleFailed);
    }
  }
  if (assembled.size !== sizes) {
    // Storage disagrees with the recorded sizes: nothing may become visible.
    await (await backendFor(rc, variant.storageId)).delete([variant.storageKey]);
    await runBatch(rc.db, markAbortedStatements(rc.db, variant.id, "pending", Date.now()));
    throw new S3Error("InvalidPart", ru.s3.sizeMismatch(variant.contentSize, assembled.size));
  }
  const [saving] = await runBatch(rc.db, [
    markSavingStatement(rc.db, variant.id, uploadId!, Date.now()),
    deletePartsStatement(rc.db, variant.id),
  ]);
  const current = (await findVariant(rc.db, variant.id)) ?? variant;
  if (changesOf(saving) === 0) return completedAnswer(rc, current);

  const etag = normalizeEtag(assembled.etag);
  if (variant.contentSize <= INLINE_HASH_MAX_BYTES) {
    try {
      const done = await hashAndCommit(rc, current, asset, { nativeMaxBytes: INLINE_HASH_MAX_BYTES, segmentBytes: HASH_SEGMENT_BYTES });
      if (done.state === "ready") return { bucket: BUCKET_LABEL, key: variant.storageKey, etag, variantId: variant.id, ...done };
    } catch (error) {
      if (error instanceof AppError) throw error;
      // The hashing run failed (storage hiccup): the queue retries it; the client waits on the status.
      console.warn(
        JSON.stringify({ level: "warn", requestId: rc.requestId, message: "inline hashing failed; queued", error: String(error) }),
      );
    }
  }
  await rc.env.TASKS.send({ op: "hash-variant", variantId: variant.id } satisfies TaskMessageInput);
  return { bucket: BUCKET_LABEL, key: variant.storageKey, etag, variantId: variant.id, state: "saving" };
}

/**
 * The rules of a part list against the recorded parts; answers the total size. Order first (a repeated number is
 * out of order too), then each part's record and etag, then the total (a part left out), then the part sizes.
 */
function checkPartList(
  listed: { partNumber: number; etag: string }[],
  recorded: Map<number, { size: number; etag: string }>,
  declared: number,
): number {
  for (let i = 0; i < listed.length; i++) {
    const n = listed[i].partNumber;
    if (n > MAX_PARTS) throw new S3Error("InvalidArgument", ru.s3.partNumber(MAX_PARTS));
    if (i > 0 && n <= listed[i - 1].partNumber) throw new S3Error("InvalidPartOrder", ru.s3.partOrder);
  }
  for (const p of listed) {
    const record = recorded.get(p.partNumber);
    if (!record) throw new S3Error("InvalidPart", ru.s3.partMissing(p.partNumber));
    if (normalizeEtag(record.etag) !== p.etag) throw new S3Error("InvalidPart", ru.s3.etagMismatch(p.partNumber));
  }
  const sizes = listed.map((p) => recorded.get(p.partNumber)!.size);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total !== declared) throw new S3Error("InvalidPart", ru.s3.sizeMismatch(declared, total));
  const first = sizes[0];
  for (let i = 0; i < sizes.length - 1; i++) {
    if (sizes[i] < MIN_PART_BYTES) throw new S3Error("EntityTooSmall", ru.s3.partTooSmall(listed[i].partNumber, MIN_PART_BYTES / MiB));
    // R2 assembles only parts of one size (the last may be shorter).
    if (sizes[i] !== first) throw new S3Error("InvalidPart", ru.s3.partsUneven(listed[i].partNumber));
  }
  if (sizes.length > 1 && sizes[sizes.length - 1] > first)
    throw new S3Error("InvalidPart", ru.s3.partsUneven(listed[listed.length - 1].partNumber));
  return total;
}

/** The answer of a Complete for an upload already assembled (saving or ready). */
async function completedAnswer(rc: RequestContext, variant: VariantRow): Promise<CompletedUpload> {
  const head = await (await backendFor(rc, variant.storageId)).head(variant.storageKey);
  const base = { bucket: BUCKET_LABEL, key: variant.storageKey, etag: normalizeEtag(head?.etag ?? ""), variantId: variant.id };
  if (variant.status === "ready") {
    const ready = await findReadyVariant(rc.db, variant.id);
    return { ...base, state: "ready", assetVersion: ready?.version, sha256: variant.sha256 ?? undefined };
  }
  return { ...base, state: "saving" };
}

/**
 * AbortMultipartUpload (`DELETE …?uploadId=…`): drops the storage's upload and its parts, marks the variant
 * aborted. Idempotent for an aborted upload; 409 for one already completed.
 */
export async function abortMultipart(rc: RequestContext, call: S3Call): Promise<void> {
  const { actor, variant, uploadId } = await authorize(rc, "abort", call);
  if (variant.uploadId !== uploadId) throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
  if (variant.status === "aborted") return;
  if (variant.status !== "pending") throw new S3Error("OperationAborted", ru.s3.cannotAbortCompleted);
  await requireAsset(rc, actor, variant.assetId, "create");
  await abortVariantUpload(rc, variant);
}

/**
 * Aborts the open multipart upload of a pending variant in storage and marks the variant aborted (parts forgotten).
 * Shared by AbortMultipartUpload and the stale-upload cleanup (and usable by the upload queue's `abort-upload`).
 */
export async function abortVariantUpload(
  rc: RequestContext,
  variant: Pick<VariantRow, "id" | "storageId" | "storageKey" | "uploadId">,
): Promise<void> {
  if (variant.uploadId) await (await multipartStoreFor(rc, variant.storageId)).abort(variant.storageKey, variant.uploadId);
  await runBatch(rc.db, markAbortedStatements(rc.db, variant.id, "pending", Date.now()));
  // A Complete that died between assembling the object and recording it (a restarted Worker) left the object under
  // the key of this never-committed variant: nothing references it.
  await (await backendFor(rc, variant.storageId)).delete([variant.storageKey]);
}

/**
 * PutObject (`PUT …` without upload parameters): the single-request upload of a pending single-form variant, what
 * Uppy sends for small and empty files. The same store, hash and commit as `PUT /api/asset/content/upload`.
 */
export async function putObject(
  rc: RequestContext,
  call: S3Call,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | undefined; checksums?: ChecksumHeaders },
): Promise<UploadComplete> {
  const { actor, variant } = await authorize(rc, "put", call);
  const pending = await requirePendingUpload(rc, actor, variant);
  return storeSingleUpload(rc, pending.variant, pending.asset, upload);
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
export async function uploadStatus(rc: RequestContext, actor: Actor, variantId: string): Promise<UploadStatus> {
  const variant = await findVariant(rc.db, variantId);
  if (!variant) throw new AppError("NOT_FOUND", ru.s3.uploadNotFound);
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

// ---------------------------------------------------------------------------------------------------------------
// Hashing and commit of a 'saving' variant

interface HashOptions {
  /** one native pass when the whole object is at most this size */
  nativeMaxBytes: number;
  /** otherwise segments of this many bytes (a multiple of 64), the state saved between runs */
  segmentBytes: number;
}

type HashOutcome = { state: "saving"; hashed: number } | { state: "ready"; assetVersion: number; sha256: string } | { state: "aborted" };

/** Bytes read back per ranged read while hashing: two in memory at a time (one hashed, the next one arriving). */
export const HASH_READ_BYTES = 8 * MiB;

/**
 * The bytes `from`…`to` of an object as ranged reads of `HASH_READ_BYTES`, the next one requested while the caller
 * hashes the current one. Whole-buffer reads hand the bytes over natively; a streamed body costs a JavaScript step
 * per small chunk (several times slower, measured in workerd).
 */
async function* readRanges(rc: RequestContext, variant: VariantRow, from: number, to: number): AsyncGenerator<Uint8Array> {
  const backend = await backendFor(rc, variant.storageId);
  const read = async (offset: number) => {
    const length = Math.min(HASH_READ_BYTES, to - offset);
    const object = await backend.get(variant.storageKey, { offset, length });
    if (!object?.body || object.size !== variant.contentSize) throw new Error(`object ${variant.storageKey} missing or of the wrong size`);
    const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
    if (bytes.byteLength !== length) throw new Error(`object ${variant.storageKey} read short`);
    return bytes;
  };
  let next = from < to ? read(from) : null;
  for (let offset = from; next; ) {
    const bytes = await next;
    offset += bytes.byteLength;
    next = offset < to ? read(offset) : null;
    yield bytes;
  }
}

/** SHA-256 of a whole object in one pass through Web Crypto's DigestStream (native hashing, bounded memory). */
async function nativeSha256(rc: RequestContext, variant: VariantRow): Promise<string> {
  const { DigestStream: Digest } = crypto as unknown as { DigestStream: typeof DigestStream };
  const digest = new Digest("SHA-256");
  const writer = digest.getWriter();
  for await (const bytes of readRanges(rc, variant, 0, variant.contentSize)) await writer.write(bytes);
  await writer.close();
  if (Number(digest.bytesWritten) !== variant.contentSize) throw new Error(`object ${variant.storageKey} read short`);
  return toHex(new Uint8Array(await digest.digest));
}

/** Hashes the next segment of a large object into the saved state; answers the new offset, or the hash at the end. */
async function segmentSha256(
  rc: RequestContext,
  variant: VariantRow,
  segmentBytes: number,
): Promise<{ offset: number; state: string } | { sha256: string }> {
  const from = variant.hashOffset ?? 0;
  const hash = from === 0 || !variant.hashState ? new Sha256() : Sha256.resume(JSON.parse(variant.hashState));
  if (hash.bytes !== from) throw new Error(`hash state of ${variant.id} does not match its offset`);
  const to = Math.min(variant.contentSize, from + segmentBytes);
  for await (const bytes of readRanges(rc, variant, from, to)) hash.update(bytes);
  if (hash.bytes !== to) throw new Error(`object ${variant.storageKey} read short`);
  return to < variant.contentSize ? { offset: to, state: JSON.stringify(hash.save()) } : { sha256: hash.hex() };
}

/**
 * One hashing step of a saving variant, and the commit when the hash is complete: the version, the ready variant,
 * the asset's latest version and memberships in one batch (`commitUpload`), then `process-variant` is queued. When
 * the asset went away meanwhile, the object is deleted and the variant marked aborted.
 */
async function hashAndCommit(
  rc: RequestContext,
  variant: VariantRow,
  asset: AssetRow | undefined,
  opts: HashOptions,
): Promise<HashOutcome> {
  let sha256: string;
  const from = variant.hashOffset ?? 0;
  if (from === 0 && variant.contentSize <= opts.nativeMaxBytes) {
    sha256 = await nativeSha256(rc, variant);
  } else {
    const step = await segmentSha256(rc, variant, opts.segmentBytes);
    if (!("sha256" in step)) {
      await saveHashProgressStatement(rc.db, variant.id, from, step.offset, step.state, Date.now()).run();
      return { state: "saving", hashed: step.offset };
    }
    sha256 = step.sha256;
  }
  if (!asset || asset.deletedAt != null) return abandonSaving(rc, variant);
  let committed: { outcome: "committed" | "already"; version: number };
  try {
    committed = await commitUpload(rc, { variant, asset, sha256, size: variant.contentSize, from: "saving" });
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return abandonSaving(rc, variant);
    throw error;
  }
  if (committed.outcome === "committed") {
    await rc.env.TASKS.send({
      op: "process-variant",
      variantId: variant.id,
      assetId: asset.id,
      version: committed.version,
    } satisfies TaskMessageInput);
  }
  return { state: "ready", assetVersion: committed.version, sha256 };
}

/** A saving variant whose asset is gone: no version may appear; the bytes go, the upload reads as aborted. */
async function abandonSaving(rc: RequestContext, variant: VariantRow): Promise<HashOutcome> {
  await runBatch(rc.db, markAbortedStatements(rc.db, variant.id, "saving", Date.now()));
  await (await backendFor(rc, variant.storageId)).delete([variant.storageKey]).catch(() => undefined);
  return { state: "aborted" };
}

/**
 * The `hash-variant` operation: hashes a saving variant (one native pass up to 4 GiB, else the next 1 GiB segment)
 * and commits it when done; queues its own continuation while segments remain. A variant no longer saving (a
 * duplicate delivery, an aborted upload) is left alone.
 */
export async function runHashVariant(rc: RequestContext, message: HashVariantMessage, opts: Partial<HashOptions> = {}): Promise<string> {
  const variant = await findVariant(rc.db, message.variantId);
  if (!variant || variant.status !== "saving")
    return `variant ${message.variantId}: not saving (${variant?.status ?? "gone"}), nothing to hash`;
  await touchSavingStatement(rc.db, variant.id, Date.now()).run();
  const asset = await findAsset(rc.db, variant.assetId);
  const outcome = await hashAndCommit(rc, variant, asset, {
    nativeMaxBytes: opts.nativeMaxBytes ?? NATIVE_HASH_MAX_BYTES,
    segmentBytes: opts.segmentBytes ?? HASH_SEGMENT_BYTES,
  });
  if (outcome.state === "saving") {
    await rc.env.TASKS.send({ op: "hash-variant", variantId: variant.id } satisfies TaskMessageInput);
    return `variant ${variant.id}: hashed ${outcome.hashed} of ${variant.contentSize} bytes, continued in a new message`;
  }
  if (outcome.state === "aborted") return `variant ${variant.id}: its asset is gone, upload dropped`;
  return `variant ${variant.id}: sha256 ${outcome.sha256}, committed as version ${outcome.assetVersion}`;
}

/**
 * The `abort-stale-multipart` operation (cron): aborts multipart uploads with no part stored for `olderThanHours`
 * (storage upload aborted, variant marked aborted, any object an interrupted Complete assembled deleted), re-queues
 * hashing runs that died (saving without progress for an hour), forgets aborted uploads after a week and orphaned
 * part records, and drops uploads without a multipart upload created more than `olderThanHours` ago (their links
 * expired long before) with any object left under their keys. Queues its continuation after `limit`.
 */
export async function runAbortStaleMultipart(rc: RequestContext, message: AbortStaleMultipartMessage): Promise<string> {
  const now = Date.now();
  const stale = await selectStaleMultipart(rc.db, now - message.olderThanHours * 3600 * 1000, message.limit);
  let failed = 0;
  for (const variant of stale) {
    try {
      await abortVariantUpload(rc, variant);
    } catch (error) {
      failed++;
      console.warn(
        JSON.stringify({
          level: "warn",
          requestId: rc.requestId,
          message: "stale upload abort failed",
          variant: variant.id,
          error: String(error),
        }),
      );
    }
  }
  const stuck = await selectStuckSaving(rc.db, now - STUCK_SAVING_MS, message.limit);
  if (stuck.length > 0) {
    await runBatch(
      rc.db,
      stuck.map((v) => touchSavingStatement(rc.db, v.id, now)),
    );
    await rc.env.TASKS.sendBatch(stuck.map((v) => ({ body: { op: "hash-variant", variantId: v.id } satisfies TaskMessageInput })));
  }
  const [forgotten] = await runBatch(rc.db, forgetOldAbortsStatements(rc.db, now - ABORTED_KEPT_MS));
  // Uploads without a multipart upload whose links expired long ago: the rows go, then any object left under their
  // keys (a single PUT whose commit never happened) once nothing references it.
  const abandoned = await selectAbandonedUploads(rc.db, now - message.olderThanHours * 3600 * 1000, message.limit);
  let dropped = 0;
  if (abandoned.length > 0) {
    const [deleted] = await runBatch(rc.db, [
      deletePendingVariantsStatement(
        rc.db,
        abandoned.map((v) => v.id),
      ),
    ]);
    dropped = returnedRows(deleted);
    await deleteUnreferencedObjects(rc, abandoned);
  }
  const summary = `aborted ${stale.length - failed} stale uploads${failed ? ` (${failed} failed, retried next run)` : ""}, re-queued ${
    stuck.length
  } hashing runs, forgot ${changesOf(forgotten)} aborted uploads, dropped ${dropped} expired uploads`;
  if ((stale.length === message.limit && failed < stale.length) || abandoned.length === message.limit) {
    await rc.env.TASKS.send({
      op: "abort-stale-multipart",
      olderThanHours: message.olderThanHours,
      limit: message.limit,
    } satisfies TaskMessageInput);
    return `${summary}; continued in a new message`;
  }
  return summary;
}
