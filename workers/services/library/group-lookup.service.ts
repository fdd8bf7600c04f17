/** Finding groups and reading their totals: search by name, lookup by path, sizes, storage, groups of users. */
import { ru } from "../../../shared/i18n/ru";
import * as repo from "../../db/repositories/group.repository";
import * as readsRepo from "../../db/repositories/group-reads.repository";
import { DEFAULT_STORAGE_ID } from "../../db/repositories/group.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { accessibleIds, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { sizesFromRollups } from "./folder-rollups.service";
import { getStorageInfo, type StorageInfo } from "../storage";
import { sortKeyOf, splitEntityPath, visiblePath } from "./group-tree";
import { GROUP_PAGE_SIZE, type Paging, type GroupPathEntry } from "./group.service";
import { loadGroup, loadGroups } from "./group-guard";

export interface FoundGroup {
  group_id: string;
  group_name: string;
  group_owner: string | null;
  owner_name: string | null;
  parent: string | null;
  path: GroupPathEntry[];
  ctime: string | null;
  mtime: string | null;
}

/**
 * GET /search: live groups whose name contains `q` (case-insensitive) that the actor sees, with their paths — a page
 * over the libraries `scope` names, each group with its name key: the list's order across libraries (decision 051,
 * step 2.3: each library searched where it lives, the pages merged by name, then id). A group's path is of its own
 * library's folders, which its library holds.
 */
export async function searchGroupsPage(
  rc: RequestContext,
  actor: Actor,
  q: string,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging,
  scope: LibraryScope,
): Promise<{ sort: string; group: FoundGroup }[]> {
  const rows = await readsRepo.searchGroups(rc.db, { q: sortKeyOf(q), vis: await visibility(rc, actor), skip, take, scope });
  if (rows.length === 0) return [];
  const ancestors = await repo.ancestorsOfMany(
    rc.db,
    rows.map((r) => r.id),
  );
  const readable = await accessibleIds(rc, actor, "group", [...new Set(ancestors.map((a) => a.id))]);
  const chains = new Map<string, typeof ancestors>();
  for (const a of ancestors) chains.set(a.descendant, [...(chains.get(a.descendant) ?? []), a]);
  const paths = new Map<string, GroupPathEntry[]>();
  for (const [descendant, chain] of chains) {
    paths.set(
      descendant,
      visiblePath(chain, readable, ROOT_GROUP_ID).map((a) => ({ group_id: a.id, group_name: a.name })),
    );
  }
  return rows.map((r) => ({
    sort: r.sort_name,
    group: {
      group_id: r.id,
      group_name: r.name,
      group_owner: r.owner_id,
      owner_name: r.owner_name,
      parent: r.parent_id,
      path: paths.get(r.id) ?? [],
      ctime: toIso(r.ctime),
      mtime: toIso(r.mtime),
    },
  }));
}

/** POST /entity-by-path/{root}: resolves "a/b/c" below `rootId` name by name (groups; the last may be an asset). */
export async function entityByPath(
  rc: RequestContext,
  actor: Actor,
  rootId: string,
  path: string,
): Promise<{ el_id: string; el_type: "asset" | "group" }> {
  const segments = splitEntityPath(path);
  if (!segments) throw new AppError("BAD_REQUEST", ru.groups.badPath);
  await loadGroup(rc, actor, rootId, "read");
  const vis = await visibility(rc, actor);
  let current = rootId;
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i];
    const lookup = { groupId: current, sortName: sortKeyOf(name), name, vis };
    const group = await readsRepo.memberByName(rc.db, { ...lookup, type: "group" });
    if (group) {
      current = group.el_id;
      if (i === segments.length - 1) return { el_id: current, el_type: "group" };
      continue;
    }
    if (i === segments.length - 1) {
      const asset = await readsRepo.memberByName(rc.db, { ...lookup, type: "asset" });
      if (asset) return { el_id: asset.el_id, el_type: "asset" };
    }
    break;
  }
  throw new AppError("NOT_FOUND", ru.groups.pathNotFound);
}

/** POST /group-size: bytes, assets and sub-groups of each subtree (what the actor sees). */
export async function groupSizes(
  rc: RequestContext,
  actor: Actor,
  ids: string[],
): Promise<{ group_id: string; bytes: number; assets: number; groups: number }[]> {
  const unique = await loadGroups(rc, actor, ids, "read");
  const vis = await visibility(rc, actor);
  // Callers who see everything answer from the rollups (a row per group); for others the totals depend on their
  // rules, so the visibility-filtered aggregate runs (decision record 017).
  if (vis === null) return sizesFromRollups(rc.db, unique);
  return Promise.all(
    unique.map(async (id) => {
      const size = await readsRepo.subtreeSize(rc.db, id, vis);
      return { group_id: id, bytes: size.bytes, assets: size.assets, groups: Math.max(0, size.groups) };
    }),
  );
}

/** GET /groups-with-users: groups that have users as members (administrators only). */
export async function listGroupsWithUsers(rc: RequestContext, actor: Actor, { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {}) {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  return readsRepo.groupsWithUsers(rc.db, { skip, take });
}

/** GET /storage/{id}: the group's default storage, else its nearest ancestor's, else the default R2 storage. */
export async function groupStorage(rc: RequestContext, actor: Actor, id: string): Promise<StorageInfo> {
  await loadGroup(rc, actor, id, "read");
  // SPEC §3 Storage as the storage list answers it (storage_setup for administrators).
  return getStorageInfo(rc, actor, (await readsRepo.nearestStorage(rc.db, id))?.storage_id ?? DEFAULT_STORAGE_ID);
}
