/** Reads around an asset: its versions and variants, the folders listing it, sizes and technical fields. */
import { ru } from "../../../shared/i18n/ru";
import {
  findReadyVariant,
  selectVersion,
  readyContentSize,
  selectReadyVariants,
  selectReservedUploads,
  selectVersionsByIds,
} from "../../db/repositories/asset-versions.repository";
import { uploadState } from "./pure";
import { listOwnedAssets, selectAssetGroups } from "../../db/repositories/asset.repository";
import { AppError } from "../../lib/errors";
import { aclAssetRows } from "../../db/repositories/access.repository";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import {
  iso,
  toVariantView,
  toVersionEntry,
  mainVariant,
  byName,
  unique,
  requireListSize,
  requireAsset,
  requireReadyVariant,
} from "./asset.service";
import { type VariantView, type VersionEntry, type GroupRef, type VersionView, type AssetListItem, type Paging } from "./asset-shapes";

// ---------------------------------------------------------------------------------------------------------------
// Versions and variants

/**
 * Versions of an asset, newest number first: one row per ready variant (SPEC Version), and one per version
 * create-version made whose bytes are not committed yet (`empty`, or `uploading` while they arrive). Only ready rows
 * have a version id, previews and downloads; the newest ready one is the current version.
 */
export async function listVersions(rc: RequestContext, actor: Actor, id: string): Promise<VersionEntry[]> {
  await requireAsset(rc, actor, id, "read");
  const [ready, reserved] = await Promise.all([selectReadyVariants(rc.db, id), selectReservedUploads(rc.db, id)]);
  const open = reserved.map((u): VersionEntry => ({
    version: u.reservedVersion,
    state: uploadState(u),
    version_id: null,
    desc: null,
    ctime: iso(u.ctime),
    variant_id: u.id,
    variant_name: u.name,
    variant_type: u.variantType,
    user_id: u.userId,
    content_size: Math.max(u.contentSize, 0),
    mime_type: u.mimeType,
    file_name: u.fileName,
  }));
  // Both lists come newest first; a reserved number above every committed one comes first (stable for equal ones).
  return [...open, ...ready.map(toVersionEntry)].sort((a, b) => b.version - a.version);
}

async function versionWithVariants(rc: RequestContext, actor: Actor, id: string, version: number) {
  await requireAsset(rc, actor, id, "read");
  const [versionRows, variants] = await Promise.all([selectVersion(rc.db, id, version), selectReadyVariants(rc.db, id, version)]);
  const row = versionRows[0];
  if (!row) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  return { row, variants };
}

/** One version of an asset with its ready variants. */
export async function getVersion(
  rc: RequestContext,
  actor: Actor,
  id: string,
  version: number,
): Promise<VersionView & { variants: VariantView[] }> {
  const { row, variants } = await versionWithVariants(rc, actor, id, version);
  return {
    version_id: row.id,
    asset_id: row.assetId,
    version: row.version,
    desc: row.description,
    ctime: iso(row.ctime),
    user_id: row.userId,
    variants: variants.map(toVariantView),
  };
}

/** Ready variants of one version of an asset. */
export async function listVariants(rc: RequestContext, actor: Actor, id: string, version: number): Promise<VariantView[]> {
  await requireAsset(rc, actor, id, "read");
  const [versionRows, variants, reserved] = await Promise.all([
    selectVersion(rc.db, id, version),
    selectReadyVariants(rc.db, id, version),
    selectReservedUploads(rc.db, id),
  ]);
  // A number create-version reserved is a version too (listed `state: "empty"` until its bytes commit): its
  // variants are the uploads awaiting their bytes, shown with no hash and the size declared so far.
  const awaiting = reserved.filter((u) => u.reservedVersion === version);
  if (!versionRows[0] && awaiting.length === 0) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  return [
    ...variants.map(toVariantView),
    ...awaiting.map(
      (u): VariantView => ({
        variant_id: u.id,
        storage: u.storageId,
        name: u.name,
        mime_type: u.mimeType,
        format: null,
        variant_type: u.variantType,
        content_size: Math.max(u.contentSize, 0),
        file_name: u.fileName,
        preview_storage_id: null,
        metadata_storage_id: null,
        user_id: u.userId,
        sha256: null,
        ctime: iso(u.ctime),
        version,
      }),
    ),
  ];
}

/** Versions by id (up to 500) that the actor may read; others are left out. */
export async function versionsByIds(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<VersionView[]> {
  const wanted = unique(ids);
  requireListSize(wanted.length);
  if (wanted.length === 0) return [];
  const rows = await selectVersionsByIds(rc.db, wanted, await visibility(rc, actor));
  return rows.map(({ version: v }) => ({
    version_id: v.id,
    asset_id: v.assetId,
    version: v.version,
    desc: v.description,
    ctime: iso(v.ctime),
    user_id: v.userId,
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Related reads

/** Live groups the asset is listed in that the actor can see. */
export async function memberOf(rc: RequestContext, actor: Actor, id: string): Promise<GroupRef[]> {
  await requireAsset(rc, actor, id, "read");
  return byName(
    await selectAssetGroups(rc.db, id, await visibility(rc, actor)),
    (g) => g.group_name,
    (g) => g.group_id,
  );
}

/** Stored bytes of all the asset's ready variants. */
export async function contentSize(rc: RequestContext, actor: Actor, id: string): Promise<{ size: number }> {
  await requireAsset(rc, actor, id, "read");
  return { size: await readyContentSize(rc.db, id) };
}

/**
 * Assets the actor reaches directly: the ones they own and those a rule of theirs (or of their groups) names, that
 * they may read; most recently changed first. Administrators get their own (they reach everything anyway).
 */
export async function aclAssets(rc: RequestContext, actor: Actor, paging: Paging): Promise<AssetListItem[]> {
  const vis = await visibility(rc, actor);
  if (!vis) {
    const rows = await listOwnedAssets(rc.db, { ownerId: actor.id, ...paging });
    return rows.map((a) => ({
      asset_id: a.id,
      name: a.name,
      mimetype: a.mime,
      ctime: iso(a.ctime),
      mtime: iso(a.mtime),
      ver: a.latestVersion,
    }));
  }
  const rows = await aclAssetRows(rc.db, vis, paging);
  return rows.map((a) => ({
    asset_id: a.id,
    name: a.name,
    mimetype: a.mime,
    ctime: iso(a.ctime),
    mtime: iso(a.mtime),
    ver: a.latest_version,
  }));
}

/** Technical fields of a variant of an asset (an empty object until processing fills them). */
export async function techFields(rc: RequestContext, actor: Actor, assetId: string, variantId: string): Promise<Record<string, unknown>> {
  const { row } = await requireReadyVariant(rc, actor, variantId, "read");
  if (row.variant.assetId !== assetId) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  return row.variant.techFields ?? {};
}

/** Technical fields of a variant. */
export async function variantTechFields(
  rc: RequestContext,
  actor: Actor,
  variantId: string,
  assetId?: string,
): Promise<Record<string, unknown>> {
  return (await requireReadyVariant(rc, actor, variantId, "read", assetId)).row.variant.techFields ?? {};
}

/**
 * Technical properties of a variant. The id may also be an asset's: then those of its main variant of the latest
 * version (an empty object while it has none).
 */
export async function variantTechProps(
  rc: RequestContext,
  actor: Actor,
  id: string,
  /** the file the caller says the variant is of */
  assetId?: string,
): Promise<Record<string, unknown>> {
  if (await findReadyVariant(rc.db, id)) return (await requireReadyVariant(rc, actor, id, "read", assetId)).row.variant.techProps ?? {};
  if (assetId !== undefined && assetId !== id) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  await requireAsset(rc, actor, id, "read");
  const main = mainVariant(await selectReadyVariants(rc.db, id, "latest"));
  return main?.variant.techProps ?? {};
}
