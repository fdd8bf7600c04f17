/**
 * Pure helpers of the group capability: sort keys, page cursors, the tree form of a subtree, entity paths and
 * preview references. No bindings and no I/O, so they are unit-tested in plain Node.
 */

/** The ways a group listing can be ordered (SPEC §7 members: sort). */
export const MEMBER_SORTS = ["name", "mtime", "size"] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];
export const SORT_ORDERS = ["asc", "desc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];
/** Member types a listing can show (users are members for access rules, never listed as content). */
export const LISTED_TYPES = ["group", "asset"] as const;
export type ListedType = (typeof LISTED_TYPES)[number];

/** Deepest nesting a group may have below the virtual root; keeps closure rows per group bounded. */
export const MAX_GROUP_DEPTH = 64;

/**
 * The key `group_members.sort_name` holds for a name: lower case by JavaScript's full Unicode rules (SQLite's
 * `lower()` folds ASCII only, so Cyrillic must be folded here). Sibling groups are unique by this key, and the
 * `q` filters compare against it.
 * @example sortKeyOf("Съёмка 2026") // "съёмка 2026"
 */
export function sortKeyOf(name: string): string {
  return name.toLowerCase();
}

/** Where a key-based page ends: the sort key and id of its last member, and the order the page was read in. */
export interface MemberCursor {
  /** sort the cursor was made for */
  s: MemberSort;
  /** order the cursor was made for */
  o: SortOrder;
  /** type of the last member (groups are listed before assets) */
  t: ListedType;
  /** sort key of the last member: its sort_name, el_mtime or el_size */
  k: string | number;
  /** el_id of the last member: the tie-breaker */
  i: string;
}

const ID = /^[0-9a-f]{32}$/;

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded);
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/**
 * The opaque `after` cursor of a member page (base64url JSON). Clients pass it back unchanged.
 * @example encodeCursor({ s: "name", o: "asc", t: "asset", k: "clip.mp4", i: "0193…" })
 */
export function encodeCursor(cursor: MemberCursor): string {
  return toBase64Url(JSON.stringify([cursor.s, cursor.o, cursor.t, cursor.k, cursor.i]));
}

/** Parses a cursor made by `encodeCursor`; null when it is not one (the API answers 400). */
export function decodeCursor(text: string): MemberCursor | null {
  if (text.length === 0 || text.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(fromBase64Url(text));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 5) return null;
  const [s, o, t, k, i] = value as unknown[];
  if (!MEMBER_SORTS.includes(s as MemberSort) || !SORT_ORDERS.includes(o as SortOrder) || !LISTED_TYPES.includes(t as ListedType)) {
    return null;
  }
  if (typeof i !== "string" || !ID.test(i)) return null;
  if (s === "name" ? typeof k !== "string" || k.length > 1024 : !Number.isSafeInteger(k)) return null;
  return { s: s as MemberSort, o: o as SortOrder, t: t as ListedType, k: k as string | number, i };
}

/** A file of a folder in the tree form: SPEC §3 Asset's names for what a tree shows. */
export interface TreeAsset {
  asset_id: string;
  name: string;
  mimetype: string;
  /** its latest version; 0 while it has no bytes */
  ver: number;
}

/** A group in the tree form (SPEC §3 Group tree form). */
export interface GroupTreeNode {
  element_id: string;
  /** the parent group */
  group_id: string | null;
  group_name: string;
  isRoot: boolean;
  /** open (its contents shown): the group the tree was asked for; its descendants start closed */
  isOpen: boolean;
  subGroups: GroupTreeNode[];
  /** the folder's first files by name, up to the cap (absent when the tree was asked for without files) */
  assets?: TreeAsset[];
  /** the folder may hold more files than `assets` lists: page them with GET /api/group/members/{id} */
  assets_more?: boolean;
  /** on the root only: how many files a folder lists at most, and the whole tree */
  assets_cap?: { per_folder: number; total: number };
}

export interface FlatGroup {
  id: string;
  name: string;
  parentId: string | null;
}

/**
 * Builds the tree form below `rootId` from a flat list of groups (one closure query's rows, in any order).
 * Groups whose parent is not in the list are left out with their descendants (the caller does not see the
 * parent); children are ordered by name, case-insensitively, then id.
 */
/**
 * The breadcrumbs of an entity below `rootId` (ancestors top first, the entity last): the root, then only the
 * unbroken run of readable folders just above the entity. A hidden folder cuts the path there, so a folder shared
 * deep in someone's tree reads «Доступные Файлы › Фотосессии», never naming the folders above it.
 * @example visiblePath([root, a, b, c], new Set([b.id]), root.id) // [root, b, c]
 */
export function visiblePath<T extends { id: string }>(ancestors: readonly T[], readable: ReadonlySet<string>, rootId: string): T[] {
  const kept: T[] = [];
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i];
    if (a.id === rootId) break;
    if (i !== ancestors.length - 1 && !readable.has(a.id)) break;
    kept.unshift(a);
  }
  const root = ancestors.find((a) => a.id === rootId);
  return root ? [root, ...kept] : kept;
}

/**
 * With `adoptOrphans`, a node whose parent is not among `rows` (hidden from the caller) hangs on the root, the way
 * «Доступные Файлы» lists it.
 */
export function buildTree(rows: FlatGroup[], rootId: string, adoptOrphans = false): GroupTreeNode | null {
  const nodes = new Map<string, GroupTreeNode>();
  const keys = new Map<string, string>();
  for (const row of rows) {
    nodes.set(row.id, {
      element_id: row.id,
      group_id: row.parentId,
      group_name: row.name,
      isRoot: row.id === rootId,
      isOpen: row.id === rootId,
      subGroups: [],
    });
    keys.set(row.id, sortKeyOf(row.name));
  }
  const root = nodes.get(rootId);
  if (!root) return null;
  for (const node of nodes.values()) {
    if (node === root || node.group_id == null) continue;
    const parent = nodes.get(node.group_id);
    if (parent) parent.subGroups.push(node);
    else if (adoptOrphans) {
      node.group_id = rootId;
      root.subGroups.push(node);
    }
  }
  const byName = (a: GroupTreeNode, b: GroupTreeNode) =>
    treeOrder(keys.get(a.element_id)!, a.element_id, keys.get(b.element_id)!, b.element_id);
  // Iteratively, so a deep tree cannot overflow the stack; nodes not reachable from the root are dropped.
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    node.subGroups.sort(byName);
    stack.push(...node.subGroups);
  }
  return root;
}

/** A tree's siblings in order: by name key, then id. */
function treeOrder(keyA: string, idA: string, keyB: string, idB: string): number {
  if (keyA !== keyB) return keyA < keyB ? -1 : 1;
  return idA < idB ? -1 : idA > idB ? 1 : 0;
}

/**
 * The root's tree form from the parts each library answers (`rootTreeWhereTheyLive`; the catalog's part, with the
 * root itself, first): the root's children merged in the tree's order (name key, then id), then, with `caps`, the
 * files' caps applied to the whole, breadth first. Each part applied the caps to itself in an order the whole keeps —
 * a part's folders come breadth first in the whole as in the part — so no folder has more room in the whole than its
 * part left it, and cutting each folder's files to what the whole leaves is exact.
 */
export function mergeRootTrees(parts: readonly GroupTreeNode[], caps?: { per_folder: number; total: number }): GroupTreeNode {
  const children = parts.flatMap((part) => part.subGroups).map((node) => ({ node, key: sortKeyOf(node.group_name) }));
  children.sort((a, b) => treeOrder(a.key, a.node.element_id, b.key, b.node.element_id));
  const root: GroupTreeNode = { ...parts[0], subGroups: children.map((c) => c.node) };
  if (!caps) return root;
  let listed = 0;
  for (let i = 0, queue = [root]; i < queue.length; i++) {
    const node = queue[i];
    queue.push(...node.subGroups);
    const room = Math.min(caps.per_folder, caps.total - listed);
    if (room <= 0) {
      node.assets = [];
      node.assets_more = true;
    } else if ((node.assets ?? []).length > room) {
      node.assets = node.assets!.slice(0, room);
      node.assets_more = true;
    }
    listed += node.assets?.length ?? 0;
  }
  root.assets_cap = caps;
  return root;
}

/**
 * Splits an entity path (`"a/b/c"`) into its names. Null when a segment is empty, '.', '..', or holds control
 * characters, or when there are more segments than `MAX_GROUP_DEPTH + 1`.
 */
export function splitEntityPath(path: string): string[] | null {
  const segments = path.split("/");
  if (segments.length === 0 || segments.length > MAX_GROUP_DEPTH + 1) return null;
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u001f\u007f-\u009f]/;
  for (const s of segments) {
    if (s.length === 0 || s.length > 255 || s === "." || s === ".." || bad.test(s)) return null;
  }
  return segments;
}

/** Root-relative reference of an asset version's thumbnail (served by the asset calls). */
export function previewRef(assetId: string, version: number): string {
  return `/api/asset/content/preview/${assetId}/${version}/thumb`;
}

/**
 * The transitive closure of parent links, as `ancestor>descendant>depth` strings (self rows included), for
 * checking `group_closure` against the tree it indexes. Throws on a cycle.
 */
export function closureOf(parents: Map<string, string | null>): Set<string> {
  const out = new Set<string>();
  for (const id of parents.keys()) {
    let node: string | null | undefined = id;
    let depth = 0;
    const seen = new Set<string>();
    while (node != null) {
      if (seen.has(node)) throw new Error(`cycle through ${node}`);
      seen.add(node);
      out.add(`${node}>${id}>${depth}`);
      node = parents.get(node) ?? null;
      depth++;
    }
  }
  return out;
}
