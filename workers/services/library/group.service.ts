// Just over 400 lines: one group's whole life (roots, read, create, change, trash, purge); listings and moves have their own files.
/**
 * Groups (folders) one at a time: the roots, reading, creating, changing, trashing, restoring and purging a group.
 * Listings of a group's members are in group-listing.service.ts, membership changes in group-members.service.ts.
 */
import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import type { Database } from "../../db/client";
import * as repo from "../../db/repositories/group.repository";
import * as readsRepo from "../../db/repositories/group-reads.repository";
import * as purgeRepo from "../../db/repositories/group-purge.repository";
import { findGroup, listChildGroups } from "../../db/repositories/group.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { binaryOrder } from "../../lib/binary-order";
import { toIso } from "../../lib/time";
import { TRASH_RETENTION_MS } from "../../lib/trash";
import type { PurgeGroupMessage, TaskMessageInput } from "../../queue/messages";
import { accessibleIds, fileAuditStatement, visibility } from "../access";
import { purgeAssets } from "./asset-content.service";
import type { Actor, RequestContext } from "../access";
import { eventSql } from "../events";
import { groupTrashLocations, type TrashLocation } from "./trash-location.service";
import { MAX_GROUP_DEPTH, sortKeyOf, visiblePath } from "./group-tree";
import { requireGroup, loadGroup, loadGroups, rejectRoot, runGuarded } from "./group-guard";
import { listsTopMost, topEntries, type TopEntriesRead } from "./root-listing.service";

/** Page size of group listings (SPEC §9). */
export const GROUP_PAGE_SIZE = 50;

export interface GroupSummary {
  group_id: string;
  group_name: string;
  group_owner: string | null;
  owner_name: string | null;
  ctime: string | null;
  mtime: string | null;
  members: number;
}

export interface Paging {
  skip?: number;
  take?: number;
}

/**
 * The virtual root 'Доступные Файлы': the top-level groups the actor may read (a chrooted actor: their chroot
 * groups). Visibility is part of the SQL, so paging stays correct.
 */
export async function listAvailableRoot(rc: RequestContext, actor: Actor, { skip = 0, take = GROUP_PAGE_SIZE } = {}, reads?: RootReads) {
  const [groups, root] = await Promise.all([listRoots(rc, actor, { skip, take }, reads), findGroup(rc.db, ROOT_GROUP_ID)]);
  return { group_id: ROOT_GROUP_ID, group_name: root?.name ?? ru.app.rootGroupName, groups, complete: groups.length < take };
}

/**
 * How the roots of a caller whose root is not the top-level groups are read: over the catalog (the default), or where
 * each library lives (the API's and the root page's, decision 051) — the top-most folders and files he reads, and a
 * confined caller's roots (`confinedRoots`: one answer each, null for one gone or hidden).
 */
export interface RootReads {
  top: TopEntriesRead;
  confined: (roots: string[]) => Promise<(GroupSummary | null)[]>;
}

/** Each of a confined caller's roots (his chroot or token scope groups), in order: null for one gone or hidden from him. */
export async function confinedRoots(rc: RequestContext, actor: Actor, roots: string[]): Promise<(GroupSummary | null)[]> {
  const vis = await visibility(rc, actor);
  const rows = vis ? await readsRepo.chrootRootGroups(rc.db, { vis, roots, skip: 0, take: roots.length }) : [];
  const found = new Map(rows.map((row) => [row.id, summaryOf(row)]));
  return roots.map((id) => found.get(id) ?? null);
}

/**
 * GET /roots (and /acl-roots): what the actor finds on «Доступные Файлы», by name. Administrators: the top-level
 * groups; a confined caller: their chroot (or token scope) groups; anyone else: the top-most groups they read,
 * wherever they are (their parents hidden from them), so a folder shared deep in someone's tree is found here. The
 * last two are read by `reads` (where each library lives, from the API and the root page).
 */
export async function listRoots(
  rc: RequestContext,
  actor: Actor,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
  reads: RootReads = {
    top: (query, page) => topEntries(rc, actor, query, page, "all"),
    confined: (roots) => confinedRoots(rc, actor, roots),
  },
): Promise<GroupSummary[]> {
  const vis = await visibility(rc, actor);
  if (vis && listsTopMost(vis))
    return (await reads.top({ types: ["group"] }, { skip, take })).flatMap(({ group }) =>
      group ? [summaryOf({ ...group, id: group.el_id })] : [],
    );
  const roots = vis ? (vis.chroot.length > 0 ? vis.chroot : vis.scope ?? []) : [];
  if (vis && roots.length > 0) {
    // By name key (the listing's sort name is the lower-cased name), then id, as the catalog's one statement ordered them.
    const keyed = (await reads.confined([...new Set(roots)])).flatMap((g) => (g ? [{ key: sortKeyOf(g.group_name), g }] : []));
    keyed.sort((a, b) => binaryOrder(a.key, b.key) || binaryOrder(a.g.group_id, b.g.group_id));
    return keyed.slice(skip, skip + take).map(({ g }) => g);
  }
  const rows = await listChildGroups(rc.db, ROOT_GROUP_ID, { vis, skip, take });
  return rows.map((r) => ({
    group_id: r.id,
    group_name: r.name,
    group_owner: r.ownerId,
    owner_name: r.ownerName,
    ctime: toIso(r.ctime),
    mtime: toIso(r.mtime),
    members: r.memberCount,
  }));
}

/**
 * GET /acl-roots: the highest groups the actor reads (as owner or through rules) whose parent it cannot read or is
 * the virtual root — the same list as GET /roots since the root shows exactly those.
 */
export async function listAclRoots(rc: RequestContext, actor: Actor, paging: Paging = {}, reads?: RootReads): Promise<GroupSummary[]> {
  return listRoots(rc, actor, paging, reads);
}

function summaryOf(r: {
  id: string;
  name: string;
  owner_id: string | null;
  owner_name: string | null;
  ctime: number;
  mtime: number;
  members: number;
}): GroupSummary {
  return {
    group_id: r.id,
    group_name: r.name,
    group_owner: r.owner_id,
    owner_name: r.owner_name,
    ctime: toIso(r.ctime),
    mtime: toIso(r.mtime),
    members: r.members,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One group

export interface GroupTag {
  tag_id: string;
  tag_name: string;
}

export interface GroupPathEntry {
  group_id: string;
  group_name: string;
}

/** A group (SPEC §3) with its tags and breadcrumbs. */
export interface Group {
  group_id: string;
  group_name: string;
  group_owner: string | null;
  owner_name: string | null;
  group_default_storage: string | null;
  group_default_class: string | null;
  group_tags: GroupTag[];
  /** the parent group; null for the virtual root */
  parent: string | null;
  /** from the virtual root down to this group (ancestors the actor may not read are left out) */
  path: GroupPathEntry[];
  ctime: string | null;
  mtime: string | null;
  deleted_at: string | null;
}

/**
 * GET /get/{id}: a group with tags and path; the virtual root answers as 'Доступные Файлы'. A trashed group
 * still answers (with `deleted_at`) to those who may read it, so the trash can show it.
 * @example const group = await getGroup(context.rc, actor, params.idGroup)
 */
export async function getGroup(rc: RequestContext, actor: Actor, id: string): Promise<Group> {
  // The tags and the path are read beside the group (one round trip, decision 030); nothing of them is answered
  // unless the check below passes.
  const tagsAndPath = Promise.all([repo.groupTags(rc.db, id), repo.ancestorsOf(rc.db, id)]);
  tagsAndPath.catch(() => {});
  const found = await repo.findGroupWithOwner(rc.db, id);
  if (!found) throw new AppError("NOT_FOUND", ru.groups.notFound);
  const g = found.group;
  if (id !== ROOT_GROUP_ID) await requireGroup(rc, actor, g, "read");
  const [tags, ancestors] = await tagsAndPath;
  // administrators read every group: no query to filter the path
  const readable = actor.isAdmin
    ? new Set(ancestors.map((a) => a.id))
    : await accessibleIds(
        rc,
        actor,
        "group",
        ancestors.map((a) => a.id),
      );
  return {
    group_id: g.id,
    group_name: g.name,
    group_owner: g.ownerId,
    owner_name: found.ownerName,
    group_default_storage: g.defaultStorage,
    group_default_class: g.defaultClass,
    group_tags: tags,
    parent: g.parentId,
    path: visiblePath(ancestors, readable, ROOT_GROUP_ID).map((a) => ({ group_id: a.id, group_name: a.name })),
    ctime: toIso(g.ctime),
    mtime: toIso(g.mtime),
    deleted_at: toIso(g.deletedAt),
  };
}

async function requireStorageAndClass(db: Database, input: { default_storage?: string | null; default_class?: string | null }) {
  if (input.default_storage != null && !(await repo.storageExists(db, input.default_storage))) {
    throw new AppError("BAD_REQUEST", ru.groups.unknownStorage);
  }
  if (input.default_class != null && !(await repo.assetClassExists(db, input.default_class))) {
    throw new AppError("BAD_REQUEST", ru.groups.unknownClass);
  }
}

export interface CreateGroupInput {
  parent: string;
  group_name: string;
  default_storage?: string | null;
  default_class?: string | null;
}

/**
 * POST /create: a group below `parent` (the virtual root for a top-level group), owned by the actor. One batch
 * writes the row, its closure rows and its membership in the parent; a live sibling with the same name
 * (case-insensitively) is a 409.
 * @example const { group_id } = await createGroup(rc, actor, { parent: ROOT_GROUP_ID, group_name: "Съёмки" })
 */
export async function createGroup(rc: RequestContext, actor: Actor, input: CreateGroupInput): Promise<{ group_id: string }> {
  const parent = await loadGroup(rc, actor, input.parent, "create");
  await requireStorageAndClass(rc.db, input);
  if ((await repo.depthOf(rc.db, parent.id)) + 1 > MAX_GROUP_DEPTH) throw new AppError("CONFLICT", ru.groups.tooDeep(MAX_GROUP_DEPTH));
  const sortName = sortKeyOf(input.group_name);
  if (await repo.siblingWithName(rc.db, parent.id, sortName)) throw new AppError("CONFLICT", ru.groups.nameTaken(input.group_name));
  const now = Date.now();
  const id = newId(now);
  await runGuarded(rc.db, [
    repo.abortIf(repo.groupNotLiveSql(parent.id)),
    repo.abortIf(repo.siblingNameTakenSql(parent.id, sortName)),
    ...repo.insertGroupStatements({
      id,
      name: input.group_name,
      sortName,
      parentId: parent.id,
      ownerId: actor.id,
      defaultStorage: input.default_storage ?? null,
      defaultClass: input.default_class ?? null,
      now,
    }),
    eventSql(rc, {
      type: "group.created",
      entityType: "group",
      entityId: id,
      ownerId: actor.id,
      actorId: actor.id,
      data: { name: input.group_name, parent: parent.id },
    }),
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "create",
      targets: { type: "group", id, name: input.group_name, folderId: parent.id },
    }),
  ]);
  return { group_id: id };
}

export interface UpdateGroupInput {
  group_name?: string;
  default_storage?: string | null;
  default_class?: string | null;
  /** replaces the group's tags */
  tags?: string[];
}

/** PATCH /update/{id}: rename (the parent's membership gets the new sort key), defaults, tags; answers the group. */
export async function updateGroup(rc: RequestContext, actor: Actor, id: string, input: UpdateGroupInput): Promise<Group> {
  rejectRoot(id);
  const g = await loadGroup(rc, actor, id, "update");
  await requireStorageAndClass(rc.db, input);
  const tags = input.tags ? [...new Set(input.tags)] : undefined;
  if (tags && tags.length > 0) {
    const known = await repo.existingTagIds(rc.db, tags);
    const unknown = tags.find((t) => !known.has(t));
    if (unknown) throw new AppError("BAD_REQUEST", ru.groups.unknownTag(unknown));
  }
  const sortName = input.group_name !== undefined ? sortKeyOf(input.group_name) : undefined;
  const parentId = g.parentId ?? ROOT_GROUP_ID;
  if (sortName !== undefined && (await repo.siblingWithName(rc.db, parentId, sortName, id))) {
    throw new AppError("CONFLICT", ru.groups.nameTaken(input.group_name!));
  }
  const statements: SQL[] = [repo.abortIf(repo.groupNotLiveSql(id))];
  if (sortName !== undefined) statements.push(repo.abortIf(repo.siblingNameTakenSql(parentId, sortName, [id])));
  statements.push(
    ...repo.updateGroupStatements({
      id,
      parentId,
      now: Date.now(),
      name: input.group_name,
      sortName,
      defaultStorage: input.default_storage,
      defaultClass: input.default_class,
    }),
  );
  if (tags) statements.push(...repo.replaceGroupTagsStatements(id, tags));
  statements.push(
    eventSql(rc, { type: "group.updated", entityType: "group", entityId: id, ownerId: g.ownerId, actorId: actor.id, data: { ...input } }),
  );
  const renamed = input.group_name !== undefined && input.group_name !== g.name;
  const others = Object.keys(input).filter((k) => k !== "group_name" && k !== "tags");
  const audits: { verb: "rename" | "tags" | "update"; details: Record<string, unknown> }[] = [
    ...(renamed ? [{ verb: "rename" as const, details: { from: g.name } }] : []),
    ...(tags ? [{ verb: "tags" as const, details: { tags: tags.length } }] : []),
    ...(others.length > 0 ? [{ verb: "update" as const, details: { fields: others } }] : []),
  ];
  for (const a of audits)
    statements.push(
      fileAuditStatement(rc, { actorId: actor.id, verb: a.verb, targets: { type: "group", id, folderId: parentId, details: a.details } }),
    );
  await runGuarded(rc.db, statements);
  return getGroup(rc, actor, id);
}

/**
 * DELETE /delete/{id} and POST /delete-list: moves groups with their subtrees to the trash, all in one batch
 * (every id is checked first: nothing changes unless all may be deleted). Assets inside stay as they are.
 */
export async function trashGroups(rc: RequestContext, actor: Actor, ids: string[]): Promise<void> {
  const unique = await loadGroups(rc, actor, ids, "delete");
  const now = Date.now();
  const found = await repo.findGroups(rc.db, unique);
  const owners = new Map(found.map((g) => [g.id, g.owner_id]));
  const events = unique.map((id) => ({
    type: "group.trashed",
    entityType: "group" as const,
    entityId: id,
    ownerId: owners.get(id) ?? null,
    actorId: actor.id,
  }));
  await repo.runBatch(rc.db, [
    // before the subtree is hidden, so the entries find each folder's parent
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "delete",
      targets: found.map((g) => ({ type: "group" as const, id: g.id, name: g.name })),
    }),
    ...unique.flatMap((id) => repo.trashSubtreeStatements(id, now)),
    eventSql(rc, events),
  ]);
}

/**
 * POST /restore/{id}: undoes a deletion within the retention period (`TRASH_RETENTION_DAYS`); the parent must be
 * live and the name free there.
 */
export async function restoreGroup(rc: RequestContext, actor: Actor, id: string): Promise<Group> {
  rejectRoot(id);
  const g = await loadGroup(rc, actor, id, "delete", true);
  if (g.deletedAt == null) throw new AppError("CONFLICT", ru.groups.notInTrash);
  if (Date.now() - g.deletedAt > TRASH_RETENTION_MS) throw new AppError("CONFLICT", ru.groups.restoreExpired);
  const parentId = g.parentId ?? ROOT_GROUP_ID;
  const parent = await findGroup(rc.db, parentId);
  if (!parent || parent.deletedAt != null) throw new AppError("CONFLICT", ru.groups.parentGone);
  if (!(await repo.hasParentMembership(rc.db, id, parentId))) throw new AppError("CONFLICT", ru.groups.purging);
  const sortName = sortKeyOf(g.name);
  if (await repo.siblingWithName(rc.db, parentId, sortName, id)) throw new AppError("CONFLICT", ru.groups.nameTaken(g.name));
  await runGuarded(rc.db, [
    repo.abortIf(repo.groupNotLiveSql(parentId)),
    repo.abortIf(repo.siblingNameTakenSql(parentId, sortName, [id])),
    ...repo.restoreSubtreeStatements(id, g.deletedAt),
    eventSql(rc, { type: "group.restored", entityType: "group", entityId: id, ownerId: g.ownerId, actorId: actor.id }),
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "restore",
      targets: { type: "group", id, name: g.name, folderId: parentId, details: { trash: true } },
    }),
  ]);
  return getGroup(rc, actor, id);
}

export interface TrashedGroup {
  group_id: string;
  group_name: string;
  parent: string;
  group_owner: string | null;
  deleted_at: string;
  /** the folder it was in, where a restore puts it back (null when the caller may not read that folder) */
  location: TrashLocation | null;
}

/**
 * GET /trash: the actor's trashed groups (the top of each deletion), newest first, of the libraries `scope` names
 * (across libraries, `trashWhereItLives` asks each where it lives).
 */
export async function trashedGroupsPage(
  rc: RequestContext,
  actor: Actor,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
  scope: LibraryScope = "own",
): Promise<TrashedGroup[]> {
  const rows = await readsRepo.trashedTops(rc.db, { vis: await visibility(rc, actor), skip, take, scope });
  const locations = await groupTrashLocations(
    rc,
    actor,
    rows.map((r) => ({ id: r.id, parentId: r.parent_id })),
  );
  return rows.map((r) => ({
    group_id: r.id,
    group_name: r.name,
    parent: r.parent_id,
    group_owner: r.owner_id,
    deleted_at: toIso(r.deleted_at)!,
    location: locations.get(r.id) ?? null,
  }));
}

/**
 * DELETE /purge/{id}: trashes the subtree now and detaches it from its parent (so it can no longer be restored);
 * the route then queues the permanent deletion (`queueGroupPurge`) — once the library's shard has made this change,
 * when the library lives in one (a routed write).
 */
export async function purgeGroup(rc: RequestContext, actor: Actor, id: string): Promise<null> {
  rejectRoot(id);
  const g = await loadGroup(rc, actor, id, "delete", true);
  const now = Date.now();
  await repo.runBatch(rc.db, [
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "purge",
      targets: { type: "group", id, name: g.name, folderId: g.parentId ?? ROOT_GROUP_ID },
    }),
    ...repo.trashSubtreeStatements(id, now),
    repo.detachFromParentStatement(id, g.parentId ?? ROOT_GROUP_ID),
    eventSql(rc, { type: "group.purged", entityType: "group", entityId: id, ownerId: g.ownerId, actorId: actor.id }),
  ]);
  return null;
}

/** The permanent deletion of a subtree `purgeGroup` detached, queued for the TASKS consumer (`runPurgeGroup`). */
export async function queueGroupPurge(env: Env, actor: Actor, id: string): Promise<{ group_id: string; queued: true }> {
  await env.TASKS.send({ op: "purge-group", groupId: id, actorId: actor.id } satisfies TaskMessageInput);
  return { group_id: id, queued: true };
}

// ---------------------------------------------------------------------------------------------------------------
// Permanent deletion (TASKS consumer)

/**
 * The `purge-group` operation: deletes a trashed subtree for good, in chunks. First the asset memberships inside
 * it: assets listed only inside the subtree are purged with everything that hangs off them (`purgeAssets`: versions,
 * variants, previews, tag links, and the bytes no other row references, on whatever storage they are); assets also
 * listed elsewhere just lose these memberships. Then the groups, deepest first. After `budget` chunks it queues its
 * own continuation, so no run is ever long. A storage that cannot delete bytes fails the run (the queue retries it),
 * so rows are never dropped while their bytes stay behind.
 */
export async function runPurgeGroup(rc: RequestContext, job: PurgeGroupMessage): Promise<string> {
  const group = await findGroup(rc.db, job.groupId);
  if (!group) return `group ${job.groupId} already purged`;
  if (group.deletedAt == null) return `group ${job.groupId} is not in the trash; purge skipped`;
  let assets = 0;
  let objects = 0;
  let groups = 0;
  const progress = () => `${assets} assets, ${objects} objects, ${groups} groups`;
  for (let step = 0; step < job.budget; step++) {
    const memberships = await purgeRepo.assetMembershipsInSubtree(rc.db, job.groupId, job.chunkSize);
    if (memberships.length > 0) {
      const ids = [...new Set(memberships.map((m) => m.el_id))];
      const survivors = await purgeRepo.assetsAlsoOutside(rc.db, job.groupId, ids);
      const doomed = ids.filter((id) => !survivors.has(id));
      if (doomed.length > 0) {
        const purged = await purgeAssets(rc, doomed, job.actorId ?? null);
        assets += purged.assets;
        objects += purged.objects;
      }
      // The purge removed every membership of the doomed assets; those of the survivors inside the subtree remain.
      if (survivors.size > 0) await repo.runStatement(rc.db, purgeRepo.deleteMembershipPairsStatement(memberships));
      continue;
    }
    const chunk = await purgeRepo.deepestInSubtree(rc.db, job.groupId, job.chunkSize);
    if (chunk.length === 0) return `purged group ${job.groupId}: ${progress()}`;
    await repo.runBatch(rc.db, purgeRepo.deleteGroupsStatements(chunk));
    groups += chunk.length;
    if (chunk.includes(job.groupId)) return `purged group ${job.groupId}: ${progress()}`;
  }
  await rc.env.TASKS.send({ ...job } satisfies TaskMessageInput);
  return `purging group ${job.groupId}: ${progress()} so far; continued in a new message`;
}
