import { ru } from "../../../shared/i18n/ru";
import { assetTrashLocations, type TrashLocation } from "./trash-location.service";
import {
  DEFAULT_STORAGE_ID,
  changesOf,
  copyAssetStatements,
  existingClassIds,
  findAsset,
  findAssets,
  findGroupLite,
  findGroupsLite,
  findReadyVariant,
  selectVersion,
  insertAssetsStatements,
  listOwnedAssets,
  listTrashedAssets,
  readyContentSize,
  restoreAssetStatements,
  runBatch,
  selectAssetDetail,
  selectAssetGroups,
  selectEntityTags,
  selectReadyVariants,
  selectUserDefaultStorage,
  selectVersions,
  selectVersionsByIds,
  syncMembershipsStatement,
  touchAtime,
  trashAssetsStatements,
  updateAssetStatement,
  type NewAsset,
  type Statement,
  type ReadyVariant,
} from "../../db/repositories/asset.repository";
import type { AssetRow, VariantType } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID, newId } from "../../lib/ids";
import { TRASH_RETENTION_MS } from "../../lib/trash";
import { aclAssetRows } from "../../db/repositories/access.repository";
import { entityLevels, requireEntityAccess, visibility, type AccessLevel } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { sortKeyOf } from "./group-tree";
import { requireClassFieldsFilled } from "../metadata";

/** Most items one list call (create-list, delete-list, version-by-ids) takes. */
export const MAX_LIST_ITEMS = 500;
/** Variant types that make an asset's main variant (`var`), in order of preference. */
export const MAIN_VARIANT_TYPES: readonly VariantType[] = ["master", "initial", "untyped"];

// ---------------------------------------------------------------------------------------------------------------
// Shapes answered by the API and used by the UI

export interface TagRef {
  tag_id: string;
  tag_name: string;
}

/** SPEC §3 Variant, plus its hash, time and version number. */
export interface VariantView {
  variant_id: string;
  storage: string;
  name: string;
  mime_type: string;
  format: string | null;
  variant_type: VariantType;
  content_size: number;
  file_name: string;
  preview_storage_id: string | null;
  metadata_storage_id: string | null;
  user_id: string;
  sha256: string | null;
  ctime: string;
  version: number;
}

/** SPEC §3 Version: one row per ready variant of a version. */
export interface VersionEntry {
  version: number;
  version_id: string;
  desc: string | null;
  ctime: string;
  variant_id: string;
  variant_name: string;
  variant_type: VariantType;
  user_id: string;
  content_size: number;
  mime_type: string;
  file_name: string;
}

export interface HashEntry {
  alg: "sha256";
  value: string;
}

export interface GroupRef {
  group_id: string;
  group_name: string;
}

/** SPEC §3 Asset with the Info form fields (ver, var, var_size, var_hash). */
export interface AssetInfo {
  asset_id: string;
  name: string;
  owner: string;
  owner_name: string | null;
  creator: string;
  creator_name: string | null;
  ctime: string;
  mtime: string;
  atime: string;
  mimetype: string;
  class: string | null;
  tags: TagRef[];
  default_storage: string;
  /** access levels the caller holds on the asset */
  asset_access: AccessLevel[];
  asset_latest_version: number;
  asset_latest_version_variants: VariantView[];
  /**
   * SPEC §3 asset_links: the folders that list the asset and the caller may see (an asset may be linked into several
   * groups, like a hard link; `member-of` answers the same). SPEC does not say more, see docs/api.md "From SPEC".
   */
  asset_links: GroupRef[];
  /** latest version number; 0 while the asset has no bytes */
  ver: number;
  /** main variant of the latest version (master, else initial, else untyped) */
  var: string | null;
  var_size: number | null;
  var_hash: HashEntry[];
}

/** The sections `GET /api/asset/{id}` adds on request. */
export interface AssetSections {
  versions?: VersionEntry[];
  variants?: VariantView[];
  groups?: GroupRef[];
  tags?: TagRef[];
}

export type AssetView = { asset_id: string } & Partial<AssetInfo> & AssetSections;

/** What `getAsset` reads; `info` (all Asset fields) is on unless set to false. */
export interface AssetOptions {
  info?: boolean;
  versions?: boolean;
  variants?: boolean;
  groups?: boolean;
  tags?: boolean;
}

export interface VersionView {
  version_id: string;
  asset_id: string;
  version: number;
  desc: string | null;
  ctime: string;
  user_id: string;
}

export interface TrashedAsset {
  asset_id: string;
  name: string;
  mimetype: string;
  owner: string;
  ver: number;
  deleted_at: string;
  /** when the asset is purged for good */
  purge_at: string;
  /** the folder it is listed in, where a restore puts it back (null when the caller may not read one) */
  location: TrashLocation | null;
}

export interface AssetListItem {
  asset_id: string;
  name: string;
  mimetype: string;
  ctime: string;
  mtime: string;
  ver: number;
}

export interface CreateAssetInput {
  asset_name: string;
  asset_mime: string;
  in_group?: string | null;
  asset_class?: string | null;
}

export interface UpdateAssetInput {
  asset_name?: string;
  asset_mime?: string;
  asset_class?: string | null;
}

export interface Paging {
  skip: number;
  take: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const iso = (ms: number) => new Date(ms).toISOString();

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

function toVersionEntry(r: ReadyVariant): VersionEntry {
  return {
    version: r.version,
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
function requireOnAsset(
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
function byName<T>(items: T[], name: (item: T) => string, id: (item: T) => string): T[] {
  return items.sort((a, b) => name(a).localeCompare(name(b), "ru", { sensitivity: "base" }) || id(a).localeCompare(id(b)));
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function requireListSize(n: number): void {
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
): Promise<{ row: ReadyVariant; asset: AssetRow }> {
  const row = await findReadyVariant(rc.db, variantId);
  const asset = row ? await findAsset(rc.db, row.variant.assetId) : undefined;
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

// ---------------------------------------------------------------------------------------------------------------
// Create, read, change

/** Assets checked and ready to insert: their rows and the statements (with the `asset.created` events) that insert them. */
export interface AssetCreation {
  rows: NewAsset[];
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
  if (inputs.length === 0) return { rows: [], statements: [] };
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
  return { rows, statements: [...insertAssetsStatements(rc.db, rows, actor.id, now), eventStatement(rc, created)] };
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
  rc.waitUntil(touchAtime(db, id, now));

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
  ]);
  return getAsset(rc, actor, id);
}

// ---------------------------------------------------------------------------------------------------------------
// Trash

/**
 * Moves assets to the trash in one batch, all or nothing: every id must be a live asset the actor may delete.
 * Their memberships are hidden (`trashed_at`) at the same instant; `restoreAsset` undoes it within the retention
 * period (`TRASH_RETENTION_DAYS`), after which `purge-trash` deletes them for good.
 */
export async function trashAssets(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<void> {
  const wanted = unique(ids);
  requireListSize(wanted.length);
  if (wanted.length === 0) return;
  const rows = new Map((await findAssets(rc.db, wanted)).map((a) => [a.id, a]));
  for (const id of wanted) {
    const asset = rows.get(id);
    if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
    await requireOnAsset(rc, actor, asset, "delete");
  }
  const trashed = wanted.map((id) => ({
    type: "asset.trashed",
    entityType: "asset" as const,
    entityId: id,
    ownerId: rows.get(id)!.ownerId,
    actorId: actor.id,
  }));
  await runBatch(rc.db, [...trashAssetsStatements(rc.db, wanted, Date.now()), eventStatement(rc, trashed)]);
}

/** Moves one asset to the trash. */
export async function trashAsset(rc: RequestContext, actor: Actor, id: string): Promise<void> {
  const asset = await requireAsset(rc, actor, id, "delete");
  const trashed = eventStatement(rc, {
    type: "asset.trashed",
    entityType: "asset",
    entityId: id,
    ownerId: asset.ownerId,
    actorId: actor.id,
  });
  await runBatch(rc.db, [...trashAssetsStatements(rc.db, [id], Date.now()), trashed]);
}

/** Takes an asset out of the trash within `TRASH_RETENTION_DAYS` (409 when it is not in the trash, 404 when expired). */
export async function restoreAsset(rc: RequestContext, actor: Actor, id: string): Promise<AssetInfo & AssetSections> {
  const asset = await findAsset(rc.db, id);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireOnAsset(rc, actor, asset, "delete");
  if (asset.deletedAt == null) throw new AppError("CONFLICT", ru.assets.notInTrash);
  const now = Date.now();
  if (now - asset.deletedAt > TRASH_RETENTION_MS) throw new AppError("NOT_FOUND", ru.assets.restoreExpired);
  const event = eventStatement(rc, {
    type: "asset.restored",
    entityType: "asset",
    entityId: id,
    ownerId: asset.ownerId,
    actorId: actor.id,
  });
  const [restored] = await runBatch(rc.db, [...restoreAssetStatements(rc.db, id, asset.deletedAt, now), event]);
  if (changesOf(restored) === 0) throw new AppError("CONFLICT", ru.assets.notInTrash);
  return getAsset(rc, actor, id);
}

/** Trashed assets that can still be restored, newest first: the caller's own (an administrator sees everyone's). */
export async function trashedAssetsPage(rc: RequestContext, actor: Actor, paging: Paging): Promise<TrashedAsset[]> {
  const rows = await listTrashedAssets(rc.db, { vis: await visibility(rc, actor), since: Date.now() - TRASH_RETENTION_MS, ...paging });
  const locations = await assetTrashLocations(
    rc,
    actor,
    rows.map((a) => a.id),
  );
  return rows.map((a) => ({
    asset_id: a.id,
    name: a.name,
    mimetype: a.mime,
    owner: a.ownerId,
    ver: a.latestVersion,
    deleted_at: iso(a.deletedAt ?? 0),
    purge_at: iso((a.deletedAt ?? 0) + TRASH_RETENTION_MS),
    location: locations.get(a.id) ?? null,
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Versions and variants

/** Versions of an asset, newest first: one row per ready variant (SPEC Version). */
export async function listVersions(rc: RequestContext, actor: Actor, id: string): Promise<VersionEntry[]> {
  await requireAsset(rc, actor, id, "read");
  return (await selectReadyVariants(rc.db, id)).map(toVersionEntry);
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
  return (await versionWithVariants(rc, actor, id, version)).variants.map(toVariantView);
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
export async function variantTechFields(rc: RequestContext, actor: Actor, variantId: string): Promise<Record<string, unknown>> {
  return (await requireReadyVariant(rc, actor, variantId, "read")).row.variant.techFields ?? {};
}

/**
 * Technical properties of a variant. The id may also be an asset's: then those of its main variant of the latest
 * version (an empty object while it has none).
 */
export async function variantTechProps(rc: RequestContext, actor: Actor, id: string): Promise<Record<string, unknown>> {
  if (await findReadyVariant(rc.db, id)) return (await requireReadyVariant(rc, actor, id, "read")).row.variant.techProps ?? {};
  await requireAsset(rc, actor, id, "read");
  const main = mainVariant(await selectReadyVariants(rc.db, id, "latest"));
  return main?.variant.techProps ?? {};
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
    ),
  );
  return { asset_id: copyId };
}
