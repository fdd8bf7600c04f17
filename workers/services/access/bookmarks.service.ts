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

/**
 * The bookmarks document as the caller may see it: favourites (keys that are ids with a `type`) of folders and files
 * that were deleted, trashed or are no longer readable by the caller are left out silently, never shown; the rest
 * carry the thing's current name. Other keys pass as stored.
 * @example await visibleBookmarks(rc, actor, { "01…": { type: "group", at: 1 } }) // { "01…": { type: "group", at: 1, name: "Съёмки" } }
 */
export async function visibleBookmarks(rc: RequestContext, actor: Actor, doc: Record<string, unknown>): Promise<Record<string, unknown>> {
  const ids = { group: [] as string[], asset: [] as string[] };
  for (const [key, value] of Object.entries(doc)) if (isBookmark(key, value)) ids[value.type].push(key);
  const [groupNames, assetNames, readableGroups, readableAssets] = await Promise.all([
    liveNames(rc, "group", ids.group),
    liveNames(rc, "asset", ids.asset),
    accessibleIds(rc, actor, "group", ids.group),
    accessibleIds(rc, actor, "asset", ids.asset),
  ]);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!isBookmark(key, value)) {
      out[key] = value;
      continue;
    }
    const name = (value.type === "group" ? groupNames : assetNames).get(key);
    const readable = (value.type === "group" ? readableGroups : readableAssets).has(key);
    if (name !== undefined && readable) out[key] = { ...value, name };
  }
  return out;
}
