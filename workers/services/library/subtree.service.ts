/**
 * The tree form of a subtree (GET /subtree/{id}): every live folder the caller sees and, unless asked without, each
 * folder's first files. Read as one consistent snapshot, and for administrators answered from the per-isolate cache
 * keyed by the versions of the group's rollup row (decision record 032).
 */
import { ru } from "../../../shared/i18n/ru";
import type { SQL } from "drizzle-orm";
import { treeVersionsSql } from "../../db/repositories/folder-rollup.repository";
import { subtreeGroupsSql, treeAssetsSql, type SubtreeGroupRow, type TreeAssetRow } from "../../db/repositories/group-reads.repository";
import { readBatch } from "../../db/repositories/member-seek.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { loadGroup } from "./group-guard";
import { buildTree, type GroupTreeNode } from "./group-tree";
import { GROUP_PAGE_SIZE } from "./group.service";
import { cachedSubtree, rememberSubtree, type SubtreeBody } from "./subtree-cache";

/** Files a folder of the tree form lists at most (SPEC's page size): the rest are paged with GET /members/{id}. */
export const TREE_ASSETS_PER_FOLDER = GROUP_PAGE_SIZE;
/** Files the whole tree form lists at most: folders past it (breadth first) list none and say `assets_more`. */
export const TREE_ASSETS_TOTAL = 2000;
/** Folders asked about per statement (one JSON parameter). */
const TREE_FOLDERS_PER_QUERY = 200;
/** The caps a tree form with files states on its root (`assets_cap`). */
export const TREE_ASSETS_CAPS = { per_folder: TREE_ASSETS_PER_FOLDER, total: TREE_ASSETS_TOTAL } as const;
/** Reads of a tree that keep changing under it: after this many the caller is asked to try again (409). */
const SNAPSHOT_ATTEMPTS = 3;

type Vis = Awaited<ReturnType<typeof visibility>>;

interface TreeVersions {
  tree_version: number;
  files_version: number;
}

/** A tree form and the versions of the root's rollup row it was read at (undefined when the root has no row). */
interface TreeSnapshot {
  tree: GroupTreeNode;
  versions: TreeVersions | undefined;
}

const sameVersions = (a: TreeVersions | undefined, b: TreeVersions | undefined) =>
  a?.tree_version === b?.tree_version && a?.files_version === b?.files_version;

const cacheKey = (id: string, v: TreeVersions, withAssets: boolean) =>
  withAssets ? `${id}:t${v.tree_version}:f${v.files_version}` : `${id}:t${v.tree_version}`;

/**
 * GET /subtree/{id}: JSON text for a filtered caller, a remembered body (bytes, gzip on demand) for an administrator.
 * An administrator's tree (unfiltered) comes from the cache when the group's versions name an entry: one indexed
 * read. Otherwise it is read (`readSubtree`) and, when unfiltered, remembered under the versions it was read at.
 * @example const answer = await getSubtreeJson(rc, actor, groupId)
 */
export async function getSubtreeJson(rc: RequestContext, actor: Actor, id: string, withAssets = true): Promise<string | SubtreeBody> {
  // The versions are read beside the access check (one round trip, as getGroup reads its path); nothing is answered
  // from them unless the check passes.
  const versionsRead = actor.isAdmin ? rc.db.get<TreeVersions | undefined>(treeVersionsSql(id)) : undefined;
  versionsRead?.catch(() => {});
  await loadGroup(rc, actor, id, "read");
  const vis = await visibility(rc, actor);
  if (vis !== null) return JSON.stringify((await readSubtree(rc, id, vis, withAssets)).tree);
  const current = await (versionsRead ?? rc.db.get<TreeVersions | undefined>(treeVersionsSql(id)));
  const hit = current ? cachedSubtree(cacheKey(id, current, withAssets)) : undefined;
  if (hit !== undefined) return hit;
  const { tree, versions } = await readSubtree(rc, id, vis, withAssets);
  const json = JSON.stringify(tree);
  return versions ? rememberSubtree(cacheKey(id, versions, withAssets), json) : json;
}

/**
 * The same tree read afresh, as JSON text: in a library's shard (a routed read), where a read is a call into its own
 * SQLite rather than a round trip, and where a kept tree would be an isolate's memory of another object's rows.
 */
export async function subtreeText(rc: RequestContext, actor: Actor, id: string, withAssets: boolean): Promise<string> {
  await loadGroup(rc, actor, id, "read");
  return JSON.stringify((await readSubtree(rc, id, await visibility(rc, actor), withAssets)).tree);
}

/**
 * A part of the root's tree form over the catalog once some library lives in its shard (`rootTreeWhereTheyLive`,
 * decision 051): the root with the folders the caller sees of the libraries `scope` names — the catalog's own, or the
 * copy of one a shard leaves to it — and their files; each other library answers its part in its shard (`subtreeText`
 * of the root).
 */
export async function rootTreePart(rc: RequestContext, actor: Actor, withAssets: boolean, scope: LibraryScope): Promise<GroupTreeNode> {
  await loadGroup(rc, actor, ROOT_GROUP_ID, "read");
  return (await readSubtree(rc, ROOT_GROUP_ID, await visibility(rc, actor), withAssets, scope)).tree;
}

/**
 * The tree form of `id` as one snapshot: the folders and the versions in one read transaction, then the files in
 * batches that re-read the versions. The versions grow in the same statement as any change the tree form shows
 * (folders, names, trash, listed files), so equal versions mean nothing changed between the reads; otherwise the
 * whole tree is read again. (Access rules are not versioned: a filtered caller's tree is as consistent as today's.)
 */
async function readSubtree(
  rc: RequestContext,
  id: string,
  vis: Vis,
  withAssets: boolean,
  scope: LibraryScope = "all",
): Promise<TreeSnapshot> {
  for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
    const [versionRows, rows] = await readBatch<[TreeVersions, SubtreeGroupRow]>(rc.db, [
      treeVersionsSql(id),
      subtreeGroupsSql(id, vis, withAssets, scope),
    ]);
    const versions = versionRows[0];
    // The root's tree shows a folder whose parents are hidden at the top, as «Доступные Файлы» lists it.
    const tree = buildTree(
      rows.map((r) => ({ id: r.id, name: r.name, parentId: r.parent_id })),
      id,
      vis !== null && id === ROOT_GROUP_ID,
    );
    if (!tree) throw new AppError("NOT_FOUND", ru.groups.notFound);
    if (!withAssets) return { tree, versions };
    const files = new Map(rows.map((r) => [r.id, r.files ?? 0]));
    if (await addTreeAssets(rc, tree, files, vis, versions)) return { tree, versions };
  }
  throw new AppError("CONFLICT", ru.groups.concurrentChange);
}

/** The statements asking for the files of `folderIds`, one per TREE_FOLDERS_PER_QUERY folders. */
function treeAssetStatements(folderIds: readonly string[], vis: Vis): SQL[] {
  const statements: SQL[] = [];
  for (let start = 0; start < folderIds.length; start += TREE_FOLDERS_PER_QUERY) {
    // One more than the cap per folder tells whether there are more.
    statements.push(treeAssetsSql(folderIds.slice(start, start + TREE_FOLDERS_PER_QUERY), TREE_ASSETS_PER_FOLDER + 1, vis));
  }
  return statements;
}

/**
 * Fills the tree form's `assets`: each folder's first files by name (up to TREE_ASSETS_PER_FOLDER), folders taken
 * breadth first (the top of the tree first) until the tree lists TREE_ASSETS_TOTAL files; folders past the cap list
 * none. `assets_more` tells a client to page a folder with GET /members/{id}; the root states the caps.
 * Only folders whose rollup counts live files are asked about (`files`): the others list none to anybody. For an
 * administrator the counts are exact, so one batch asks about just the folders that fill the cap. False when the
 * versions moved since the folders were read (the caller reads the tree again).
 */
async function addTreeAssets(
  rc: RequestContext,
  root: GroupTreeNode,
  files: ReadonlyMap<string, number>,
  vis: Vis,
  versions: TreeVersions | undefined,
): Promise<boolean> {
  const order: GroupTreeNode[] = [];
  for (let i = 0, queue = [root]; i < queue.length; i++) {
    order.push(queue[i]);
    queue.push(...queue[i].subGroups);
  }
  for (const node of order) {
    node.assets = [];
    node.assets_more = true;
  }
  const withFiles = order.filter((n) => (files.get(n.element_id) ?? 0) > 0).map((n) => n.element_id);
  // An administrator's first batch: the folders whose counted files reach the cap (a filtered caller may see fewer).
  let firstRound = TREE_FOLDERS_PER_QUERY;
  if (vis === null) {
    let bound = 0;
    firstRound = 0;
    while (firstRound < withFiles.length && bound < TREE_ASSETS_TOTAL) {
      bound += Math.min(files.get(withFiles[firstRound])!, TREE_ASSETS_PER_FOLDER);
      firstRound++;
    }
  }
  const byFolder = new Map<string, TreeAssetRow[]>();
  let fetched = 0;
  let listed = 0;
  for (let next = 0; next < order.length && listed < TREE_ASSETS_TOTAL; next++) {
    const node = order[next];
    if ((files.get(node.element_id) ?? 0) > 0 && !byFolder.has(node.element_id)) {
      const round = withFiles.slice(fetched, fetched + (fetched === 0 ? Math.max(1, firstRound) : TREE_FOLDERS_PER_QUERY));
      const [again, ...chunks] = await readBatch<[TreeVersions, ...TreeAssetRow[]]>(rc.db, [
        treeVersionsSql(root.element_id),
        ...treeAssetStatements(round, vis),
      ]);
      if (!sameVersions(again[0], versions)) return false;
      for (const folder of round) byFolder.set(folder, []);
      for (const r of chunks.flat()) byFolder.get(r.group_id)!.push(r);
      fetched += round.length;
    }
    const found = byFolder.get(node.element_id) ?? [];
    const room = Math.min(TREE_ASSETS_PER_FOLDER, TREE_ASSETS_TOTAL - listed);
    node.assets = found.slice(0, room).map((r) => ({ asset_id: r.asset_id, name: r.name, mimetype: r.mime, ver: r.ver ?? 0 }));
    node.assets_more = found.length > room;
    listed += node.assets.length;
  }
  root.assets_cap = { ...TREE_ASSETS_CAPS };
  return true;
}
