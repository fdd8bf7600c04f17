import { sql } from "drizzle-orm";
import { ID_PATTERN } from "../../lib/ids";
import { accessibleIds } from "./access.service";
import type { Actor, RequestContext } from "./context";

/** A favourite as stored in `bookmarks`: the key is the folder's or file's id. */
interface StoredBookmark {
  type: "group" | "asset";
  at?: number;
}

function isBookmark(key: string, value: unknown): value is StoredBookmark {
  if (!ID_PATTERN.test(key) || typeof value !== "object" || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === "group" || type === "asset";
}

/** Current names of live (not trashed) folders or files among `ids`, in one statement. */
async function liveNames(rc: RequestContext, type: "group" | "asset", ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const table = sql.raw(type === "group" ? "groups" : "assets");
  const rows = await rc.db.all<{ id: string; name: string }>(sql`
    select e.id, e.name from json_each(${JSON.stringify(ids)}) j join ${table} e on e.id = j.value where e.deleted_at is null`);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** A folder or file a favourite names. */
export interface BookmarkItem {
  id: string;
  type: "group" | "asset";
}

/** How favourites' names are read: over the catalog (`bookmarkNames`), or where each lives (the API's). */
export type BookmarkNames = (items: BookmarkItem[]) => Promise<(string | null)[]>;

/** The current name of each folder or file, in order: null for one deleted, trashed or not readable by the caller. */
export async function bookmarkNames(rc: RequestContext, actor: Actor, items: BookmarkItem[]): Promise<(string | null)[]> {
  const ids = { group: [] as string[], asset: [] as string[] };
  for (const item of items) ids[item.type].push(item.id);
  const [groupNames, assetNames, readableGroups, readableAssets] = await Promise.all([
    liveNames(rc, "group", ids.group),
    liveNames(rc, "asset", ids.asset),
    accessibleIds(rc, actor, "group", ids.group),
    accessibleIds(rc, actor, "asset", ids.asset),
  ]);
  return items.map(({ id, type }) => {
    const readable = (type === "group" ? readableGroups : readableAssets).has(id);
    return readable ? (type === "group" ? groupNames : assetNames).get(id) ?? null : null;
  });
}

/**
 * The bookmarks document as the caller may see it: favourites (keys that are ids with a `type`) of folders and files
 * that were deleted, trashed or are no longer readable by the caller are left out silently, never shown; the rest
 * carry the thing's current name, read by `names` (over the catalog unless told where they live). Other keys pass as
 * stored.
 * @example await visibleBookmarks(rc, actor, { "01…": { type: "group", at: 1 } }) // { "01…": { type: "group", at: 1, name: "Съёмки" } }
 */
export async function visibleBookmarks(
  rc: RequestContext,
  actor: Actor,
  doc: Record<string, unknown>,
  names: BookmarkNames = (items) => bookmarkNames(rc, actor, items),
): Promise<Record<string, unknown>> {
  const items: BookmarkItem[] = [];
  for (const [key, value] of Object.entries(doc)) if (isBookmark(key, value)) items.push({ id: key, type: value.type });
  const named = new Map((items.length > 0 ? await names(items) : []).map((name, i) => [items[i]!.id, name]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!isBookmark(key, value)) out[key] = value;
    else if (named.get(key) != null) out[key] = { ...value, name: named.get(key) };
  }
  return out;
}
