/**
 * The 'saving' state of a multipart upload: hashing the assembled object (inline, natively or in segments across
 * queue runs) and committing the version, and the cleanup of stale uploads.
 */
import { changesOf, findAsset, returnedRows, runBatch } from "../../db/repositories/asset.repository";
import { deletePendingVariantsStatement, findVariant } from "../../db/repositories/asset-versions.repository";
import { dropReservationValuesStatement } from "../../db/repositories/field.repository";
import {
  forgetOldAbortsStatements,
  markAbortedStatements,
  saveHashProgressStatement,
  selectAbandonedUploads,
  selectStaleMultipart,
  selectStuckSaving,
  touchSavingStatement,
} from "../../db/repositories/multipart.repository";
import type { AssetRow, VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { toHex } from "../../lib/ids";
import type { AbortStaleMultipartMessage, HashVariantMessage, TaskMessageInput } from "../../queue/messages";
import { backendFor, commitUpload, deleteUnreferencedObjects, inEverySwitchedLibrary, inLibraryOf } from "../library";
import { outsideHold, type RequestContext } from "../access";
import { Sha256 } from "./multipart-hash";
import { MiB, NATIVE_HASH_MAX_BYTES, HASH_SEGMENT_BYTES, STUCK_SAVING_MS, ABORTED_KEPT_MS } from "./multipart.service";
import { abortVariantUpload } from "./multipart-complete.service";

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
export async function hashAndCommit(
  rc: RequestContext,
  variant: VariantRow,
  asset: AssetRow | undefined,
  opts: HashOptions,
): Promise<HashOutcome> {
  const from = variant.hashOffset ?? 0;
  // Seconds for gigabytes, and nothing written meanwhile: across libraries, done with them let go (decision 048).
  const step = await outsideHold(rc, async () =>
    from === 0 && variant.contentSize <= opts.nativeMaxBytes
      ? { sha256: await nativeSha256(rc, variant) }
      : segmentSha256(rc, variant, opts.segmentBytes),
  );
  if (!("sha256" in step)) {
    await saveHashProgressStatement(rc.db, variant.id, from, step.offset, step.state, Date.now()).run();
    return { state: "saving", hashed: step.offset };
  }
  const sha256 = step.sha256;
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
  const found = await findVariant(rc.db, message.variantId);
  // Its rows where its file's library lives (decision 043, «Uploads»), across libraries for a file listed in another
  // one too, whose listings there show the new version; asked before anything is hashed, which is not repeated.
  return found
    ? inLibraryOf(rc, found.assetId, (rc) => hashVariant(rc, message, opts), { files: [found.assetId], streamed: true })
    : hashVariant(rc, message, opts);
}

async function hashVariant(rc: RequestContext, message: HashVariantMessage, opts: Partial<HashOptions>): Promise<string> {
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
  // The catalog's run leaves switched libraries' uploads alone; each of their shards gets the same run (decision 043).
  const here = await abortStaleMultipart(rc, message);
  const shards = await inEverySwitchedLibrary(rc, (rc) => abortStaleMultipart(rc, message));
  return [here, ...shards].join("; ");
}

async function abortStaleMultipart(rc: RequestContext, message: AbortStaleMultipartMessage): Promise<string> {
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
      dropReservationValuesStatement(
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
