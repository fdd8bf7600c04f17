import { sql } from "drizzle-orm";
import type { Database } from "../client";

/** A live asset of a ZIP selection: where it sits (folder), its name, date and the size the listing knows. */
export interface ZipMemberRow {
  group_id: string | null;
  id: string;
  name: string;
  mtime: number;
  size: number;
}

/** A live folder of a selected subtree. */
export interface ZipFolderRow {
  id: string;
  name: string;
  parent_id: string | null;
  owner_id: string | null;
}

/** Live assets by id (the ones picked one by one), at most the ids given. */
export function selectZipAssets(db: Database, ids: readonly string[]) {
  return db.all<ZipMemberRow>(sql`
    select null as group_id, a.id, a.name, a.mtime,
      coalesce((select max(m.el_size) from group_members m where m.el_id = a.id and m.el_type = 'asset'), 0) as size
    from json_each(${JSON.stringify(ids)}) j join assets a on a.id = j.value
    where a.deleted_at is null and a.latest_version > 0`);
}

/** The live folders of a subtree (the root included), shallowest first. */
export function selectZipFolders(db: Database, rootId: string) {
  return db.all<ZipFolderRow>(sql`
    select g.id, g.name, g.parent_id, g.owner_id from group_closure c join groups g on g.id = c.descendant
    where c.ancestor = ${rootId} and g.deleted_at is null
    order by c.depth, g.name`);
}

/** A live, committed asset of a selected folder, with where the next page of the listing starts after it. */
export interface ZipListedRow extends ZipMemberRow {
  group_id: string;
  sort_name: string;
}

/** Where a page of `selectZipMembers` ends: the last row's place in the listing's order. */
export type ZipMembersCursor = Pick<ZipListedRow, "group_id" | "sort_name" | "id">;

/**
 * The live, committed assets of the given folders, at most `limit` (one more than a request may hold tells the caller
 * the selection is a task's work), after `after` in the listing's order: a large folder is read a page at a time, each
 * page's rows one answer (a statement sent to a shard brings back what one call carries).
 */
export function selectZipMembers(db: Database, folderIds: readonly string[], limit: number, after: ZipMembersCursor | null = null) {
  return db.all<ZipListedRow>(sql`
    select m.group_id, a.id, a.name, a.mtime, m.el_size as size, m.sort_name
    from json_each(${JSON.stringify(folderIds)}) j
    join group_members m on m.group_id = j.value and m.el_type = 'asset' and m.trashed_at is null
    join assets a on a.id = m.el_id and a.deleted_at is null and a.latest_version > 0
    ${after ? sql`where (m.group_id, m.sort_name, a.id) > (${after.group_id}, ${after.sort_name}, ${after.id})` : sql``}
    order by m.group_id, m.sort_name, a.id
    limit ${limit}`);
}

/** A ready variant of an asset's latest version: where its bytes are. */
export interface ZipVariantRow {
  asset_id: string;
  variant_type: string;
  storage_id: string;
  storage_key: string;
  content_size: number;
}

/** The ready variants of the latest versions of the given assets (the caller picks the main one). */
export function selectZipVariants(db: Database, assetIds: readonly string[]) {
  return db.all<ZipVariantRow>(sql`
    select x.asset_id, x.variant_type, x.storage_id, x.storage_key, x.content_size
    from json_each(${JSON.stringify(assetIds)}) j
    join assets a on a.id = j.value
    join asset_versions v on v.asset_id = a.id and v.version = a.latest_version
    join variants x on x.version_id = v.id and x.status = 'ready'`);
}
