/**
 * Collections themselves: create, list, read, rename and delete (decision record 034). Counts and covers are of the
 * items the caller may read; deleting a collection removes its rows only, never a file.
 */
import * as repo from "../../db/repositories/collection.repository";
import { runBatch } from "../../db/repositories/group.repository";
import { newId } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { requireCollection, roleOf, type CollectionRole } from "./collection-role";

/** At most this many collections in one listing (the caller's own and those shared with them). */
export const MAX_LISTED_COLLECTIONS = 1000;

export interface CollectionInfo {
  collection_id: string;
  name: string;
  description: string;
  owner_id: string;
  owner_name: string | null;
  role: CollectionRole;
  /** items the caller may read */
  count: number;
  ctime: string | null;
  mtime: string | null;
}

export interface ListedCollection extends CollectionInfo {
  /** thumbnail of the first readable item that has one */
  cover: string | null;
}

function infoOf(row: repo.CollectionRow, role: CollectionRole, count: number): CollectionInfo {
  return {
    collection_id: row.id,
    name: row.name,
    description: row.description,
    owner_id: row.owner_id,
    owner_name: row.owner_name,
    role,
    count,
    ctime: toIso(row.ctime),
    mtime: toIso(row.mtime),
  };
}

/** `POST /api/collections`: a new empty collection owned by the caller. */
export async function createCollection(rc: RequestContext, actor: Actor, input: { name: string; description?: string }): Promise<CollectionInfo> {
  const now = Date.now();
  const id = newId(now);
  const description = input.description ?? "";
  await runBatch(rc.db, [repo.insertCollectionSql({ id, name: input.name, description, ownerId: actor.id, now })]);
  return infoOf(
    { id, name: input.name, description, owner_id: actor.id, owner_name: actor.name, ctime: now, mtime: now, rank: null },
    "owner",
    0,
  );
}

/** `GET /api/collections`: mine and those shared with me or my groups, each with my role and what I may read. */
export async function listCollections(rc: RequestContext, actor: Actor): Promise<{ items: ListedCollection[] }> {
  const rows = await repo.collectionsOf(rc.db, actor.id, await visibility(rc, actor), MAX_LISTED_COLLECTIONS);
  return {
    items: rows.map((r) => ({
      ...infoOf(r, roleOf(actor, r) ?? "view", r.count),
      cover: r.cover_id && r.cover_ver != null ? `/api/asset/content/preview/${r.cover_id}/${r.cover_ver}/thumb` : null,
    })),
  };
}

/** `GET /api/collections/{id}`: one collection the caller holds (404 otherwise). */
export async function getCollection(rc: RequestContext, actor: Actor, id: string): Promise<CollectionInfo> {
  const { row, role } = await requireCollection(rc, actor, id, "view");
  const counts = await repo.itemCounts(rc.db, id, await visibility(rc, actor));
  return infoOf(row, role, counts?.total ?? 0);
}

/** `PATCH /api/collections/{id}`: rename or describe (`edit`). */
export async function updateCollection(
  rc: RequestContext,
  actor: Actor,
  id: string,
  patch: { name?: string; description?: string },
): Promise<CollectionInfo> {
  await requireCollection(rc, actor, id, "edit");
  await runBatch(rc.db, [repo.updateCollectionSql(id, patch, Date.now())]);
  return getCollection(rc, actor, id);
}

/** `DELETE /api/collections/{id}`: the owner or an administrator; the files stay where they are. */
export async function deleteCollection(rc: RequestContext, actor: Actor, id: string): Promise<{ collection_id: string }> {
  await requireCollection(rc, actor, id, "manage");
  await runBatch(rc.db, repo.deleteCollectionSql(id));
  return { collection_id: id };
}
