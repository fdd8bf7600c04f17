/**
 * The items of a collection (decision record 034): never wider than the files' own rights. A page shows only files
 * the reader may read; `hidden` is how many others there are and nothing else about them. Adding needs read on
 * every file, all or nothing.
 */
import { ru } from "../../../shared/i18n/ru";
import * as repo from "../../db/repositories/collection.repository";
import { buildSeekStatements, COLLECTION_SEEK_SPACING, seekPageSql } from "../../db/repositories/collection-seek.repository";
import { runBatch } from "../../db/repositories/group.repository";
import { AppError } from "../../lib/errors";
import { toIso } from "../../lib/time";
import type { ReviewStatus } from "../../../shared/review-status";
import { commentCountsOf, type CommentCounts } from "../../../shared/comment-counts";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { requireCollection } from "./collection-role";

/** At most this many ids in one add, remove or reorder call (the routes' contract says the same). */
export const MAX_COLLECTION_IDS = 1000;
/** At most this many files in one collection. */
export const MAX_COLLECTION_ITEMS = 100_000;

export interface CollectionItem {
  asset_id: string;
  name: string;
  mimetype: string;
  added_by: string | null;
  added_by_name: string | null;
  added_at: string | null;
  ctime: string | null;
  mtime: string | null;
  owner: string;
  owner_name: string | null;
  ver: number;
  var: string | null;
  var_size: number | null;
  /** root-relative thumbnail reference, null without a preview */
  preview: string | null;
  /** current review status of the latest version (decision record 036) */
  review_status: ReviewStatus | null;
  /** all comments on the file and the unresolved ones (decision record 035) */
  comments: CommentCounts;
}

export interface ItemsPage {
  /** items the caller may read */
  total: number;
  /** items the caller may not read (a count, nothing more) */
  hidden: number;
  items: CollectionItem[];
}

const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * `GET /api/collections/{id}/items`: a page of the readable items in collection order. A deep page (`skip` of at
 * least COLLECTION_SEEK_SPACING) starts from the reader's own checkpoints when they are current, and builds them
 * first when not (decision record 034, «Readable-item checkpoints»); a shallow page filters every item once.
 */
export async function listItems(rc: RequestContext, actor: Actor, id: string, q: { skip: number; take: number }): Promise<ItemsPage> {
  // The page is read beside the role check: a caller the check refuses gets its 404 and the rows are dropped unseen.
  const vis = await visibility(rc, actor);
  if (q.skip >= COLLECTION_SEEK_SPACING) {
    const [, hit] = await Promise.all([requireCollection(rc, actor, id, "view"), rc.db.all<SeekRow>(seekPageSql(id, vis, q.skip, q.take))]);
    if (hit.length > 0) return pageOf(hit, hit[0]);
    // No current list: build it and read the page from it in one transaction, so no change falls between them.
    const results = await runBatch(rc.db, [...buildSeekStatements(id, vis, Date.now()), seekPageSql(id, vis, q.skip, q.take)]);
    const rows = (results.at(-1)?.results ?? []) as SeekRow[];
    return pageOf(rows, rows[0]);
  }
  const [, rows] = await Promise.all([requireCollection(rc, actor, id, "view"), repo.itemsPage(rc.db, id, vis, q.skip, q.take)]);
  // A page past the end has no row to carry the counts: they are read on their own then.
  return pageOf(rows, rows[0] ?? (await repo.itemCounts(rc.db, id, vis)));
}

/** A page row from a checkpoint: past the end, one row carries only the counts. */
type SeekRow = repo.ItemRow | { asset_id: null; total: number; live: number };

function pageOf(rows: readonly SeekRow[], counts: { total: number; live: number } | undefined): ItemsPage {
  const total = counts?.total ?? 0;
  return {
    total,
    hidden: (counts?.live ?? 0) - total,
    items: rows
      .filter((r): r is repo.ItemRow => r.asset_id !== null)
      .map((r) => ({
        asset_id: r.asset_id,
        name: r.name,
        mimetype: r.mime,
        added_by: r.added_by,
        added_by_name: r.added_by_name,
        added_at: toIso(r.added_at),
        ctime: toIso(r.ctime),
        mtime: toIso(r.mtime),
        owner: r.owner_id,
        owner_name: r.owner_name,
        ver: r.ver,
        var: r.var,
        var_size: r.var_size,
        preview: r.has_preview ? `/api/asset/content/preview/${r.asset_id}/${r.ver}/thumb` : null,
        review_status: r.review_status,
        comments: commentCountsOf(r),
      })),
  };
}

/** Whether each of files `ids` is live and readable by the caller: over the catalog, or where each lives (the route's). */
export type ReadableFiles = (ids: string[]) => Promise<boolean[]>;

/** Whether each of files `ids` is live and readable by the caller, in order (a routed read where the files live). */
export async function readableFiles(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<boolean[]> {
  const readable = await repo.readableAssets(rc.db, ids, await visibility(rc, actor));
  return ids.map((id) => readable.has(id));
}

/**
 * `POST /api/collections/{id}/items`: appends files (`edit`). Every id must be a live file the caller may read, or
 * nothing is added: the 404 names the first that is not, the same whether it is missing or unreadable. Whether a file
 * is readable is asked by `readable` (where each file lives, from the route).
 */
export async function addItems(
  rc: RequestContext,
  actor: Actor,
  id: string,
  assetIds: readonly string[],
  readable: ReadableFiles = (ids) => readableFiles(rc, actor, ids),
) {
  await requireCollection(rc, actor, id, "edit");
  const ids = unique(assetIds);
  const answers = await readable(ids);
  const refused = ids.find((_, i) => !answers[i]);
  if (refused) throw new AppError("NOT_FOUND", ru.collections.assetNotFound(refused));
  const counts = await repo.itemCounts(rc.db, id, null);
  if ((counts?.live ?? 0) + ids.length > MAX_COLLECTION_ITEMS) throw new AppError("BAD_REQUEST", ru.collections.tooManyItems(MAX_COLLECTION_ITEMS));
  const now = Date.now();
  await runBatch(rc.db, [repo.appendItemsSql(id, ids, actor.id, now), repo.touchCollectionSql(id, now)]);
  return { collection_id: id, added: ids.length };
}

/** `POST /api/collections/{id}/remove-items`: takes files out (`edit`); the files themselves are untouched. */
export async function removeItems(rc: RequestContext, actor: Actor, id: string, assetIds: readonly string[]) {
  await requireCollection(rc, actor, id, "edit");
  const now = Date.now();
  await runBatch(rc.db, [repo.removeItemsSql(id, unique(assetIds)), repo.touchCollectionSql(id, now)]);
  return { collection_id: id };
}

/** `PUT /api/collections/{id}/order`: the listed items in this order, before the rest (`edit`). */
export async function reorderItems(rc: RequestContext, actor: Actor, id: string, assetIds: readonly string[]) {
  await requireCollection(rc, actor, id, "edit");
  const now = Date.now();
  await runBatch(rc.db, [repo.reorderItemsSql(id, unique(assetIds)), repo.touchCollectionSql(id, now)]);
  return { collection_id: id };
}
