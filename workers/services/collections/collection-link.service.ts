/**
 * What other domains (public links, archives, CSV export) need of a collection: its readable items as a given
 * user, through the same rights filter as a page of items (decision record 034), so nothing reached through a
 * collection is ever wider than that user's own rights on each file.
 */
import * as repo from "../../db/repositories/collection.repository";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { requireCollection, type CollectionNeed } from "./collection-role";

/** The ids of the items `actor` may read, in collection order, at most `limit`; 404/403 as `requireCollection`. */
export async function readableCollectionItems(
  rc: RequestContext,
  actor: Actor,
  id: string,
  limit: number,
  need: CollectionNeed = "view",
): Promise<{ name: string; ids: string[] }> {
  const vis = await visibility(rc, actor);
  const [{ row }, ids] = await Promise.all([requireCollection(rc, actor, id, need), repo.readableItemIds(rc.db, id, vis, limit)]);
  return { name: row.name, ids };
}

/** Whether `assetId` is an item of the collection that `actor` may read (the collection's role is checked apart). */
export async function collectionHoldsReadable(rc: RequestContext, actor: Actor, id: string, assetId: string): Promise<boolean> {
  return repo.holdsReadableItem(rc.db, id, assetId, await visibility(rc, actor));
}
