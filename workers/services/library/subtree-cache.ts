/**
 * The serialised subtrees this isolate answered lately, keyed by group and the versions of its rollup row (decision
 * records 017 and 032): `tree_version` grows in the same statement as any change of shape, name or trash state inside
 * the subtree, `files_version` as any change of a file a tree form can list. An entry can never be stale: a changed
 * tree has a new key, and old keys age out. Only unfiltered trees (administrators') are cached; bounded by entries
 * and characters so memory stays small.
 */

const MAX_ENTRIES = 32;
const MAX_CHARS = 24 * 1024 * 1024;

const entries = new Map<string, string>();
let chars = 0;

/**
 * The JSON remembered under `key`, if any (it becomes the most recent).
 * @example const json = cachedSubtree(`${groupId}:t${treeVersion}`)
 */
export function cachedSubtree(key: string): string | undefined {
  const hit = entries.get(key);
  if (hit !== undefined) {
    entries.delete(key);
    entries.set(key, hit);
  }
  return hit;
}

/**
 * Remembers `json` under `key`: the key of the versions the tree was read at, in the same read transaction, so an
 * entry holds exactly the state its key names. Too large an answer is not kept.
 * @example rememberSubtree(`${groupId}:t${treeVersion}`, json)
 */
export function rememberSubtree(key: string, json: string): void {
  if (json.length > MAX_CHARS || entries.has(key)) return;
  entries.set(key, json);
  chars += json.length;
  for (const [k, v] of entries) {
    if (entries.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    entries.delete(k);
    chars -= v.length;
  }
}
