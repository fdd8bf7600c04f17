import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { inList, type Statement } from "./asset.repository";
import { nextVersionSql } from "./asset-versions.repository";
import { assets, groupMembers, previews, variants } from "../schema/index";

/**
 * Queries of version management (restore an old version as the newest, delete one version, its comment) and of the
 * upload name-clash check. Writes are returned as statements for the caller's one `runBatch` (a D1 transaction).
 */

export interface RestorePlan {
  assetId: string;
  /** the version being restored */
  sourceVersionId: string;
  /** id of the new version */
  versionId: string;
  /** [source variant id, new variant id] */
  variants: [string, string][];
  /** [source preview id, new preview id, new storage key]: preview bytes are copied (a preview is replaced in place) */
  previews: [string, string, string][];
  description: string;
  userId: string;
  /** the new version's main variant size: the asset's size in its folders */
  size: number;
  now: number;
}

/**
 * Restoring version N as the newest: a NEW version (max + 1, computed inside the transaction) whose variants and
 * previews are copies of N's rows pointing at the SAME storage objects (copy-on-write, as `copyAsset` does: nothing
 * is duplicated in storage and purges delete an object only when no row references it any more). Previews get their
 * own copies of the bytes (the caller copies them first): replacing a preview deletes its old object directly.
 * Every statement
 * after the first runs only if the new version row exists, so a lost race (N deleted meanwhile, asset trashed)
 * changes nothing; the caller checks the first statement's changes.
 */
export function restoreVersionStatements(p: RestorePlan): Statement[] {
  const made = sql`exists (select 1 from asset_versions where id = ${p.versionId})`;
  return [
    sql`insert into asset_versions (id, asset_id, version, description, user_id, ctime)
      select ${p.versionId}, ${p.assetId}, ${nextVersionSql(p.assetId)},
        ${p.description}, ${p.userId}, ${p.now}
      where exists (select 1 from asset_versions where id = ${p.sourceVersionId} and asset_id = ${p.assetId})
        and exists (select 1 from assets where id = ${p.assetId} and deleted_at is null)`,
    sql`insert into variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size,
        sha256, storage_id, storage_key, preview_storage_id, metadata_storage_id, tech_fields, tech_props, to_group, user_id, ctime,
        made_by, accepted_by)
      select json_extract(m.value, '$[1]'), ${p.assetId}, ${p.versionId}, v.variant_type, 'ready', v.name, v.mime_type,
        v.format, v.file_name, v.content_size, v.sha256, v.storage_id, v.storage_key, v.preview_storage_id, v.metadata_storage_id,
        v.tech_fields, v.tech_props, null, ${p.userId}, ${p.now}, v.made_by, v.accepted_by
      from json_each(${JSON.stringify(p.variants)}) m join variants v on v.id = json_extract(m.value, '$[0]')
      where v.status = 'ready' and v.version_id = ${p.sourceVersionId} and ${made}`,
    sql`insert into previews (id, asset_id, version_id, size, mime_type, width, height, content_size, storage_key, ctime,
        maker, made_by, accepted_by)
      select json_extract(m.value, '$[1]'), ${p.assetId}, ${p.versionId}, pv.size, pv.mime_type, pv.width, pv.height,
        pv.content_size, json_extract(m.value, '$[2]'), ${p.now}, pv.maker, pv.made_by, pv.accepted_by
      from json_each(${JSON.stringify(p.previews)}) m join previews pv on pv.id = json_extract(m.value, '$[0]')
      where ${made}`,
    sql`update assets set latest_version = (select version from asset_versions where id = ${p.versionId}), mtime = ${p.now}
      where id = ${p.assetId} and ${made}`,
    sql`update group_members set el_size = ${p.size}, el_mtime = ${p.now}
      where el_id = ${p.assetId} and el_type = 'asset' and ${made}`,
  ];
}

/** Previews made for one version (copied along when it is restored, deleted with it). */
export function selectVersionPreviews(db: Database, assetId: string, versionId: string) {
  return db
    .select({ id: previews.id, storageKey: previews.storageKey })
    .from(previews)
    .where(and(eq(previews.assetId, assetId), eq(previews.versionId, versionId)));
}

/** Storage objects of one version's variants (any status) — what may have to go from storage after it is deleted. */
export function selectVersionObjects(db: Database, versionId: string) {
  return db.select({ storageId: variants.storageId, storageKey: variants.storageKey }).from(variants).where(eq(variants.versionId, versionId));
}

export interface DeleteVersionPlan {
  assetId: string;
  versionId: string;
  /** the version that is newest once this one is gone */
  latest: number;
  /** the main variant size of that version: the asset's size in its folders */
  size: number;
  now: number;
}

/**
 * Deleting one version with its variants and previews. Each statement runs only while the asset still has more than
 * one version (evaluated before the version row itself goes, last), so two concurrent deletes can never leave an
 * asset without versions: the loser deletes nothing. The caller checks the last statement's changes.
 */
export function deleteVersionStatements(p: DeleteVersionPlan): Statement[] {
  const notLast = sql`(select count(*) from asset_versions where asset_id = ${p.assetId}) > 1`;
  return [
    sql`delete from previews where asset_id = ${p.assetId} and version_id = ${p.versionId} and ${notLast}`,
    sql`delete from field_values where entity_id = ${p.assetId} and version_id = ${p.versionId} and ${notLast}`,
    sql`delete from variants where asset_id = ${p.assetId} and version_id = ${p.versionId} and ${notLast}`,
    // The newest version left, read inside the transaction (an upload committing meanwhile is not overwritten).
    sql`update assets set latest_version = coalesce((select max(version) from asset_versions where asset_id = ${p.assetId} and id != ${p.versionId}), ${p.latest}), mtime = ${p.now}
      where id = ${p.assetId} and ${notLast} and exists (select 1 from asset_versions where id = ${p.versionId})`,
    sql`update group_members set el_size = ${p.size}, el_mtime = ${p.now}
      where el_id = ${p.assetId} and el_type = 'asset' and ${notLast} and exists (select 1 from asset_versions where id = ${p.versionId})`,
    sql`delete from asset_versions where id = ${p.versionId} and asset_id = ${p.assetId} and ${notLast}`,
  ];
}

/** A version's comment (SPEC §3 Version.desc); null clears it. */
export function updateVersionDescriptionStatement(assetId: string, version: number, description: string | null): Statement {
  return sql`update asset_versions set description = ${description} where asset_id = ${assetId} and version = ${version}`;
}

/**
 * Live assets listed in a group whose name matches one of `names` case-insensitively (the folder's sort key is the
 * lower-cased name, so this is a range of the `group_members_by_name` index, however big the folder), that the
 * caller may read. A handful of rows per name at most.
 */
export function selectAssetsNamed(db: Database, groupId: string, lowerNames: readonly string[], vis: Visibility | null) {
  return db
    .select({ id: assets.id, name: assets.name, latestVersion: assets.latestVersion, mtime: assets.mtime, sortName: groupMembers.sortName })
    .from(groupMembers)
    .innerJoin(assets, eq(assets.id, groupMembers.elId))
    .where(
      and(
        eq(groupMembers.groupId, groupId),
        eq(groupMembers.elType, "asset"),
        isNull(groupMembers.trashedAt),
        sql`${groupMembers.sortName} in ${inList(lowerNames)}`,
        isNull(assets.deletedAt),
        visibleSql(vis, "asset", sql`${assets.id}`, sql`${assets.ownerId}`),
      ),
    );
}
