/**
 * The serialised subtrees this isolate answered lately, keyed by group and tree version (decision record 017). The
 * version (folder_rollups.tree_version) grows in the same statement as any change of shape, name or trash state
 * inside the subtree, so an entry can never be stale: a changed tree has a new key, and old keys age out. Only
 * unfiltered trees (administrators') are cached; bounded by entries and characters so memory stays small.
 */

const MAX_ENTRIES = 32;
const MAX_CHARS = 24 * 1024 * 1024;

const entries = new Map<string, string>();
let chars = 0;

/**
 * The JSON of a subtree at `version`: from the cache, else built by `build` and remembered (most recent last).
 * @example const json = await cachedSubtree(groupId, version, async () => JSON.stringify(tree))
 */
export async function cachedSubtree(groupId: string, version: number, build: () => Promise<string>): Promise<string> {
  const key = `${groupId}:${version}`;
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
    return hit;
  }
  const json = await build();
  if (json.length > MAX_CHARS) return json;
  entries.set(key, json);
  chars += json.length;
  for (const [k, v] of entries) {
    if (entries.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    entries.delete(k);
    chars -= v.length;
  }
  return json;
}
