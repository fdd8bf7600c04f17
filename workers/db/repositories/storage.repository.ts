import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { assets, groupClosure, groupMembers, groups, storages, variants, type StorageRow } from "../schema/index";
import { foldName, foldedSql } from "./tag.repository";

/** Id of the default storage row (the R2 binding MEDIA), created by migration 0002. */
export const DEFAULT_STORAGE_ID = "0".repeat(32);

export function listStorages(db: Database): Promise<StorageRow[]> {
  return db
    .select()
    .from(storages)
    .orderBy(sql`${storages.id} <> ${DEFAULT_STORAGE_ID}`, asc(foldedSql(storages.name)), asc(storages.id));
}

export function findStorage(db: Database, id: string): Promise<StorageRow | undefined> {
  return db.select().from(storages).where(eq(storages.id, id)).get();
}

/** Inserts a storage unless another has the same (case-folded) name; one statement. Answers whether it was inserted. */
export async function insertStorageIfNameFree(db: Database, row: typeof storages.$inferInsert): Promise<boolean> {
  const result = await db.run(
    sql`insert into ${storages} (id, name, kind, url, bucket, region, creds_encrypted, ctime, mtime)
        select ${row.id}, ${row.name}, ${row.kind}, ${row.url ?? null}, ${row.bucket ?? null}, ${row.region ?? null},
               ${row.credsEncrypted ?? null}, ${row.ctime}, ${row.mtime}
        where not exists (select 1 from ${storages} where ${foldedSql(storages.name)} = ${foldName(row.name)})`,
  );
  return result.meta.changes > 0;
}

/**
 * Applies a change to a storage unless a new name clashes (case-folded) with another storage; answers whether the
 * row changed.
 */
export async function updateStorageIfNameFree(
  db: Database,
  id: string,
  change: Partial<Pick<StorageRow, "name" | "url" | "bucket" | "region" | "credsEncrypted">> & { mtime: number },
): Promise<boolean> {
  const sets = [sql`mtime = ${change.mtime}`];
  if (change.name !== undefined) sets.push(sql`name = ${change.name}`);
  if (change.url !== undefined) sets.push(sql`url = ${change.url}`);
  if (change.bucket !== undefined) sets.push(sql`bucket = ${change.bucket}`);
  if (change.region !== undefined) sets.push(sql`region = ${change.region}`);
  if (change.credsEncrypted !== undefined) sets.push(sql`creds_encrypted = ${change.credsEncrypted}`);
  const nameFree =
    change.name === undefined
      ? sql``
      : sql` and not exists (select 1 from ${storages} s2 where s2.id <> ${id} and ${foldedSql(sql`s2.name`)} = ${foldName(change.name)})`;
  const result = await db.run(sql`update ${storages} set ${sql.join(sets, sql`, `)} where ${storages.id} = ${id}${nameFree}`);
  return result.meta.changes > 0;
}

/**
 * Bytes, variants and assets stored in a storage, over ready variants, in one aggregate query. With a visibility,
 * only assets the caller reads count.
 */
export async function storageUsage(db: Database, storageId: string, vis: Visibility | null) {
  const row = await db
    .select({
      bytes: sql<number>`coalesce(sum(${variants.contentSize}), 0)`.mapWith(Number),
      variants: sql<number>`count(*)`.mapWith(Number),
      assets: sql<number>`count(distinct ${variants.assetId})`.mapWith(Number),
    })
    .from(variants)
    .where(
      vis === null
        ? sql`${variants.storageId} = ${storageId} and ${variants.status} = 'ready'`
        : sql`${variants.storageId} = ${storageId} and ${variants.status} = 'ready'
              and exists (select 1 from ${assets} a where a.id = ${variants.assetId} and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)})`,
    )
    .get();
  return row ?? { bytes: 0, variants: 0, assets: 0 };
}

/** An asset or group (not in the trash) with its owner: what a storage lookup needs to check access. */
export function findStorageEntity(db: Database, id: string) {
  return db.get<{ type: "asset" | "group"; owner_id: string | null }>(
    sql`select 'asset' as type, ${assets.ownerId} as owner_id from ${assets} where ${assets.id} = ${id} and ${assets.deletedAt} is null
        union all
        select 'group' as type, ${groups.ownerId} as owner_id from ${groups} where ${groups.id} = ${id} and ${groups.deletedAt} is null
        limit 1`,
  );
}

/**
 * The storage an entity's new bytes go to, in one query: a group's own `default_storage`, else the nearest
 * ancestor's (group_closure); an asset's own `default_storage`, else that of the nearest group it is listed in
 * (nearest by tree depth, then the earliest membership); else the default storage. Storage ids that no longer
 * exist are skipped.
 */
export function resolveStorageRow(db: Database, entity: { type: "asset" | "group"; id: string }) {
  const fromGroups =
    entity.type === "group"
      ? sql`select g.default_storage from ${groupClosure} gc
              join ${groups} g on g.id = gc.ancestor
              join ${storages} s1 on s1.id = g.default_storage
            where gc.descendant = ${entity.id}
            order by gc.depth limit 1`
      : sql`select g.default_storage from ${groupMembers} gm
              join ${groupClosure} gc on gc.descendant = gm.group_id
              join ${groups} g on g.id = gc.ancestor
              join ${storages} s1 on s1.id = g.default_storage
            where gm.el_id = ${entity.id} and gm.el_type = 'asset' and gm.trashed_at is null
            order by gc.depth, gm.ctime, gm.group_id limit 1`;
  const own =
    entity.type === "asset"
      ? sql`(select a.default_storage from ${assets} a join ${storages} s0 on s0.id = a.default_storage where a.id = ${entity.id})`
      : sql`null`;
  return db.get<{ id: string; name: string }>(
    sql`select s.id as id, s.name as name from ${storages} s
        where s.id = coalesce(${own}, (${fromGroups}), ${DEFAULT_STORAGE_ID})`,
  );
}

/**
 * Folders (not in the trash) that name this storage as their own default, by name, at most `limit`: where new files
 * of those folders and their subfolders go. For administrators' storage screen.
 */
export function foldersUsingStorage(db: Database, storageId: string, limit: number) {
  return db.all<{ id: string; name: string }>(
    sql`select ${groups.id} as id, ${groups.name} as name from ${groups}
        where ${groups.defaultStorage} = ${storageId} and ${groups.deletedAt} is null
        order by ${groups.name} limit ${limit}`,
  );
}

/**
 * The storage chosen as the default for everything (the virtual root folder's own `default_storage`, which every
 * folder and file inherits unless one on its way sets another); the built-in R2 storage when none is chosen.
 */
export async function defaultStorageId(db: Database, rootId: string): Promise<string> {
  const row = await db.get<{ id: string | null }>(
    sql`select g.default_storage as id from ${groups} g join ${storages} s on s.id = g.default_storage where g.id = ${rootId}`,
  );
  return row?.id ?? DEFAULT_STORAGE_ID;
}

/** Makes a storage the default for everything (null: back to the built-in R2 storage). */
export async function setDefaultStorage(db: Database, rootId: string, storageId: string | null): Promise<void> {
  await db.run(sql`update ${groups} set default_storage = ${storageId} where id = ${rootId}`);
}
