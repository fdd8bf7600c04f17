/**
 * What other domains (public links, archives, CSV export) need of a collection: its readable items as a given
 * user, through the same rights filter as a page of items (decision record 034), so nothing reached through a
 * collection is ever wider than that user's own rights on each file.
 */
import * as repo from "../../db/repositories/collection.repository";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { MAX_COLLECTION_ITEMS } from "./collection-items.service";
import { requireCollection } from "./collection-role";

/** Ids per page when a collection's items are walked (the CSV export's page). */
const WALK_PAGE = 500;

/**
 * The ids of the items `actor` may read, in collection order, at most `limit` (only those in `among` when given);
 * 404 for someone the collection is not shared with, as `requireCollection`.
 */
export async function readableCollectionItems(
  rc: RequestContext,
  actor: Actor,
  id: string,
  limit: number,
  among?: readonly string[],
): Promise<{ name: string; ids: string[] }> {
  const vis = await visibility(rc, actor);
  const [{ row }, ids] = await Promise.all([requireCollection(rc, actor, id, "view"), repo.readableItemIds(rc.db, id, vis, { limit, among })]);
  return { name: row.name, ids };
}

/** Whether `assetId` is an item of the collection that `actor` may read (the collection's role is checked apart). */
export async function collectionHoldsReadable(rc: RequestContext, actor: Actor, id: string, assetId: string): Promise<boolean> {
  return repo.holdsReadableItem(rc.db, id, assetId, await visibility(rc, actor));
}

/**
 * The readable items as pages of ids for a streamed export: the role is checked now (so a refusal is a 404 answer,
 * not a broken stream), each page's rights as it is read; the walk stops at the collection's item limit.
 */
export async function collectionItemPages(
  rc: RequestContext,
  actor: Actor,
  id: string,
): Promise<{ name: string; pages: AsyncIterable<readonly string[]> }> {
  const { row } = await requireCollection(rc, actor, id, "view");
  const vis = await visibility(rc, actor);
  async function* pages(): AsyncGenerator<readonly string[]> {
    for (let offset = 0; offset < MAX_COLLECTION_ITEMS; offset += WALK_PAGE) {
      const ids = await repo.readableItemIds(rc.db, id, vis, { limit: WALK_PAGE, offset });
      if (ids.length > 0) yield ids;
      if (ids.length < WALK_PAGE) return;
    }
  }
  return { name: row.name, pages: pages() };
}
