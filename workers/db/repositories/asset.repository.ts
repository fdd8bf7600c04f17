import { SQL, and, desc, eq, gt, is, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { SQLiteAsyncDialect, alias } from "drizzle-orm/sqlite-core";
import type { Database } from "../client";
import { SWITCHED_IDS_SQL } from "../library-directory";
import { inLibraryScope, type LibraryScope } from "./library-scope";
import { visibleSql, type Visibility } from "./access.repository";
import {
  assetClasses,
  assetVersions,
  assets,
  entityTags,
  groupMembers,
  groups,
  previews,
  tags,
  users,
  variants,
  type AssetRow,
} from "../schema/index";
import { deletePreviewsOfAssetsStatement } from "./preview.repository";
import { detachAllTagsStatement } from "./tag.repository";
import { currentReviewStatusSql } from "./review.repository";

/**
 * Queries of the asset capability (queries only: access rules live in asset.service). Id lists are bound as one JSON
 * parameter (`json_each`), so no statement exceeds D1's 100 bound parameters whatever the list length; every write
 * that must stay consistent is returned as a statement for the caller's one `runBatch` (a D1 transaction). Reads
 * are awaited on their own (concurrently where useful): Drizzle 0.45's `db.batch` maps joined selects whose tables
 * share column names (id, ctime …) wrongly.
 */

/** The default storage row (the R2 binding MEDIA), created by migration 0002. */
export const DEFAULT_STORAGE_ID = "0".repeat(32);

const dialect = new SQLiteAsyncDialect();

/**
 * A write statement for `runBatch`: a Drizzle query builder or raw `sql`. (Drizzle 0.45's own `db.batch` cannot take
 * raw `sql` with parameters, so writes are batched on the D1 binding directly.)
 */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/** Runs statements as one D1 batch (one transaction: all or nothing) and answers each one's result. */
export async function runBatch(db: Database, statements: Statement[]): Promise<D1Result[]> {
  if (statements.length === 0) return [];
  const d1 = db.$client;
  return d1.batch(
    statements.map((s) => {
      const q = is(s, SQL) ? dialect.sqlToQuery(s) : s.toSQL();
      return d1.prepare(q.sql).bind(...q.params);
    }),
  );
}

/** Whether a write statement of a batch changed any row (D1's `changes` also counts what its triggers wrote). */
export function changesOf(result: unknown): number {
  return (result as { meta?: { changes?: number } }).meta?.changes ?? 0;
}

/**
 * Rows a write statement ending in `returning` touched: the exact count to report, since D1's `meta.changes` also
 * counts the rows triggers wrote (search documents, folder rollups).
 */
export function returnedRows(result: unknown): number {
  if (Array.isArray(result)) return result.length;
  return (result as { results?: unknown[] }).results?.length ?? 0;
}

/** `(select value from json_each(?))`: a list as one bound parameter. */
export function inList(values: readonly string[]): SQL {
  return sql`(select value from json_each(${JSON.stringify(values)}))`;
}

/** Variants in the order people want them: the master first, then the original upload, then renditions. */
export const VARIANT_ORDER = sql.raw(
  `case variant_type when 'master' then 0 when 'initial' then 1 when 'untyped' then 2 when 'proxy_highres' then 3 when 'proxy_lowres' then 4 else 5 end`,
);

const owner = alias(users, "owner");
const creator = alias(users, "creator");

// ---------------------------------------------------------------------------------------------------------------
// Assets

export function findAsset(db: Database, id: string): Promise<AssetRow | undefined> {
  return db.select().from(assets).where(eq(assets.id, id)).get();
}

/** Assets by id (any number), trashed ones included: the caller decides. */
export function findAssets(db: Database, ids: readonly string[]) {
  return db
    .select()
    .from(assets)
    .where(sql`${assets.id} in ${inList(ids)}`);
}

/** An asset with its owner's and creator's names (at most one row). */
export function selectAssetDetail(db: Database, id: string) {
  return db
    .select({
      asset: assets,
      ownerName: owner.name,
      creatorName: creator.name,
      // read in the same statement: the review badge costs the asset call no round trip
      reviewStatus: currentReviewStatusSql(assets.id, assets.latestVersion),
    })
    .from(assets)
    .leftJoin(owner, eq(owner.id, assets.ownerId))
    .leftJoin(creator, eq(creator.id, assets.creatorId))
    .where(eq(assets.id, id))
    .limit(1);
}

/** Tags of an entity (a handful: the caller orders them by name). */
export function selectEntityTags(db: Database, entityId: string) {
  return db
    .select({ tag_id: tags.id, tag_name: tags.name })
    .from(entityTags)
    .innerJoin(tags, eq(tags.id, entityTags.tagId))
    .where(eq(entityTags.entityId, entityId));
}

export interface NewAsset {
  id: string;
  name: string;
  mime: string;
  class: string | null;
  storage: string;
  /** group the asset is listed in, if any */
  group: string | null;
  /** `sort_name` of its membership row */
  sort: string;
}

/**
 * Inserts assets and their memberships from one JSON parameter each: two statements for up to 500 assets, inside
 * D1's statement and parameter limits.
 */
export function insertAssetsStatements(_db: Database, rows: readonly NewAsset[], actorId: string, now: number): Statement[] {
  const json = JSON.stringify(rows);
  return [
    sql`insert into assets (id, name, mime, owner_id, creator_id, class_id, default_storage, latest_version, ctime, mtime, atime)
      select json_extract(value, '$.id'), json_extract(value, '$.name'), json_extract(value, '$.mime'), ${actorId}, ${actorId},
        json_extract(value, '$.class'), json_extract(value, '$.storage'), 0, ${now}, ${now}, ${now}
      from json_each(${json})`,
    sql`insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      select json_extract(value, '$.group'), json_extract(value, '$.id'), 'asset', ${now}, json_extract(value, '$.sort'), ${now}, 0
      from json_each(${json}) where json_extract(value, '$.group') is not null`,
  ];
}

/** A user's default storage, if set (at most one row). */
export function selectUserDefaultStorage(db: Database, userId: string) {
  return db.select({ defaultStorage: users.defaultStorage }).from(users).where(eq(users.id, userId)).limit(1);
}

/** Changes an asset's own columns (mtime included by the caller). */
export function updateAssetStatement(db: Database, id: string, set: Partial<Pick<AssetRow, "name" | "mime" | "classId" | "mtime">>) {
  return db
    .update(assets)
    .set(set)
    .where(and(eq(assets.id, id), isNull(assets.deletedAt)));
}

/** Keeps an asset's membership rows sorting correctly after a rename or any change of its mtime. */
export function syncMembershipsStatement(db: Database, assetId: string, set: { sortName?: string; mtime: number; size?: number }) {
  return db
    .update(groupMembers)
    .set({
      elMtime: set.mtime,
      ...(set.sortName !== undefined ? { sortName: set.sortName } : {}),
      ...(set.size !== undefined ? { elSize: set.size } : {}),
    })
    .where(and(eq(groupMembers.elId, assetId), eq(groupMembers.elType, "asset")));
}

/**
 * `syncMembershipsStatement` for the listings the catalog owns: those in a library that lives in its shard are the
 * shard's to change (the catalog refuses them), and `switchedListings` says which assets have any.
 */
export function syncCatalogMembershipsStatement(db: Database, assetId: string, set: { sortName: string; mtime: number; size: number }) {
  return db
    .update(groupMembers)
    .set({ elMtime: set.mtime, sortName: set.sortName, elSize: set.size })
    .where(
      and(
        eq(groupMembers.elId, assetId),
        eq(groupMembers.elType, "asset"),
        sql`${groupMembers.groupId} not in (${sql.raw(SWITCHED_IDS_SQL)})`,
      ),
    );
}

/** Of assets `ids`, those listed in a library that lives in its shard, with that library. */
export async function switchedListings(db: Database, ids: readonly string[]): Promise<{ assetId: string; library: string }[]> {
  return db.all<{ assetId: string; library: string }>(sql`
    select distinct m.el_id as assetId, d.library_id as library
    from group_members m join id_directory d on d.id = m.group_id join library_directory l on l.library_id = d.library_id
    where l.state <> 'copying' and m.el_type = 'asset' and m.el_id in (select value from json_each(${JSON.stringify(ids)}))`);
}

/** Moves assets to the trash: `deleted_at` on them, `trashed_at` (the same instant) on their live memberships. */
export function trashAssetsStatements(db: Database, ids: readonly string[], now: number): Statement[] {
  return [
    db
      .update(assets)
      .set({ deletedAt: now })
      .where(and(sql`${assets.id} in ${inList(ids)}`, isNull(assets.deletedAt))),
    db
      .update(groupMembers)
      .set({ trashedAt: now })
      .where(and(sql`${groupMembers.elId} in ${inList(ids)}`, eq(groupMembers.elType, "asset"), isNull(groupMembers.trashedAt))),
  ];
}

/**
 * Takes an asset out of the trash. Only the memberships its own trashing hid (same `trashed_at` instant) come back,
 * so a membership hidden for another reason stays hidden.
 */
export function restoreAssetStatements(db: Database, id: string, deletedAt: number, now: number): Statement[] {
  return [
    db
      .update(assets)
      .set({ deletedAt: null, mtime: now })
      .where(and(eq(assets.id, id), eq(assets.deletedAt, deletedAt))),
    db
      .update(groupMembers)
      .set({ trashedAt: null, elMtime: now })
      .where(and(eq(groupMembers.elId, id), eq(groupMembers.elType, "asset"), eq(groupMembers.trashedAt, deletedAt))),
  ];
}

/** Trashed assets still restorable (deleted after `since`) that the caller may delete (restore), newest first. */
export function listTrashedAssets(
  db: Database,
  opts: { vis: Visibility | null; since: number; skip: number; take: number; scope: LibraryScope },
) {
  return db
    .select()
    .from(assets)
    .where(
      and(
        isNotNull(assets.deletedAt),
        gt(assets.deletedAt, opts.since),
        visibleSql(opts.vis, "asset", sql`${assets.id}`, sql`${assets.ownerId}`, "delete"),
        inLibraryScope(opts.scope, sql`${assets.id}`),
      ),
    )
    .orderBy(desc(assets.deletedAt), desc(assets.id))
    .limit(opts.take)
    .offset(opts.skip);
}

/**
 * Ids of trashed assets deleted before `before`, oldest first, resuming after `after` (the retention purge). Reads the
 * `assets_deleted_idx` range.
 */
export function selectExpiredTrash(db: Database, o: { before: number; after?: { at: number; id: string } | null; limit: number }) {
  const resume = o.after ? sql`and deleted_at >= ${o.after.at} and (deleted_at > ${o.after.at} or id > ${o.after.id})` : sql``;
  return db.all<{ id: string; deleted_at: number }>(sql`
    select id, deleted_at from ${assets} where deleted_at < ${o.before} ${resume} and id not in (${sql.raw(SWITCHED_IDS_SQL)})
    order by deleted_at, id limit ${o.limit}`);
}

/** Live assets owned by a user, most recently changed first. */
export function listOwnedAssets(db: Database, opts: { ownerId: string; skip: number; take: number }) {
  return db
    .select()
    .from(assets)
    .where(and(eq(assets.ownerId, opts.ownerId), isNull(assets.deletedAt)))
    .orderBy(desc(assets.mtime), desc(assets.id))
    .limit(opts.take)
    .offset(opts.skip);
}

/** Touches `atime` at most once a minute per asset (reads must not turn into a write each). */
export function touchAtime(db: Database, id: string, now: number) {
  return db
    .update(assets)
    .set({ atime: now })
    .where(and(eq(assets.id, id), lt(assets.atime, now - 60_000)))
    .run();
}

// ---------------------------------------------------------------------------------------------------------------
// Groups and classes (what the asset calls need to know about them)

export function findGroupLite(db: Database, id: string) {
  return db
    .select({ id: groups.id, ownerId: groups.ownerId, deletedAt: groups.deletedAt, defaultStorage: groups.defaultStorage })
    .from(groups)
    .where(eq(groups.id, id))
    .get();
}

export function findGroupsLite(db: Database, ids: readonly string[]) {
  return db
    .select({ id: groups.id, ownerId: groups.ownerId, deletedAt: groups.deletedAt, defaultStorage: groups.defaultStorage })
    .from(groups)
    .where(sql`${groups.id} in ${inList(ids)}`);
}

/** Which of these asset class ids exist. */
export function existingClassIds(db: Database, ids: readonly string[]) {
  return db
    .select({ id: assetClasses.id })
    .from(assetClasses)
    .where(sql`${assetClasses.id} in ${inList(ids)}`);
}

/** Live groups an asset is listed in that the caller reads (a handful: the caller orders them by name). */
export function selectAssetGroups(db: Database, assetId: string, vis: Visibility | null) {
  return db
    .select({ group_id: groups.id, group_name: groups.name })
    .from(groupMembers)
    .innerJoin(groups, eq(groups.id, groupMembers.groupId))
    .where(
      and(
        eq(groupMembers.elId, assetId),
        eq(groupMembers.elType, "asset"),
        isNull(groupMembers.trashedAt),
        isNull(groups.deletedAt),
        visibleSql(vis, "group", sql`${groups.id}`, sql`${groups.ownerId}`),
      ),
    );
}

/** The folder a file's audit entries are filed under: the first it is listed in, as the audit statement's own lookup. */
export async function firstFolderOf(db: Database, assetId: string): Promise<string | undefined> {
  const row = await db.select({ id: groupMembers.groupId }).from(groupMembers).where(eq(groupMembers.elId, assetId)).limit(1).get();
  return row?.id;
}

// ---------------------------------------------------------------------------------------------------------------
// Copy and purge

export interface CopyPlan {
  sourceId: string;
  asset: typeof assets.$inferInsert;
  /** [source version id, new version id] */
  versions: [string, string][];
  /** [source variant id, new variant id, new version id] */
  variants: [string, string, string][];
  /** membership of the copy in its target group */
  member: { groupId: string; sortName: string; size: number; now: number };
}

/**
 * Statements that copy an asset: the asset row, its versions, its ready variants (pointing at the SAME storage
 * keys: copy-on-write, nothing is duplicated in storage), its tags and its membership in the target group.
 */
export function copyAssetStatements(db: Database, p: CopyPlan): Statement[] {
  const newId = p.asset.id;
  return [
    db.insert(assets).values(p.asset),
    sql`insert into asset_versions (id, asset_id, version, description, user_id, ctime)
      select json_extract(m.value, '$[1]'), ${newId}, v.version, v.description, v.user_id, v.ctime
      from json_each(${JSON.stringify(p.versions)}) m join asset_versions v on v.id = json_extract(m.value, '$[0]')`,
    sql`insert into variants (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size,
        sha256, storage_id, storage_key, preview_storage_id, metadata_storage_id, tech_fields, tech_props, to_group, user_id, ctime,
        made_by, accepted_by)
      select json_extract(m.value, '$[1]'), ${newId}, json_extract(m.value, '$[2]'), v.variant_type, 'ready', v.name, v.mime_type,
        v.format, v.file_name, v.content_size, v.sha256, v.storage_id, v.storage_key, v.preview_storage_id, v.metadata_storage_id,
        v.tech_fields, v.tech_props, null, v.user_id, v.ctime, v.made_by, v.accepted_by
      from json_each(${JSON.stringify(p.variants)}) m join variants v on v.id = json_extract(m.value, '$[0]')
      where v.status = 'ready'`,
    sql`insert into entity_tags (tag_id, entity_id, entity_type)
      select tag_id, ${newId}, 'asset' from entity_tags where entity_id = ${p.sourceId}`,
    sql`insert into group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size)
      values (${p.member.groupId}, ${newId}, 'asset', ${p.member.now}, ${p.member.sortName}, ${p.member.now}, ${p.member.size})`,
  ];
}

/**
 * Storage objects (storage id and key) of assets' variants, pending ones included, and of their previews (previews
 * always live in the default R2 storage).
 */
export async function selectAssetObjects(db: Database, assetIds: readonly string[]): Promise<{ storageId: string; storageKey: string }[]> {
  const ids = inList(assetIds);
  return db.all<{ storageId: string; storageKey: string }>(sql`
    select storage_id as storageId, storage_key as storageKey from ${variants} where asset_id in ${ids}
    union select ${DEFAULT_STORAGE_ID}, storage_key from ${previews} where asset_id in ${ids}
    union select storage_id, storage_key from heal_candidates where asset_id in ${ids}`);
}

/**
 * Statements that delete assets and everything that hangs off them: previews (the preview capability's statement),
 * tag links (the tag capability's), versions, variants, memberships, field values and taxa memberships (the metadata
 * capability's), and last the asset rows (its result counts
 * the purged assets). Run them in one batch.
 */
export function purgeAssetsStatements(db: Database, assetIds: readonly string[]): Statement[] {
  const ids = inList(assetIds);
  return [
    deletePreviewsOfAssetsStatement(db, assetIds),
    detachAllTagsStatement(db, assetIds),
    db.delete(variants).where(sql`${variants.assetId} in ${ids}`),
    db.delete(assetVersions).where(sql`${assetVersions.assetId} in ${ids}`),
    db.delete(groupMembers).where(and(sql`${groupMembers.elId} in ${ids}`, eq(groupMembers.elType, "asset"))),
    sql`delete from field_values where entity_id in ${ids}`,
    sql`delete from taxon_members where object_id in ${ids}`,
    // Pending heals (browser-made pictures and proxies awaiting acceptance) go with their file.
    sql`delete from heal_candidates where asset_id in ${ids}`,
    // Rules on a purged asset and its inheritance switch go with it.
    sql`delete from access_rules where obj_id in ${ids}`,
    sql`delete from access_inheritance where entity_id in ${ids}`,
    db
      .delete(assets)
      .where(sql`${assets.id} in ${ids}`)
      .returning({ id: assets.id }),
  ];
}

/**
 * Which of these keys of a storage no variant (and, on the default R2 storage, no preview) references, leaving out
 * the rows of `exceptAssets` (assets about to be purged). Variants share keys after a copy (copy-on-write), so an
 * object may be deleted only when this says so.
 */
export async function unreferencedKeys(
  db: Database,
  storageId: string,
  keys: readonly string[],
  exceptAssets: readonly string[] = [],
  o: { outside?: string } = {},
): Promise<string[]> {
  if (keys.length === 0) return [];
  const wanted = inList(keys);
  // In the catalog, for a library in its shard: only other libraries' files count (its own copy there may be stale).
  const others = o.outside
    ? sql`${inList(exceptAssets)} and asset_id not in (select id from id_directory where library_id = ${o.outside})`
    : inList(exceptAssets);
  const previewRefs =
    storageId === DEFAULT_STORAGE_ID
      ? sql` union select storage_key from ${previews} where storage_key in ${wanted} and asset_id not in ${others}`
      : sql``;
  const referenced = await db.all<{ key: string }>(sql`
    select storage_key as key from ${variants} where storage_id = ${storageId} and storage_key in ${wanted} and asset_id not in ${others}
    ${previewRefs}`);
  const still = new Set(referenced.map((r) => r.key));
  return keys.filter((k) => !still.has(k));
}
