import { and, asc, eq, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { SWITCHED_IDS_SQL } from "../library-directory";
import { uploadParts, variants } from "../schema/index";
import type { Statement } from "./asset.repository";
import { dropReservationValuesStatement } from "./field.repository";

/**
 * Queries of multipart uploads (queries only: rules live in multipart.service): the upload id and part size on the
 * pending variant, the record of stored parts, the 'saving' state and its hashing progress, and the stale-upload
 * cleanup. Every state change is conditional on the state it leaves, so a lost race changes nothing and the caller
 * reads `changes` to know.
 */

/** Sets the storage's upload id on a pending variant that has none yet (the first CreateMultipartUpload wins). */
export function claimUploadIdStatement(db: Database, variantId: string, uploadId: string, partSize: number, now: number) {
  return db
    .update(variants)
    .set({ uploadId, partSize, progressAt: now })
    .where(and(eq(variants.id, variantId), eq(variants.status, "pending"), sql`${variants.uploadId} is null`));
}

/**
 * Records a stored part (a re-sent part replaces the earlier record, as storage does) and the upload's sign of life,
 * only while the upload is still open under this upload id, and only when no other send of the same part was
 * recorded after this one started (`startedAt`): two sends of one part that overlap leave storage holding either
 * one, and which one cannot be known, so the later of the two records nothing (the caller reads `changes`).
 */
export function recordPartStatements(
  _db: Database,
  p: { variantId: string; uploadId: string; partNumber: number; size: number; etag: string; startedAt: number; now: number },
): Statement[] {
  const open = sql`exists (select 1 from variants where id = ${p.variantId} and status = 'pending' and upload_id = ${p.uploadId})`;
  const overlapped = sql`exists (select 1 from upload_parts where variant_id = ${p.variantId} and part_number = ${p.partNumber}
    and ctime > ${p.startedAt})`;
  return [
    sql`insert into upload_parts (variant_id, part_number, size, etag, ctime)
      select ${p.variantId}, ${p.partNumber}, ${p.size}, ${p.etag}, ${p.now} where ${open} and not ${overlapped}
      on conflict (variant_id, part_number) do update set size = excluded.size, etag = excluded.etag, ctime = excluded.ctime`,
    sql`update variants set progress_at = ${p.now} where id = ${p.variantId} and status = 'pending' and upload_id = ${p.uploadId}`,
  ];
}

/** The recorded parts of an upload, by part number. */
export function selectParts(db: Database, variantId: string) {
  return db
    .select({ partNumber: uploadParts.partNumber, size: uploadParts.size, etag: uploadParts.etag, ctime: uploadParts.ctime })
    .from(uploadParts)
    .where(eq(uploadParts.variantId, variantId))
    .orderBy(asc(uploadParts.partNumber));
}

/**
 * Forgets one part: storage now holds bytes under its number that failed their checksum, so neither ListParts nor
 * the completion may offer the earlier record for it (the client sends the part again).
 */
export function forgetPartStatement(db: Database, variantId: string, partNumber: number) {
  return db.delete(uploadParts).where(and(eq(uploadParts.variantId, variantId), eq(uploadParts.partNumber, partNumber)));
}

export function deletePartsStatement(db: Database, variantId: string) {
  return db.delete(uploadParts).where(eq(uploadParts.variantId, variantId));
}

/** pending → saving once storage has assembled the object: hashing starts from byte 0. */
export function markSavingStatement(db: Database, variantId: string, uploadId: string, now: number) {
  return db
    .update(variants)
    .set({ status: "saving", hashOffset: 0, hashState: null, progressAt: now })
    .where(and(eq(variants.id, variantId), eq(variants.status, "pending"), eq(variants.uploadId, uploadId)));
}

/** Saves hashing progress, only if no other run has moved it since `from` (duplicate queue deliveries). */
export function saveHashProgressStatement(db: Database, variantId: string, from: number, to: number, state: string, now: number) {
  return db
    .update(variants)
    .set({ hashOffset: to, hashState: state, progressAt: now })
    .where(and(eq(variants.id, variantId), eq(variants.status, "saving"), sql`coalesce(${variants.hashOffset}, 0) = ${from}`));
}

/** Touches a saving variant (a hashing run started), so the cleanup does not queue a second run meanwhile. */
export function touchSavingStatement(db: Database, variantId: string, now: number) {
  return db
    .update(variants)
    .set({ progressAt: now })
    .where(and(eq(variants.id, variantId), eq(variants.status, "saving")));
}

/**
 * pending (or, when its asset went away before the commit, saving) → aborted: the row stays a while so the client can
 * read the state, and its part records go.
 */
export function markAbortedStatements(db: Database, variantId: string, from: "pending" | "saving", now: number): Statement[] {
  return [
    db
      .update(variants)
      .set({ status: "aborted", hashState: null, progressAt: now })
      .where(and(eq(variants.id, variantId), eq(variants.status, from))),
    deletePartsStatement(db, variantId),
    // An aborted upload no longer holds its version: values attached to that version go with it.
    dropReservationValuesStatement(db, [variantId]),
  ];
}

/** Open multipart uploads with no sign of life since `before`, oldest first. */
/**
 * Not a file of a library that lives in its shard (decision 043): the catalog's copy of those is the shard's to
 * change, and the cleanups run over each shard for them. Always true inside a shard (its directories are empty).
 */
const notSwitchedAsset = (assetId: SQL | typeof variants.assetId) => sql`${assetId} not in (${sql.raw(SWITCHED_IDS_SQL)})`;
const notSwitched = notSwitchedAsset(variants.assetId);

export function selectStaleMultipart(db: Database, before: number, limit: number) {
  return db
    .select({ id: variants.id, storageId: variants.storageId, storageKey: variants.storageKey, uploadId: variants.uploadId })
    .from(variants)
    .where(and(eq(variants.status, "pending"), lt(variants.progressAt, before), sql`${variants.uploadId} is not null`, notSwitched))
    .orderBy(asc(variants.progressAt))
    .limit(limit);
}

/**
 * Uploads that never got their bytes committed and whose links have long expired: pending variants without a
 * multipart upload (single-PUT ones, and multipart ones never started) created before `before`. A single PUT whose
 * Worker died between storing the bytes and the commit left an object under such a variant's key.
 * (`version_id is null`: the variants_version_idx lookup, uncommitted variants only.)
 */
export function selectAbandonedUploads(db: Database, before: number, limit: number) {
  return db
    .select({ id: variants.id, storageId: variants.storageId, storageKey: variants.storageKey })
    .from(variants)
    .where(and(isNull(variants.versionId), eq(variants.status, "pending"), isNull(variants.uploadId), lt(variants.ctime, before), notSwitched))
    .orderBy(asc(variants.ctime))
    .limit(limit);
}

/** Variants stuck in 'saving' (their hashing run died) since `before`. (`upload_id is not null`: the partial index.) */
export function selectStuckSaving(db: Database, before: number, limit: number) {
  return db
    .select({ id: variants.id })
    .from(variants)
    .where(and(eq(variants.status, "saving"), lt(variants.progressAt, before), sql`${variants.uploadId} is not null`, notSwitched))
    .orderBy(asc(variants.progressAt))
    .limit(limit);
}

/** Forgets aborted uploads older than `before`, and part records whose variant is gone (purged assets). */
export function forgetOldAbortsStatements(db: Database, before: number): Statement[] {
  return [
    db.delete(variants).where(and(eq(variants.status, "aborted"), lt(variants.progressAt, before), sql`${variants.uploadId} is not null`, notSwitched)),
    sql`delete from upload_parts where not exists (select 1 from variants v where v.id = upload_parts.variant_id and v.status = 'pending')
      and not exists (select 1 from variants v where v.id = upload_parts.variant_id and not (${notSwitchedAsset(sql`v.asset_id`)}))`,
  ];
}
