/**
 * Ending a multipart upload: CompleteMultipartUpload (the part list checked, the object assembled, hashed inline or
 * in the queue, then committed), AbortMultipartUpload, and the single S3 PUT.
 */
import { ru } from "../../../shared/i18n/ru";
import { changesOf, runBatch } from "../../db/repositories/asset.repository";
import { findReadyVariant, findVariant } from "../../db/repositories/asset-versions.repository";
import {
  deletePartsStatement,
  markAbortedStatements,
  markSavingStatement,
  selectParts,
  touchSavingStatement,
} from "../../db/repositories/multipart.repository";
import type { VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { normalizeEtag, parseCompleteMultipartUpload, S3Error } from "../../lib/s3-xml";
import type { TaskMessageInput } from "../../queue/messages";
import { requireAsset, requireVersionTarget, backendFor, requirePendingUpload, storeSingleUpload, type UploadComplete } from "../library";
import type { RequestContext } from "../access";
import { BUCKET_LABEL, MAX_PARTS, MIN_PART_BYTES } from "../storage/pure";
import { multipartStoreFor } from "./multipart-store";
import { type ChecksumHeaders } from "../storage";
import { MiB, INLINE_HASH_MAX_BYTES, HASH_SEGMENT_BYTES, STALLED_SAVING_MS, type S3Call, authorize, openUpload } from "./multipart.service";
import { hashAndCommit } from "./multipart-saving.service";

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
  if (variant.toGroup) await requireVersionTarget(rc, actor, asset, variant.toGroup);

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
  if (changesOf(saving) === 0) {
    // An Abort that ran between storage's assembly and this step won: the upload is gone, whatever storage said.
    if (current.status !== "saving" && current.status !== "ready") throw new S3Error("NoSuchUpload", ru.s3.uploadNotFound);
    return completedAnswer(rc, current);
  }

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
  const [aborted] = await runBatch(rc.db, markAbortedStatements(rc.db, variant.id, "pending", Date.now()));
  // The variant read as pending may have been completed since (a Complete that ran between that read and now): its
  // object is then a committed version's bytes, and storage's abort of a completed upload is a no-op. Only an upload
  // this call really aborted may lose the object under its key.
  if (changesOf(aborted) === 0) return;
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
