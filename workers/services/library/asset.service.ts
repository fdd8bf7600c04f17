import { ru } from "../../../shared/i18n/ru";
import { DEFAULT_STORAGE_ID, copyAssetStatements, existingClassIds, findAsset, findGroupLite, findGroupsLite, insertAssetsStatements, runBatch, selectAssetDetail, selectAssetGroups, selectEntityTags, selectUserDefaultStorage, syncMembershipsStatement, touchAtime, updateAssetStatement, type NewAsset, type Statement } from "../../db/repositories/asset.repository";
import { findReadyVariant, selectReadyVariants, selectVersions, type ReadyVariant } from "../../db/repositories/asset-versions.repository";
import type { AssetRow, VariantType } from "../../db/schema/index";
import { AppError, isLibraryMoving } from "../../lib/errors";
import { ROOT_GROUP_ID, newId } from "../../lib/ids";
import { entityLevels, fileAuditStatement, requireEntityAccess, requireRelistable, visibility, type AccessLevel } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { membershipsIn } from "../../db/repositories/group.repository";
import { sortKeyOf } from "./group-tree";
import { requireClassFieldsFilled } from "../metadata";
import {
  type VariantView,
  type VersionEntry,
  type GroupRef,
  type AssetInfo,
  type AssetSections,
  type AssetView,
  type AssetOptions,
  type CreateAssetInput,
  type UpdateAssetInput,
} from "./asset-shapes";

/** Most items one list call (create-list, delete-list, version-by-ids) takes. */
export const MAX_LIST_ITEMS = 500;
/** Variant types that make an asset's main variant (`var`), in order of preference. */
export const MAIN_VARIANT_TYPES: readonly VariantType[] = ["master", "initial", "untyped"];

// ---------------------------------------------------------------------------------------------------------------
// Helpers

export const iso = (ms: number) => new Date(ms).toISOString();

export function toVariantView(r: ReadyVariant): VariantView {
  const v = r.variant;
  return {
    variant_id: v.id,
    storage: v.storageId,
    name: v.name,
    mime_type: v.mimeType,
    format: v.format,
    variant_type: v.variantType,
    content_size: v.contentSize,
    file_name: v.fileName,
    preview_storage_id: v.previewStorageId,
    metadata_storage_id: v.metadataStorageId,
    user_id: v.userId,
    sha256: v.sha256,
    ctime: iso(v.ctime),
    version: r.version,
  };
}

export function toVersionEntry(r: ReadyVariant): VersionEntry {
  return {
    version: r.version,
    state: "ready",
    version_id: r.versionId,
    desc: r.versionDesc,
    ctime: iso(r.versionCtime),
    variant_id: r.variant.id,
    variant_name: r.variant.name,
    variant_type: r.variant.variantType,
    user_id: r.versionUser,
    content_size: r.variant.contentSize,
    mime_type: r.variant.mimeType,
    file_name: r.variant.fileName,
  };
}

/** The main variant among one version's ready variants (sorted by VARIANT_ORDER). */
export function mainVariant(rows: readonly ReadyVariant[]): ReadyVariant | undefined {
  for (const type of MAIN_VARIANT_TYPES) {
    const found = rows.find((r) => r.variant.variantType === type);
    if (found) return found;
  }
  return undefined;
}

/** `level` on an asset through the one access entry point (404 when not readable, else 403). */
export function requireOnAsset(
  rc: RequestContext,
  actor: Actor,
  asset: { id: string; ownerId: string },
  level: AccessLevel,
  notFound: string = ru.assets.notFound,
) {
  return requireEntityAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, level, notFound);
}

/** `create` on a group an asset goes into. */
function requireCreateIn(rc: RequestContext, actor: Actor, group: { id: string; ownerId: string | null }) {
  return requireEntityAccess(rc, actor, { id: group.id, type: "group", ownerId: group.ownerId }, "create", ru.groups.notFound);
}

/** Orders a short list by name the way people read it (Unicode-aware, case-insensitive), id as the tie-breaker. */
export function byName<T>(items: T[], name: (item: T) => string, id: (item: T) => string): T[] {
  return items.sort((a, b) => name(a).localeCompare(name(b), "ru", { sensitivity: "base" }) || id(a).localeCompare(id(b)));
}

export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function requireListSize(n: number): void {
  if (n > MAX_LIST_ITEMS) throw new AppError("BAD_REQUEST", ru.assets.tooMany(MAX_LIST_ITEMS));
}

/**
 * Loads a live (not trashed) asset and checks `level` on it: 404 when missing, trashed or not readable by the actor,
 * 403 when readable but `level` is not held.
 */
export async function requireAsset(rc: RequestContext, actor: Actor, id: string, level: AccessLevel): Promise<AssetRow> {
  const asset = await findAsset(rc.db, id);
  if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireOnAsset(rc, actor, asset, level);
  return asset;
}

/**
 * A ready variant and its live asset, checking `level` on the asset. A variant the actor may not read is reported
 * as missing (404 'Вариант файла не найден'), so its existence does not leak.
 */
export async function requireReadyVariant(
  rc: RequestContext,
  actor: Actor,
  variantId: string,
  level: AccessLevel,
  /** the file the caller says it is of (which placed the read): a variant of another file is not found */
  assetId?: string,
): Promise<{ row: ReadyVariant; asset: AssetRow }> {
  const row = await findReadyVariant(rc.db, variantId);
  const asset = row && (assetId === undefined || row.variant.assetId === assetId) ? await findAsset(rc.db, row.variant.assetId) : undefined;
  if (!row || !asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  await requireOnAsset(rc, actor, asset, level, ru.assets.variantNotFound);
  return { row, asset };
}

/**
 * A group an asset may be put into by the actor: not the virtual root (400), live (404), and the actor holds
 * `create` on it (group owner or admin; 404 when they cannot even read it).
 */
export async function requireTargetGroup(rc: RequestContext, actor: Actor, groupId: string) {
  if (groupId === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.assets.notInRoot);
  const group = await findGroupLite(rc.db, groupId);
  if (!group || group.deletedAt != null) throw new AppError("NOT_FOUND", ru.groups.notFound);
  await requireCreateIn(rc, actor, group);
  return group;
}

/**
 * The `to_group` of a new version of an existing asset: `requireTargetGroup`, and — since committing lists the asset
 * there, handing it that folder's rules — acl on the asset unless it already has a row there (decision 026).
 */
export async function requireVersionTarget(
  rc: RequestContext,
  actor: Actor,
  asset: { id: string; ownerId: string; name: string },
  groupId: string,
) {
  const group = await requireTargetGroup(rc, actor, groupId);
  if ((await membershipsIn(rc.db, groupId, [asset.id])).length === 0) {
    await requireRelistable(rc, actor, [{ id: asset.id, type: "asset", ownerId: asset.ownerId, name: asset.name }], ru.assets.notFound);
  }
  return group;
}

// ---------------------------------------------------------------------------------------------------------------
// Create, read, change

/** Assets checked and ready to insert: their rows and the statements (with the `asset.created` events) that insert them. */
export interface AssetCreation {
  rows: NewAsset[];
  /** the same assets as their rows will read once `statements` ran (for callers that commit bytes in that batch) */
  assets: AssetRow[];
  statements: Statement[];
}

/**
 * Checks new assets (up to 500) and prepares their insertion without writing anything: each listed in its `in_group`
 * (never the virtual root; the actor needs create on the group) with an optional class. New assets have no bytes yet
 * (version 0); their storage is the group's default storage, else the user's, else R2. The caller runs `statements`
 * in one batch, alone (`createAssets`) or with the statements of its own change (the one-request upload).
 */
export async function planAssetCreation(rc: RequestContext, actor: Actor, inputs: readonly CreateAssetInput[]): Promise<AssetCreation> {
  requireListSize(inputs.length);
  if (inputs.length === 0) return { rows: [], assets: [], statements: [] };
  const groupIds = unique(inputs.map((i) => i.in_group).filter((g): g is string => !!g));
  if (groupIds.includes(ROOT_GROUP_ID)) throw new AppError("BAD_REQUEST", ru.assets.notInRoot);
  const classIds = unique(inputs.map((i) => i.asset_class).filter((c): c is string => !!c));
  const [groupRows, classRows, userRows] = await Promise.all([
    findGroupsLite(rc.db, groupIds),
    existingClassIds(rc.db, classIds),
    selectUserDefaultStorage(rc.db, actor.id),
  ]);
  const groupsById = new Map(groupRows.map((g) => [g.id, g]));
  for (const id of groupIds) {
    const group = groupsById.get(id);
    if (!group || group.deletedAt != null) throw new AppError("NOT_FOUND", ru.groups.notFound);
    await requireCreateIn(rc, actor, group);
  }
  const classes = new Set(classRows.map((c) => c.id));
  if (classIds.some((c) => !classes.has(c))) throw new AppError("NOT_FOUND", ru.assets.classNotFound);

  const now = Date.now();
  const userStorage = userRows[0]?.defaultStorage ?? null;
  const rows: NewAsset[] = inputs.map((input) => {
    const group = input.in_group ? groupsById.get(input.in_group) : undefined;
    return {
      id: newId(now),
      name: input.asset_name,
      mime: input.asset_mime,
      class: input.asset_class ?? null,
      storage: group?.defaultStorage ?? userStorage ?? DEFAULT_STORAGE_ID,
      group: input.in_group ?? null,
      sort: sortKeyOf(input.asset_name),
    };
  });
  const created = rows.map((r) => ({
    type: "asset.created",
    entityType: "asset" as const,
    entityId: r.id,
    ownerId: actor.id,
    actorId: actor.id,
    data: { name: r.name, group_id: r.group },
  }));
  const assets = rows.map(
    (r): AssetRow => ({
      id: r.id,
      name: r.name,
      mime: r.mime,
      ownerId: actor.id,
      creatorId: actor.id,
      classId: r.class,
      defaultStorage: r.storage,
      latestVersion: 0,
      ctime: now,
      mtime: now,
      atime: now,
      deletedAt: null,
    }),
  );
  return { rows, assets, statements: [...insertAssetsStatements(rc.db, rows, actor.id, now), eventStatement(rc, created)] };
}

/**
 * Creates assets (up to 500) in one batch, all or nothing (see `planAssetCreation`).
 * @example await createAssets(rc, actor, [{ asset_name: "Клип.mp4", asset_mime: "video/mp4", in_group: groupId }])
 */
export async function createAssets(rc: RequestContext, actor: Actor, inputs: readonly CreateAssetInput[]): Promise<{ asset_id: string }[]> {
  const { rows, statements } = await planAssetCreation(rc, actor, inputs);
  await runBatch(rc.db, statements);
  return rows.map((r) => ({ asset_id: r.id }));
}

/** Creates one asset (see `createAssets`). */
export async function createAsset(rc: RequestContext, actor: Actor, input: CreateAssetInput): Promise<{ asset_id: string }> {
  const [created] = await createAssets(rc, actor, [input]);
  return created;
}

/**
 * One asset: the SPEC Asset fields and Info form (unless `info: false`) plus the sections asked for, read with
 * concurrent queries. Updates `atime` in the background (at most once a minute).
 */
export async function getAsset(
  rc: RequestContext,
  actor: Actor,
  id: string,
  options?: AssetOptions & { info?: true },
): Promise<AssetInfo & AssetSections>;
export async function getAsset(rc: RequestContext, actor: Actor, id: string, options: AssetOptions): Promise<AssetView>;
export async function getAsset(rc: RequestContext, actor: Actor, id: string, options: AssetOptions = {}): Promise<AssetView> {
  const info = options.info !== false;
  const db = rc.db;
  // Separate statements run concurrently (not db.batch: Drizzle 0.45 maps batched joins with repeated column names
  // wrongly); each section is one indexed query.
  const none = Promise.resolve([]);
  const [details, tags, latest, all, groups] = await Promise.all([
    selectAssetDetail(db, id),
    selectEntityTags(db, id),
    selectReadyVariants(db, id, "latest"),
    options.versions || options.variants ? selectReadyVariants(db, id) : (none as Promise<ReadyVariant[]>),
    options.groups || info ? visibility(rc, actor).then((vis) => selectAssetGroups(db, id, vis)) : (none as Promise<GroupRef[]>),
  ]);
  byName(
    tags,
    (t) => t.tag_name,
    (t) => t.tag_id,
  );
  byName(
    groups,
    (g) => g.group_name,
    (g) => g.group_id,
  );
  const detail = details[0];
  if (!detail || detail.asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const asset = detail.asset;
  await requireOnAsset(rc, actor, asset, "read");

  const now = Date.now();
  // A library being switched into its shard refuses writes for those seconds; a view goes on without its atime.
  rc.waitUntil(
    touchAtime(db, id, now).then(undefined, (error: unknown) => {
      if (!isLibraryMoving(error)) throw error;
    }),
  );

  const view: AssetView = { asset_id: asset.id };
  if (info) {
    const main = mainVariant(latest);
    Object.assign(view, {
      name: asset.name,
      owner: asset.ownerId,
      owner_name: detail.ownerName,
      creator: asset.creatorId,
      creator_name: detail.creatorName,
      ctime: iso(asset.ctime),
      mtime: iso(asset.mtime),
      atime: iso(asset.atime),
      mimetype: asset.mime,
      class: asset.classId,
      tags,
      default_storage: asset.defaultStorage ?? DEFAULT_STORAGE_ID,
      asset_access: (await entityLevels(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId })).filter((l) => l !== "deny"),
      asset_latest_version: asset.latestVersion,
      asset_latest_version_variants: latest.map(toVariantView),
      asset_links: groups,
      ver: asset.latestVersion,
      var: main?.variant.id ?? null,
      var_size: main?.variant.contentSize ?? null,
      var_hash: main?.variant.sha256 ? [{ alg: "sha256", value: main.variant.sha256 }] : [],
      review_status: detail.reviewStatus ?? null,
    } satisfies Omit<AssetInfo, "asset_id">);
  } else if (options.tags) {
    view.tags = tags;
  }
  if (options.versions) view.versions = all.map(toVersionEntry);
  if (options.variants) view.variants = all.map(toVariantView);
  if (options.groups) view.groups = groups;
  return view;
}

/**
 * Renames an asset, changes its MIME type or class (null clears it). Its membership rows get the new sort name
 * and mtime in the same batch, so group listings stay sorted.
 */
export async function updateAsset(
  rc: RequestContext,
  actor: Actor,
  id: string,
  input: UpdateAssetInput,
): Promise<AssetInfo & AssetSections> {
  const before = await requireAsset(rc, actor, id, "update");
  if (input.asset_class) {
    const found = await existingClassIds(rc.db, [input.asset_class]);
    if (found.length === 0) throw new AppError("NOT_FOUND", ru.assets.classNotFound);
    // A class whose required fields are empty on this asset is set through POST /api/fields/apply with the values.
    await requireClassFieldsFilled(rc, id, input.asset_class);
  }
  const now = Date.now();
  const set = {
    mtime: now,
    ...(input.asset_name !== undefined ? { name: input.asset_name } : {}),
    ...(input.asset_mime !== undefined ? { mime: input.asset_mime } : {}),
    ...(input.asset_class !== undefined ? { classId: input.asset_class } : {}),
  };
  await runBatch(rc.db, [
    updateAssetStatement(rc.db, id, set),
    syncMembershipsStatement(rc.db, id, {
      mtime: now,
      ...(input.asset_name !== undefined ? { sortName: sortKeyOf(input.asset_name) } : {}),
    }),
    eventStatement(rc, {
      type: "asset.updated",
      entityType: "asset",
      entityId: id,
      ownerId: before.ownerId,
      actorId: actor.id,
      data: { ...input },
    }),
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: input.asset_name !== undefined && input.asset_name !== before.name ? "rename" : "update",
      targets: {
        type: "asset",
        id,
        details: input.asset_name !== undefined && input.asset_name !== before.name ? { from: before.name } : { fields: Object.keys(input) },
      },
    }),
  ]);
  return getAsset(rc, actor, id);
}

// ---------------------------------------------------------------------------------------------------------------
// Copy

/**
 * Copies an asset into a group: a new asset owned by the actor with the same name, MIME type, class and tags, and
 * the same versions and ready variants. Variants of the copy reference the SAME storage objects (copy-on-write: no
 * bytes are duplicated), which is why purging deletes an object only when no variant references its key any more
 * (`unreferencedKeys`). Needs read and download on the asset and create on the group; one batch.
 */
export async function copyAsset(rc: RequestContext, actor: Actor, assetId: string, groupId: string): Promise<{ asset_id: string }> {
  const source = await requireAsset(rc, actor, assetId, "read");
  await requireOnAsset(rc, actor, source, "download");
  await requireTargetGroup(rc, actor, groupId);
  const [versions, ready] = await Promise.all([selectVersions(rc.db, assetId), selectReadyVariants(rc.db, assetId)]);
  const now = Date.now();
  const copyId = newId(now);
  const versionIds = new Map(versions.map((v) => [v.id, newId(now)]));
  const latest = versions[0]?.version ?? 0;
  const main = mainVariant(ready.filter((r) => r.version === latest));
  await runBatch(
    rc.db,
    copyAssetStatements(rc.db, {
      sourceId: assetId,
      asset: {
        id: copyId,
        name: source.name,
        mime: source.mime,
        ownerId: actor.id,
        creatorId: actor.id,
        classId: source.classId,
        defaultStorage: source.defaultStorage,
        latestVersion: latest,
        ctime: now,
        mtime: now,
        atime: now,
      },
      versions: [...versionIds],
      variants: ready.map((r) => [r.variant.id, newId(now), versionIds.get(r.versionId) ?? r.versionId]),
      member: { groupId, sortName: sortKeyOf(source.name), size: main?.variant.contentSize ?? 0, now },
    }).concat(
      eventStatement(rc, {
        type: "asset.created",
        entityType: "asset",
        entityId: copyId,
        ownerId: actor.id,
        actorId: actor.id,
        data: { name: source.name, group_id: groupId, copied_from: assetId },
      }),
      fileAuditStatement(rc, {
        actorId: actor.id,
        verb: "copy",
        targets: { type: "asset", id: copyId, name: source.name, folderId: groupId, details: { asset_id: assetId } },
      }),
    ),
  );
  return { asset_id: copyId };
}
