/** Versions and variants of assets: reading them, the pending variant of an upload, commit statements. */
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { assetVersions, assets, variants, type VariantRow, type VariantType } from "../schema/index";
import { type Statement, inList, VARIANT_ORDER } from "./asset.repository";

// ---------------------------------------------------------------------------------------------------------------
// Versions and variants

/** A ready variant with the number and time of its version. */
export const readyVariantColumns = {
  variant: variants,
  versionId: assetVersions.id,
  version: assetVersions.version,
  versionDesc: assetVersions.description,
  versionUser: assetVersions.userId,
  versionCtime: assetVersions.ctime,
};

/** A ready variant row as `readyVariantColumns` selects it. */
export interface ReadyVariant {
  variant: VariantRow;
  versionId: string;
  version: number;
  versionDesc: string | null;
  versionUser: string;
  versionCtime: number;
}

/** Ready variants of an asset's versions, newest version first, main variants first within a version. */
export function selectReadyVariants(db: Database, assetId: string, version?: number | "latest") {
  const versionFilter =
    version === undefined
      ? undefined
      : version === "latest"
      ? sql`${assetVersions.version} = (select latest_version from assets where id = ${assetId})`
      : eq(assetVersions.version, version);
  return db
    .select(readyVariantColumns)
    .from(variants)
    .innerJoin(assetVersions, eq(assetVersions.id, variants.versionId))
    .where(and(eq(variants.assetId, assetId), eq(variants.status, "ready"), versionFilter))
    .orderBy(desc(assetVersions.version), asc(VARIANT_ORDER), desc(variants.ctime), asc(variants.id));
}

/** One ready variant by id, with its version. */
export function findReadyVariant(db: Database, variantId: string) {
  return db
    .select(readyVariantColumns)
    .from(variants)
    .innerJoin(assetVersions, eq(assetVersions.id, variants.versionId))
    .where(and(eq(variants.id, variantId), eq(variants.status, "ready")))
    .get();
}

/** The newest ready variant of a type in one version of an asset. */
export function findReadyVariantOfType(db: Database, assetId: string, version: number, type: VariantType) {
  return db
    .select(readyVariantColumns)
    .from(variants)
    .innerJoin(assetVersions, eq(assetVersions.id, variants.versionId))
    .where(
      and(
        eq(assetVersions.assetId, assetId),
        eq(assetVersions.version, version),
        eq(variants.variantType, type),
        eq(variants.status, "ready"),
      ),
    )
    .orderBy(desc(variants.ctime))
    .get();
}

/** Any variant row (pending ones included). */
export function findVariant(db: Database, id: string): Promise<VariantRow | undefined> {
  return db.select().from(variants).where(eq(variants.id, id)).get();
}

/** Versions of an asset, newest first. */
export function selectVersions(db: Database, assetId: string) {
  return db.select().from(assetVersions).where(eq(assetVersions.assetId, assetId)).orderBy(desc(assetVersions.version));
}

/** One version of an asset by number (at most one row). */
export function selectVersion(db: Database, assetId: string, version: number) {
  return db
    .select()
    .from(assetVersions)
    .where(and(eq(assetVersions.assetId, assetId), eq(assetVersions.version, version)))
    .limit(1);
}

/** Versions by id whose asset is live and readable by the caller. */
export function selectVersionsByIds(db: Database, ids: readonly string[], vis: Visibility | null) {
  return db
    .select({ version: assetVersions })
    .from(assetVersions)
    .innerJoin(assets, eq(assets.id, assetVersions.assetId))
    .where(
      and(
        sql`${assetVersions.id} in ${inList(ids)}`,
        isNull(assets.deletedAt),
        visibleSql(vis, "asset", sql`${assets.id}`, sql`${assets.ownerId}`),
      ),
    )
    .orderBy(asc(assetVersions.assetId), desc(assetVersions.version));
}

/** Total stored size of an asset's ready variants. */
export async function readyContentSize(db: Database, assetId: string): Promise<number> {
  const row = await db
    .select({ size: sql<number>`coalesce(sum(${variants.contentSize}), 0)` })
    .from(variants)
    .where(and(eq(variants.assetId, assetId), eq(variants.status, "ready")))
    .get();
  return row?.size ?? 0;
}

export function insertVariantStatement(db: Database, row: typeof variants.$inferInsert) {
  return db.insert(variants).values(row);
}

/**
 * The asset's next version number, as SQL evaluated inside the statement that takes it: one above both the newest
 * committed version and the newest number create-version reserved for an upload still under way (pending or
 * saving), so an upload that commits in one request never takes a number an empty version holds.
 */
export function nextVersionSql(assetId: string) {
  return sql`(max(
    coalesce((select max(version) from asset_versions where asset_id = ${assetId}), 0),
    coalesce((select max(reserved_version) from variants where asset_id = ${assetId} and status in ('pending', 'saving')), 0)
  ) + 1)`;
}

/**
 * create-version's pending variant with the next version number reserved in the same statement (concurrent calls
 * get 3, 4 …), answering the number.
 */
export function insertReservingVariant(db: Database, row: typeof variants.$inferInsert & { assetId: string }) {
  return db
    .insert(variants)
    .values({ ...row, reservedVersion: sql`${nextVersionSql(row.assetId)}` })
    .returning({ reservedVersion: variants.reservedVersion });
}

/** An upload under way that holds a version number (create-version's empty or uploading versions). */
export interface ReservedUpload {
  id: string;
  reservedVersion: number;
  status: VariantRow["status"];
  uploadId: string | null;
  partSize: number | null;
  progressAt: number | null;
  name: string;
  variantType: VariantType;
  mimeType: string;
  fileName: string;
  contentSize: number;
  userId: string;
  ctime: number;
  storageId: string;
  storageKey: string;
}

/** The asset's uploads that hold a version number and have not committed (pending or saving), newest number first. */
export function selectReservedUploads(db: Database, assetId: string): Promise<ReservedUpload[]> {
  return db
    .select({
      id: variants.id,
      reservedVersion: sql<number>`${variants.reservedVersion}`,
      status: variants.status,
      uploadId: variants.uploadId,
      partSize: variants.partSize,
      progressAt: variants.progressAt,
      name: variants.name,
      variantType: variants.variantType,
      mimeType: variants.mimeType,
      fileName: variants.fileName,
      contentSize: variants.contentSize,
      userId: variants.userId,
      ctime: variants.ctime,
      storageId: variants.storageId,
      storageKey: variants.storageKey,
    })
    .from(variants)
    .where(and(eq(variants.assetId, assetId), sql`${variants.status} in ('pending', 'saving')`, sql`${variants.reservedVersion} is not null`))
    .orderBy(desc(variants.reservedVersion), asc(variants.id));
}

/**
 * Deletes empty uploads (single-form pending variants: nothing of theirs is kept before their commit), answering the
 * ids that went. A variant that began committing or holds stored parts meanwhile is left alone.
 */
export function deleteEmptyUploadsStatement(db: Database, ids: readonly string[]) {
  return db
    .delete(variants)
    .where(and(sql`${variants.id} in ${inList(ids)}`, eq(variants.status, "pending"), isNull(variants.uploadId)))
    .returning({ id: variants.id });
}

/** Marks a single PUT as begun (the version's state becomes uploading); `at` null undoes it after a failed PUT. */
export function markSingleUploadStatement(db: Database, variantId: string, at: number | null) {
  return db
    .update(variants)
    .set({ progressAt: at })
    .where(and(eq(variants.id, variantId), eq(variants.status, "pending"), isNull(variants.uploadId), isNull(variants.partSize)));
}

export function deletePendingVariantsStatement(db: Database, ids: readonly string[]) {
  return db
    .delete(variants)
    .where(and(sql`${variants.id} in ${inList(ids)}`, eq(variants.status, "pending")))
    .returning({ id: variants.id });
}

export interface UploadCommit {
  versionId: string;
  assetId: string;
  variantId: string;
  userId: string;
  sha256: string;
  size: number;
  toGroup: string | null;
  sortName: string;
  now: number;
  /** the state the variant commits from: 'pending' (single PUT) or 'saving' (multipart, once hashed) */
  from?: "pending" | "saving";
}

/**
 * Commit-after-upload, as statements of ONE batch. The first inserts the next version (max + 1, computed inside the
 * transaction, so concurrent commits get 1, 2, 3 …) only while the variant is still pending (or saving) and the asset live;
 * every later statement runs only if that version row exists, so a lost race or a dropped variant changes nothing.
 * The caller checks the first statement's changes.
 */
export function commitUploadStatements(_db: Database, c: UploadCommit): Statement[] {
  const committed = sql`exists (select 1 from asset_versions where id = ${c.versionId})`;
  const from = c.from ?? "pending";
  return [
    // The number create-version reserved for this upload (SPEC: it made the version, empty until now), unless a
    // restore took it meanwhile; else (one-request uploads, a lost reservation) the next number.
    sql`insert into asset_versions (id, asset_id, version, description, user_id, ctime)
      select ${c.versionId}, ${c.assetId}, coalesce(
          (select v.reserved_version from variants v where v.id = ${c.variantId} and v.reserved_version is not null
            and not exists (select 1 from asset_versions av where av.asset_id = ${c.assetId} and av.version = v.reserved_version)),
          ${nextVersionSql(c.assetId)}),
        null, ${c.userId}, ${c.now}
      where exists (select 1 from variants where id = ${c.variantId} and asset_id = ${c.assetId} and status = ${from})
        and exists (select 1 from assets where id = ${c.assetId} and deleted_at is null)`,
    sql`update variants set status = 'ready', version_id = ${c.versionId}, sha256 = ${c.sha256}, content_size = ${c.size},
        hash_state = null, reserved_version = null
      where id = ${c.variantId} and status = ${from} and ${committed}`,
    // The newest version is the current one: an older reserved number committing late does not replace it.
    sql`update assets set latest_version = max(coalesce(latest_version, 0), (select version from asset_versions where id = ${c.versionId})), mtime = ${c.now}
      where id = ${c.assetId} and ${committed}`,
    // The new version holds only this variant: when it is the newest, its size is the asset's size.
    sql`update group_members set el_size = ${c.size}, el_mtime = ${c.now}
      where el_id = ${c.assetId} and el_type = 'asset' and ${committed}
        and (select version from asset_versions where id = ${c.versionId}) = (select max(version) from asset_versions where asset_id = ${c.assetId})`,
    ...(c.toGroup
      ? [
          sql`insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
            select ${c.toGroup}, ${c.assetId}, 'asset', ${c.now}, ${c.sortName}, ${c.now}, ${c.size}
            where ${committed} and exists (select 1 from groups where id = ${c.toGroup} and deleted_at is null)
            on conflict (group_id, el_id) do nothing`,
        ]
      : []),
  ];
}

/**
 * Values attached to a version while create-version held it reserved (keyed by its upload) belong to the version
 * row once the upload commits, under the number it finally took: run in the commit's batch, after its statements.
 */
export function carryReservationValuesStatement(c: Pick<UploadCommit, "versionId" | "variantId" | "assetId">) {
  return sql`update field_values set version_id = ${c.versionId}, version = (select version from asset_versions where id = ${c.versionId})
    where version_id = ${c.variantId} and entity_id = ${c.assetId} and exists (select 1 from asset_versions where id = ${c.versionId})`;
}
