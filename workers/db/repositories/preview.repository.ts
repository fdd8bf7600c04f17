import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { assets, assetVersions, previews, variants } from "../schema/index";
import { inIds } from "./tag.repository";

/** What a preview upload needs of an asset: owner, and the id of the requested (or latest) version, in one query. */
export function findAssetForPreview(db: Database, assetId: string, version: number | null) {
  return db.get<{ owner_id: string; latest_version: number; version_id: string | null; mime: string }>(
    sql`select a.owner_id as owner_id, a.latest_version as latest_version, a.mime as mime,
               (select v.id from ${assetVersions} v where v.asset_id = a.id and v.version = ${version ?? sql`a.latest_version`}) as version_id
        from ${assets} a where a.id = ${assetId} and a.deleted_at is null`,
  );
}

/** SQL: the id of the preview of size `size` for the asset's version `versionIdSql`, else its version-less preview. */
function previewIdFor(assetIdSql: ReturnType<typeof sql>, versionIdSql: ReturnType<typeof sql>, size: string) {
  return sql`(select p.id from ${previews} p where p.asset_id = ${assetIdSql} and p.size = ${size}
              and (p.version_id = ${versionIdSql} or p.version_id is null)
              order by p.version_id is null, p.ctime desc limit 1)`;
}

/**
 * An asset (not in the trash) and the preview to show for its version `version` and `size` (falling back to the
 * asset's version-less preview), in one query. Version 0 asks for the version-less preview only.
 */
export function findPreviewForAsset(db: Database, assetId: string, version: number, size: string) {
  const versionId = sql`(select v.id from ${assetVersions} v where v.asset_id = a.id and v.version = ${version})`;
  return db.get<{
    owner_id: string;
    preview_id: string | null;
    mime_type: string | null;
    storage_key: string | null;
    content_size: number | null;
    maker: string | null;
  }>(
    sql`select a.owner_id as owner_id, p.id as preview_id, p.mime_type as mime_type, p.storage_key as storage_key,
               p.content_size as content_size, p.maker as maker
        from ${assets} a left join ${previews} p on p.id = ${previewIdFor(sql`a.id`, versionId, size)}
        where a.id = ${assetId} and a.deleted_at is null`,
  );
}

/**
 * Replaces the preview of an asset version and size: one batch that deletes the previous rows (answering their
 * storage keys, so exactly those objects are removed afterwards) and inserts the new one. Batches run one at a
 * time, so concurrent uploads still leave a single row.
 */
export function replacePreviewStatements(db: Database, row: typeof previews.$inferInsert) {
  return [
    db
      .delete(previews)
      .where(
        and(
          eq(previews.assetId, row.assetId),
          eq(previews.size, row.size),
          row.versionId ? eq(previews.versionId, row.versionId) : isNull(previews.versionId),
        ),
      )
      .returning({ storageKey: previews.storageKey }),
    db.insert(previews).values(row),
  ] as const;
}

/**
 * Heal-on-view (decision 029): stores a browser-made preview only when the version has none of that size — or,
 * with `replaceCard`, only a text card — in one batch, so of two browsers healing at once exactly one wins. The
 * first statement drops a replaceable card (answering its storage key), the second inserts only when no row of that
 * version and size is left (answering the new id, or nothing when another preview was already there).
 * Raw SQL with parameters: run with `runBatch` (rows come back with their column names, `storage_key`).
 */
export function healPreviewStatements(db: Database, row: typeof previews.$inferInsert & { versionId: string | null }, replaceCard: boolean) {
  const sameSlot = and(
    eq(previews.assetId, row.assetId),
    eq(previews.size, row.size),
    row.versionId ? eq(previews.versionId, row.versionId) : isNull(previews.versionId),
  );
  return [
    db
      .delete(previews)
      .where(and(sameSlot, replaceCard ? eq(previews.maker, "card") : sql`0`))
      .returning({ storageKey: previews.storageKey }),
    sql`insert into ${previews} (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, maker, made_by, accepted_by, ctime)
          select ${row.id}, ${row.assetId}, ${row.versionId}, ${row.size}, ${row.mimeType}, ${row.width ?? null}, ${row.height ?? null},
                 ${row.contentSize}, ${row.storageKey}, ${row.maker ?? null}, ${row.madeBy ?? null}, ${row.acceptedBy ?? null}, ${row.ctime}
          where not exists (select 1 from ${previews} p where p.asset_id = ${row.assetId} and p.size = ${row.size}
                            and ${row.versionId ? sql`p.version_id = ${row.versionId}` : sql`p.version_id is null`})
          returning id`,
  ] as const;
}

/** The maker kind of the preview everyone sees for a version and size, if there is one. */
export function sharedPreviewMaker(db: Database, assetId: string, versionId: string, size: string) {
  return db.get<{ maker: string | null }>(
    sql`select maker from ${previews} where asset_id = ${assetId} and version_id = ${versionId} and size = ${size} limit 1`,
  );
}

/** Latest-version previews of readable assets (not in the trash) among `ids`, in one query. */
export function previewsOfAssets(db: Database, ids: readonly string[], size: string, vis: Visibility | null) {
  const latestVersionId = sql`(select v.id from ${assetVersions} v where v.asset_id = a.id and v.version = a.latest_version)`;
  return db.all<{ asset_id: string; version: number; preview_id: string | null }>(
    sql`select a.id as asset_id, a.latest_version as version, ${previewIdFor(sql`a.id`, latestVersionId, size)} as preview_id
        from ${assets} a
        where ${inIds(sql`a.id`, ids)} and a.deleted_at is null and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)}`,
  );
}

/** Previews of the versions that ready variants among `ids` belong to, for readable assets only, in one query. */
export function previewsOfVariants(db: Database, ids: readonly string[], size: string, vis: Visibility | null) {
  return db.all<{ variant_id: string; asset_id: string; version: number; preview_id: string | null }>(
    sql`select va.id as variant_id, va.asset_id as asset_id, av.version as version,
               ${previewIdFor(sql`va.asset_id`, sql`va.version_id`, size)} as preview_id
        from ${variants} va
          join ${assets} a on a.id = va.asset_id
          join ${assetVersions} av on av.id = va.version_id
        where ${inIds(sql`va.id`, ids)} and va.status = 'ready' and a.deleted_at is null and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)}`,
  );
}

/**
 * Deletes every preview row of the given assets and answers their storage keys; for the asset purge (delete the
 * objects from R2 after the batch commits).
 */
export function deletePreviewsOfAssetsStatement(db: Database, assetIds: readonly string[]) {
  return db.delete(previews).where(inIds(previews.assetId, assetIds)).returning({ storageKey: previews.storageKey });
}

/**
 * After a heal stored a version's thumb: its variants' preview stage (decision 027) says done, dropping the reason an
 * earlier run gave («нет постера …»). Only a stage that exists and is not done yet is touched; raw SQL for `runBatch`.
 */
export function healedStageSql(versionId: string) {
  return sql`update ${variants} set tech_fields = json_patch(coalesce(tech_fields, '{}'), '{"processing":{"preview":{"state":"done","reason":null}}}')
             where version_id = ${versionId} and json_valid(tech_fields)
               and json_extract(tech_fields, '$.processing.preview.state') is not null
               and json_extract(tech_fields, '$.processing.preview.state') <> 'done'`;
}
