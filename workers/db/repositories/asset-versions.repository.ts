/** Versions and variants of assets: reading them, the pending variant of an upload, commit statements. */
import { and, asc, desc, eq, isNull, lt, sql } from "drizzle-orm";
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
 * Pending single-PUT variants of an asset created before `before` (their upload links have expired). Open multipart
 * uploads are left to the stale-multipart cleanup: they may rightly take longer than a link lives.
 */
export function selectStalePending(db: Database, assetId: string, before: number) {
  return db
    .select({ id: variants.id, storageId: variants.storageId, storageKey: variants.storageKey })
    .from(variants)
    .where(and(eq(variants.assetId, assetId), eq(variants.status, "pending"), isNull(variants.uploadId), lt(variants.ctime, before)));
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
    sql`insert into asset_versions (id, asset_id, version, description, user_id, ctime)
      select ${c.versionId}, ${c.assetId}, coalesce((select max(version) from asset_versions where asset_id = ${c.assetId}), 0) + 1,
        null, ${c.userId}, ${c.now}
      where exists (select 1 from variants where id = ${c.variantId} and asset_id = ${c.assetId} and status = ${from})
        and exists (select 1 from assets where id = ${c.assetId} and deleted_at is null)`,
    sql`update variants set status = 'ready', version_id = ${c.versionId}, sha256 = ${c.sha256}, content_size = ${c.size},
        hash_state = null
      where id = ${c.variantId} and status = ${from} and ${committed}`,
    sql`update assets set latest_version = (select version from asset_versions where id = ${c.versionId}), mtime = ${c.now}
      where id = ${c.assetId} and ${committed}`,
    // The new version holds only this variant, so it is the asset's main variant now: its size is the asset's size.
    sql`update group_members set el_size = ${c.size}, el_mtime = ${c.now}
      where el_id = ${c.assetId} and el_type = 'asset' and ${committed}`,
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
