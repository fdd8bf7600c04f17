import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import type { Database } from "../../db/client";
import * as repo from "../../db/repositories/group.repository";
import { DEFAULT_STORAGE_ID, findGroup, listChildGroups } from "../../db/repositories/group.repository";
import type { GroupRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { TRASH_RETENTION_MS } from "../../lib/trash";
import type { PurgeGroupMessage, TaskMessageInput } from "../../queue/messages";
import { accessibleIds, passesReadDown, requireEntityAccess, visibility, type AccessLevel } from "../access";
import { purgeAssets } from "./asset-content.service";
import { userMembersIn, userMembershipStatements } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventSql } from "../events";
import { treeVersionOf } from "../../db/repositories/folder-rollup.repository";
import { sizesFromRollups } from "./folder-rollups.service";
import { pageBySkip } from "./member-seek.service";
import { cachedSubtree } from "./subtree-cache";
import { groupTrashLocations, type TrashLocation } from "./trash-location.service";
import { getStorageInfo, type StorageInfo } from "../storage";
import {
  buildTree,
  decodeCursor,
  encodeCursor,
  MAX_GROUP_DEPTH,
  previewRef,
  sortKeyOf,
  splitEntityPath,
  type GroupTreeNode,
  type ListedType,
  type MemberCursor,
  type MemberSort,
  type SortOrder,
} from "./group-tree";

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
export async function listAvailableRoot(rc: RequestContext, actor: Actor, { skip = 0, take = GROUP_PAGE_SIZE } = {}) {
  const [groups, root] = await Promise.all([listRoots(rc, actor, { skip, take }), findGroup(rc.db, ROOT_GROUP_ID)]);
  return { group_id: ROOT_GROUP_ID, group_name: root?.name ?? ru.app.rootGroupName, groups, complete: groups.length < take };
}

/** GET /roots: the top-level groups the actor sees, by name. */
export async function listRoots(
  rc: RequestContext,
  actor: Actor,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
): Promise<GroupSummary[]> {
  const vis = await visibility(rc, actor);
  const roots = vis ? (vis.chroot.length > 0 ? vis.chroot : vis.scope ?? []) : [];
  if (vis && roots.length > 0) return (await repo.chrootRootGroups(rc.db, { vis, roots, skip, take })).map(summaryOf);
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
 * the virtual root. Administrators hold rights everywhere, so theirs are the top-level groups.
 */
export async function listAclRoots(
  rc: RequestContext,
  actor: Actor,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
): Promise<GroupSummary[]> {
  const vis = await visibility(rc, actor);
  if (!vis) return listRoots(rc, actor, { skip, take });
  return (await repo.aclRootGroups(rc.db, { vis, rootId: ROOT_GROUP_ID, skip, take })).map(summaryOf);
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
// Access

/** Checks `level` on a group through the one access entry point (404 when the actor may not read it, else 403). */
function requireGroup(
  rc: RequestContext,
  actor: Actor,
  g: { id: string; ownerId: string | null },
  level: AccessLevel,
  notFound: string = ru.groups.notFound,
) {
  return requireEntityAccess(rc, actor, { id: g.id, type: "group", ownerId: g.ownerId }, level, notFound);
}

/**
 * Loads a group and checks the actor's right on it. The virtual root may be read and created in by everyone
 * (its listing is filtered by visibility) and never changed. Trashed groups are 404 unless `allowTrashed`.
 */
async function loadGroup(rc: RequestContext, actor: Actor, id: string, level: AccessLevel, allowTrashed = false): Promise<GroupRow> {
  const row = await findGroup(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.groups.notFound);
  if (id === ROOT_GROUP_ID) {
    if (level === "read") return row;
    if (level !== "create") throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
    // Everyone may create top-level groups except a chrooted caller (the group would lie outside the chroot).
    await requireGroup(rc, actor, row, level);
    return row;
  }
  await requireGroup(rc, actor, row, level);
  if (row.deletedAt != null && !allowTrashed) throw new AppError("NOT_FOUND", ru.groups.notFound);
  return row;
}

/**
 * `loadGroup` for a list of live groups in one query: every id must exist, be live and allow `level` (the virtual
 * root only for read). Answers the ids without duplicates.
 */
async function loadGroups(rc: RequestContext, actor: Actor, ids: string[], level: AccessLevel): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (level !== "read") unique.forEach(rejectRoot);
  const rows = new Map((await repo.findGroups(rc.db, unique)).map((g) => [g.id, g]));
  for (const id of unique) {
    const g = rows.get(id);
    if (!g) throw new AppError("NOT_FOUND", ru.groups.notFound);
    if (id === ROOT_GROUP_ID) continue;
    await requireGroup(rc, actor, { id, ownerId: g.owner_id }, level);
    if (g.deleted_at != null) throw new AppError("NOT_FOUND", ru.groups.notFound);
  }
  return unique;
}

function rejectRoot(id: string) {
  if (id === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
}

/** Runs a batch whose `abortIf` assertions re-check the service's checks; a failed assertion is a 409. */
async function runGuarded(db: Database, statements: SQL[]) {
  try {
    return await repo.runBatch(db, statements);
  } catch (error) {
    if (repo.isAssertionFailure(error)) throw new AppError("CONFLICT", ru.groups.concurrentChange);
    throw error;
  }
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
  const found = await repo.findGroupWithOwner(rc.db, id);
  if (!found) throw new AppError("NOT_FOUND", ru.groups.notFound);
  const g = found.group;
  if (id !== ROOT_GROUP_ID) await requireGroup(rc, actor, g, "read");
  const [tags, ancestors] = await Promise.all([repo.groupTags(rc.db, id), repo.ancestorsOf(rc.db, id)]);
  const readable = await accessibleIds(
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
    path: ancestors
      .filter((a) => a.id === ROOT_GROUP_ID || a.id === id || readable.has(a.id))
      .map((a) => ({ group_id: a.id, group_name: a.name })),
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
  const owners = new Map((await repo.findGroups(rc.db, unique)).map((g) => [g.id, g.owner_id]));
  const events = unique.map((id) => ({
    type: "group.trashed",
    entityType: "group" as const,
    entityId: id,
    ownerId: owners.get(id) ?? null,
    actorId: actor.id,
  }));
  await repo.runBatch(rc.db, [...unique.flatMap((id) => repo.trashSubtreeStatements(id, now)), eventSql(rc, events)]);
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

/** GET /trash: the actor's trashed groups (the top of each deletion), newest first. */
export async function trashedGroupsPage(
  rc: RequestContext,
  actor: Actor,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
): Promise<TrashedGroup[]> {
  const rows = await repo.trashedTops(rc.db, { vis: await visibility(rc, actor), skip, take });
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
 * DELETE /purge/{id}: trashes the subtree now and detaches it from its parent (so it can no longer be
 * restored), then queues the permanent deletion (`purge-group`) for the TASKS consumer.
 */
export async function purgeGroup(rc: RequestContext, actor: Actor, id: string): Promise<{ group_id: string; queued: true }> {
  rejectRoot(id);
  const g = await loadGroup(rc, actor, id, "delete", true);
  const now = Date.now();
  await repo.runBatch(rc.db, [
    ...repo.trashSubtreeStatements(id, now),
    repo.detachFromParentStatement(id, g.parentId ?? ROOT_GROUP_ID),
    eventSql(rc, { type: "group.purged", entityType: "group", entityId: id, ownerId: g.ownerId, actorId: actor.id }),
  ]);
  await rc.env.TASKS.send({ op: "purge-group", groupId: id, actorId: actor.id } satisfies TaskMessageInput);
  return { group_id: id, queued: true };
}

// ---------------------------------------------------------------------------------------------------------------
// Listings

/** A tag as listings show it. */
export interface MemberTag {
  tag_id: string;
  tag_name: string;
}

export interface AssetMemberInfo {
  name: string;
  mimetype: string;
  ctime: string | null;
  mtime: string | null;
  /** latest version number (0 while the asset has no bytes) */
  ver: number;
  /** main variant of the latest version ('master', else 'initial') */
  var: string | null;
  var_size: number | null;
  var_hash: string | null;
  owner: string;
  owner_name: string | null;
  /** root-relative thumbnail reference, null without a preview */
  preview: string | null;
  /** its tags, by name (an extension of SPEC's el_info: the list view shows them) */
  tags: MemberTag[];
}

export interface GroupMemberInfo {
  name: string;
  ctime: string | null;
  mtime: string | null;
  owner: string | null;
  owner_name: string | null;
  /** live sub-groups */
  groups: number;
  /** assets listed in it */
  assets: number;
  tags: MemberTag[];
}

/** A member of a group (SPEC §3 Group member). */
export type GroupMember =
  | { el_id: string; el_type: "asset"; el_info: AssetMemberInfo }
  | { el_id: string; el_type: "group"; el_info: GroupMemberInfo };

export interface MembersQuery {
  type?: ListedType;
  sort?: MemberSort;
  order?: SortOrder;
  /** name contains (case-insensitive) */
  q?: string;
  /** MIME prefix, e.g. "video/" (lists assets only) */
  mime?: string;
  skip?: number;
  take?: number;
  /** cursor from the previous page's `nextCursor` */
  after?: string;
}

export interface MembersPage {
  items: GroupMember[];
  /** cursor of the next page when this one is full, else null */
  nextCursor: string | null;
}

const SORT_COLUMN: Record<MemberSort, repo.MemberSortColumn> = { name: "sort_name", mtime: "el_mtime", size: "el_size" };

type Keyed<T> = { item: T; key: string | number };

function assetMember(r: repo.AssetMemberRow): GroupMember {
  return {
    el_id: r.el_id,
    el_type: "asset",
    el_info: {
      name: r.name,
      mimetype: r.mime,
      ctime: toIso(r.ctime),
      mtime: toIso(r.mtime),
      ver: r.ver,
      var: r.var,
      var_size: r.var_size,
      var_hash: r.var_hash,
      owner: r.owner_id,
      owner_name: r.owner_name,
      preview: r.has_preview ? previewRef(r.el_id, r.ver) : null,
      tags: [],
    },
  };
}

function groupMember(r: repo.GroupMemberRow): GroupMember {
  return {
    el_id: r.el_id,
    el_type: "group",
    el_info: {
      name: r.name,
      ctime: toIso(r.ctime),
      mtime: toIso(r.mtime),
      owner: r.owner_id,
      owner_name: r.owner_name,
      groups: r.groups,
      assets: r.assets,
      tags: [],
    },
  };
}

/**
 * GET /members/{id}: one page of a group's members with `el_info`, groups before assets. With `after` the page
 * is an index range scan from the cursor (cost independent of depth); without, `skip` offsets. `id` may be the
 * virtual root (its top-level groups). Only what the actor may read is listed.
 * @example const { items, nextCursor } = await listMembers(rc, actor, groupId, { sort: "name", take: 50 })
 */
export async function listMembers(rc: RequestContext, actor: Actor, groupId: string, query: MembersQuery = {}): Promise<MembersPage> {
  const sort = query.sort ?? "name";
  const order = query.order ?? "asc";
  const take = query.take ?? GROUP_PAGE_SIZE;
  let skip = query.skip ?? 0;
  const types: ListedType[] = query.type ? [query.type] : query.mime ? ["asset"] : ["group", "asset"];
  let cursor: MemberCursor | null = null;
  if (query.after !== undefined) {
    if (skip > 0) throw new AppError("BAD_REQUEST", ru.groups.skipWithCursor);
    cursor = decodeCursor(query.after);
    if (!cursor) throw new AppError("BAD_REQUEST", ru.groups.badCursor);
    if (cursor.s !== sort || cursor.o !== order || !types.includes(cursor.t)) throw new AppError("BAD_REQUEST", ru.groups.cursorMismatch);
  }
  await loadGroup(rc, actor, groupId, "read");

  const base = {
    groupId,
    sortColumn: SORT_COLUMN[sort],
    desc: order === "desc",
    q: query.q ? sortKeyOf(query.q) : undefined,
    mime: query.mime ? query.mime.toLowerCase() : undefined,
    vis: await visibility(rc, actor),
    parentPassesRead: await passesReadDown(rc, actor, groupId),
  };
  const keyOf = (r: { sort_name: string; el_mtime: number; el_size: number }) =>
    sort === "name" ? r.sort_name : sort === "mtime" ? r.el_mtime : r.el_size;
  const page: Keyed<GroupMember>[] = [];
  for (const type of types) {
    const remaining = take - page.length;
    if (remaining === 0) break;
    // A cursor in the asset phase means the groups are done.
    if (cursor && cursor.t === "asset" && type === "group") continue;
    const after = cursor && cursor.t === type ? { key: cursor.k, id: cursor.i } : null;
    const options = { ...base, after, skip: after ? 0 : skip, take: remaining };
    if (type === "group") {
      const rows = await pageBySkip<repo.GroupMemberRow>(rc.db, "group", options, repo.groupMembersPageSql);
      page.push(...rows.map((r) => ({ item: groupMember(r), key: keyOf(r) })));
      if (!cursor && skip > 0 && rows.length < remaining) {
        // The page reached past the groups: continue into the assets, skipping what the groups did not use up.
        const groupCount = rows.length > 0 ? skip + rows.length : await repo.countGroupMembers(rc.db, base);
        skip = Math.max(0, skip - groupCount);
      }
    } else {
      const rows = await pageBySkip<repo.AssetMemberRow>(rc.db, "asset", options, repo.assetMembersPageSql);
      page.push(...rows.map((r) => ({ item: assetMember(r), key: keyOf(r) })));
    }
  }
  await attachTags(rc, page.map((p) => p.item));
  const last = page.at(-1);
  const nextCursor =
    page.length === take && last ? encodeCursor({ s: sort, o: order, t: last.item.el_type, k: last.key, i: last.item.el_id }) : null;
  return { items: page.map((p) => p.item), nextCursor };
}

/** Fills each member's `tags` with one query for the whole page. */
async function attachTags(rc: RequestContext, members: GroupMember[]): Promise<void> {
  if (members.length === 0) return;
  const rows = await repo.tagsOfEntities(rc.db, members.map((m) => m.el_id));
  const byEntity = new Map(members.map((m) => [m.el_id, m.el_info.tags]));
  for (const r of rows) byEntity.get(r.entity_id)?.push({ tag_id: r.tag_id, tag_name: r.tag_name });
  // SQLite's lower() folds ASCII only: Cyrillic names are put in order here.
  for (const list of byEntity.values()) list.sort((a, b) => TAG_ORDER.compare(a.tag_name, b.tag_name));
}

const TAG_ORDER = new Intl.Collator("ru", { sensitivity: "base" });

/** A directory entry (SPEC §3) of `GET /dir/{id}`. */
export interface DirectoryEntry {
  id: string;
  type: "asset" | "group";
  name: string;
  ctime: string | null;
  mtime: string | null;
  atime: string | null;
  mime: string | null;
  size: number | null;
  ver: number | null;
  var: string | null;
  var_hash: string | null;
}

/** GET /dir/{id}: the group as a directory listing (groups, then assets, by name; skip/take). */
export async function listDirectory(rc: RequestContext, actor: Actor, id: string, paging: Paging = {}): Promise<DirectoryEntry[]> {
  await loadGroup(rc, actor, id, "read");
  const take = paging.take ?? GROUP_PAGE_SIZE;
  let skip = paging.skip ?? 0;
  const base = {
    groupId: id,
    sortColumn: "sort_name" as const,
    desc: false,
    vis: await visibility(rc, actor),
    parentPassesRead: await passesReadDown(rc, actor, id),
  };
  const groupRows = await pageBySkip<repo.GroupMemberRow>(rc.db, "group", { ...base, skip, take }, repo.groupMembersPageSql);
  const entries: DirectoryEntry[] = groupRows.map((g) => ({
    id: g.el_id,
    type: "group",
    name: g.name,
    ctime: toIso(g.ctime),
    mtime: toIso(g.mtime),
    atime: toIso(g.mtime),
    mime: null,
    size: null,
    ver: null,
    var: null,
    var_hash: null,
  }));
  if (entries.length < take) {
    const groupCount = groupRows.length > 0 || skip === 0 ? skip + groupRows.length : await repo.countGroupMembers(rc.db, base);
    skip = Math.max(0, skip - groupCount);
    const assetRows = await pageBySkip<repo.AssetMemberRow>(
      rc.db,
      "asset",
      { ...base, skip, take: take - entries.length },
      repo.assetMembersPageSql,
    );
    for (const a of assetRows) {
      entries.push({
        id: a.el_id,
        type: "asset",
        name: a.name,
        ctime: toIso(a.ctime),
        mtime: toIso(a.mtime),
        atime: toIso(a.atime),
        mime: a.mime,
        size: a.var_size,
        ver: a.ver,
        var: a.var,
        var_hash: a.var_hash,
      });
    }
  }
  return entries;
}

/** GET /preview-list/{id}: thumbnail references of one page of the group's assets (by name). */
export async function listPreviews(
  rc: RequestContext,
  actor: Actor,
  id: string,
  paging: Paging,
  baseUrl: string,
): Promise<{ base_url: string; list: { el_id: string; preview: string | null }[] }> {
  await loadGroup(rc, actor, id, "read");
  const options = {
    groupId: id,
    sortColumn: "sort_name" as const,
    desc: false,
    vis: await visibility(rc, actor),
    parentPassesRead: await passesReadDown(rc, actor, id),
    skip: paging.skip ?? 0,
    take: paging.take ?? GROUP_PAGE_SIZE,
  };
  const rows = await pageBySkip<repo.AssetMemberRow>(rc.db, "asset", options, repo.assetMembersPageSql);
  return { base_url: baseUrl, list: rows.map((r) => ({ el_id: r.el_id, preview: r.has_preview ? previewRef(r.el_id, r.ver) : null })) };
}

/** GET /subtree/{id}: the tree form of every live descendant the actor sees, from one closure query. */
export async function getSubtree(rc: RequestContext, actor: Actor, id: string): Promise<GroupTreeNode> {
  await loadGroup(rc, actor, id, "read");
  return subtreeOf(rc, id, await visibility(rc, actor));
}

/**
 * GET /subtree/{id} as JSON text. Unfiltered trees (administrators') come from the per-isolate cache keyed by the
 * group's tree version, so a large tree under load costs two indexed reads instead of a closure scan and a sort.
 */
export async function getSubtreeJson(rc: RequestContext, actor: Actor, id: string): Promise<string> {
  await loadGroup(rc, actor, id, "read");
  const vis = await visibility(rc, actor);
  const build = async () => JSON.stringify(await subtreeOf(rc, id, vis));
  if (vis !== null) return build();
  return cachedSubtree(id, await treeVersionOf(rc.db, id), build);
}

async function subtreeOf(rc: RequestContext, id: string, vis: Awaited<ReturnType<typeof visibility>>): Promise<GroupTreeNode> {
  const rows = await repo.subtreeGroups(rc.db, id, vis);
  const tree = buildTree(
    rows.map((r) => ({ id: r.id, name: r.name, parentId: r.parent_id })),
    id,
  );
  if (!tree) throw new AppError("NOT_FOUND", ru.groups.notFound);
  return tree;
}

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

/** GET /search: live groups whose name contains `q` (case-insensitive) that the actor sees, with their paths. */
export async function searchGroups(
  rc: RequestContext,
  actor: Actor,
  q: string,
  { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {},
): Promise<FoundGroup[]> {
  const rows = await repo.searchGroups(rc.db, { q: sortKeyOf(q), vis: await visibility(rc, actor), skip, take });
  if (rows.length === 0) return [];
  const ancestors = await repo.ancestorsOfMany(
    rc.db,
    rows.map((r) => r.id),
  );
  const readable = await accessibleIds(rc, actor, "group", [...new Set(ancestors.map((a) => a.id))]);
  const paths = new Map<string, GroupPathEntry[]>();
  for (const a of ancestors) {
    if (a.id !== ROOT_GROUP_ID && a.id !== a.descendant && !readable.has(a.id)) continue;
    const path = paths.get(a.descendant) ?? [];
    path.push({ group_id: a.id, group_name: a.name });
    paths.set(a.descendant, path);
  }
  return rows.map((r) => ({
    group_id: r.id,
    group_name: r.name,
    group_owner: r.owner_id,
    owner_name: r.owner_name,
    parent: r.parent_id,
    path: paths.get(r.id) ?? [],
    ctime: toIso(r.ctime),
    mtime: toIso(r.mtime),
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
    const group = await repo.memberByName(rc.db, { ...lookup, type: "group" });
    if (group) {
      current = group.el_id;
      if (i === segments.length - 1) return { el_id: current, el_type: "group" };
      continue;
    }
    if (i === segments.length - 1) {
      const asset = await repo.memberByName(rc.db, { ...lookup, type: "asset" });
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
      const size = await repo.subtreeSize(rc.db, id, vis);
      return { group_id: id, bytes: size.bytes, assets: size.assets, groups: Math.max(0, size.groups) };
    }),
  );
}

/** GET /groups-with-users: groups that have users as members (administrators only). */
export async function listGroupsWithUsers(rc: RequestContext, actor: Actor, { skip = 0, take = GROUP_PAGE_SIZE }: Paging = {}) {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  return repo.groupsWithUsers(rc.db, { skip, take });
}

/** GET /storage/{id}: the group's default storage, else its nearest ancestor's, else the default R2 storage. */
export async function groupStorage(rc: RequestContext, actor: Actor, id: string): Promise<StorageInfo> {
  await loadGroup(rc, actor, id, "read");
  // SPEC §3 Storage as the storage list answers it (storage_setup for administrators).
  return getStorageInfo(rc, actor, (await repo.nearestStorage(rc.db, id))?.storage_id ?? DEFAULT_STORAGE_ID);
}

// ---------------------------------------------------------------------------------------------------------------
// Membership changes

export interface MemberRef {
  el_id: string;
  el_type: "asset" | "group" | "user";
}

/**
 * POST /insert-members/{id}: lists assets in a group (and, for administrators, makes users members of it as a group
 * of users: `user_group_members`, the same as POST /group/users/{id}). Assets must exist and be readable; groups join
 * a group only by moving. Members already there are left as they are. Answers where each member now is.
 */
export async function insertMembers(
  rc: RequestContext,
  actor: Actor,
  groupId: string,
  members: MemberRef[],
): Promise<{ el_id: string; group_id: string }[]> {
  const group = await loadGroup(rc, actor, groupId, "create");
  if (group.id === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.groups.rootHoldsGroups);
  const unique = [...new Map(members.map((m) => [m.el_id, m])).values()];
  if (unique.some((m) => m.el_type === "group")) throw new AppError("BAD_REQUEST", ru.groups.groupsByMove);
  const userIds = unique.filter((m) => m.el_type === "user").map((m) => m.el_id);
  const assetIds = unique.filter((m) => m.el_type === "asset").map((m) => m.el_id);
  if (userIds.length > 0 && !actor.isAdmin) throw new AppError("FORBIDDEN", ru.groups.usersAdminOnly);
  const rows: repo.MemberToInsert[] = [];
  if (assetIds.length > 0) {
    const found = new Map((await repo.assetsForMembership(rc.db, assetIds)).map((a) => [a.id, a]));
    const readable = await accessibleIds(rc, actor, "asset", assetIds);
    for (const id of assetIds) {
      const a = found.get(id);
      if (!a || a.deleted_at != null || !readable.has(id)) throw new AppError("NOT_FOUND", ru.assets.notFound);
      rows.push({ el_id: id, el_type: "asset", sort_name: sortKeyOf(a.name), el_mtime: a.mtime, el_size: a.size ?? 0 });
    }
  }
  if (userIds.length > 0) {
    const found = new Set((await repo.usersByIds(rc.db, userIds)).map((u) => u.id));
    if (userIds.some((id) => !found.has(id))) throw new AppError("NOT_FOUND", ru.groups.userNotFound);
  }
  const statements: SQL[] = [repo.abortIf(repo.groupNotLiveSql(groupId))];
  if (rows.length > 0) statements.push(repo.insertMembershipsStatement(groupId, rows, Date.now()));
  if (userIds.length > 0) statements.push(...userMembershipStatements(rc, actor, groupId, userIds, "add"));
  if (statements.length > 1) await runGuarded(rc.db, statements);
  return [...rows.map((r) => r.el_id), ...userIds].map((elId) => ({ el_id: elId, group_id: groupId }));
}

/** DELETE /delete-members/{id}: removes asset and user memberships (groups are deleted or moved, never removed here). */
export async function deleteMembers(rc: RequestContext, actor: Actor, groupId: string, ids: string[]): Promise<void> {
  rejectRoot(groupId);
  await loadGroup(rc, actor, groupId, "delete");
  const unique = [...new Set(ids)];
  const memberships = await repo.membershipsIn(rc.db, groupId, unique);
  if (memberships.some((m) => m.el_type === "group")) throw new AppError("BAD_REQUEST", ru.groups.groupsByDelete);
  const users = await userMembersIn(rc.db, groupId, unique);
  if (users.length > 0) {
    await requireGroup(rc, actor, { id: groupId, ownerId: (await findGroup(rc.db, groupId))?.ownerId ?? null }, "group");
  }
  const statements: SQL[] = [];
  if (memberships.length > 0) statements.push(repo.deleteMembershipsStatement(groupId, unique));
  if (users.length > 0) statements.push(...userMembershipStatements(rc, actor, groupId, users, "remove"));
  if (statements.length > 0) await repo.runBatch(rc.db, statements);
}

/**
 * POST /move-members/{from}/{to} (and /move-member): assets and users change membership, groups are re-parented
 * with their subtree (closure moved in the same batch). Needs delete on the source and create on the target;
 * every member is checked first and one guarded batch moves them all, or none.
 */
export async function moveMembers(rc: RequestContext, actor: Actor, fromId: string, toId: string, ids: string[]): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.includes(ROOT_GROUP_ID)) throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
  if (fromId === toId) throw new AppError("BAD_REQUEST", ru.groups.sameGroup);
  // Moving out of the virtual root needs delete on the moved group itself (checked below) instead of the root.
  if (fromId === ROOT_GROUP_ID) await loadGroup(rc, actor, fromId, "read");
  else await loadGroup(rc, actor, fromId, "delete");
  await loadGroup(rc, actor, toId, "create");

  const memberships = new Map((await repo.membershipsIn(rc.db, fromId, unique)).map((m) => [m.el_id, m]));
  const groupIds = unique.filter((id) => memberships.get(id)?.el_type === "group");
  const assetIds = unique.filter((id) => memberships.get(id)?.el_type === "asset");
  const groupsById = new Map((await repo.findGroups(rc.db, groupIds)).map((g) => [g.id, g]));
  const assetsById = new Map(assetIds.length ? (await repo.assetsForMembership(rc.db, assetIds)).map((a) => [a.id, a]) : []);
  const [readable, readableAssets] = await Promise.all([
    accessibleIds(rc, actor, "group", groupIds),
    accessibleIds(rc, actor, "asset", assetIds),
  ]);
  for (const id of unique) {
    const m = memberships.get(id);
    if (!m || m.trashed_at != null) throw new AppError("NOT_FOUND", ru.groups.notMember);
    if (m.el_type === "group") {
      const g = groupsById.get(id);
      if (!g || !readable.has(id)) throw new AppError("NOT_FOUND", ru.groups.notMember);
      if (fromId === ROOT_GROUP_ID) await requireGroup(rc, actor, { id, ownerId: g.owner_id }, "delete", ru.groups.notMember);
    } else if (m.el_type === "asset") {
      const a = assetsById.get(id);
      if (!a || !readableAssets.has(id)) throw new AppError("NOT_FOUND", ru.groups.notMember);
    } else if (!actor.isAdmin) {
      throw new AppError("NOT_FOUND", ru.groups.notMember);
    }
  }
  if (toId === ROOT_GROUP_ID && groupIds.length !== unique.length) throw new AppError("BAD_REQUEST", ru.groups.rootHoldsGroups);

  const statements: SQL[] = [repo.abortIf(repo.groupNotLiveSql(toId))];
  const now = Date.now();
  if (groupIds.length > 0) {
    const targetDepth = await repo.depthOf(rc.db, toId);
    const names = new Set<string>();
    for (const id of groupIds) {
      const g = groupsById.get(id)!;
      if (await repo.isInSubtree(rc.db, id, toId)) throw new AppError("CONFLICT", ru.groups.cycle);
      const key = sortKeyOf(g.name);
      if (names.has(key) || (await repo.siblingWithName(rc.db, toId, key))) throw new AppError("CONFLICT", ru.groups.nameTaken(g.name));
      names.add(key);
      if (targetDepth + 1 + (await repo.heightOf(rc.db, id)) > MAX_GROUP_DEPTH)
        throw new AppError("CONFLICT", ru.groups.tooDeep(MAX_GROUP_DEPTH));
      statements.push(
        repo.abortIf(repo.notMemberSql(fromId, id)),
        repo.abortIf(repo.wouldCycleSql(id, toId)),
        repo.abortIf(repo.siblingNameTakenSql(toId, key, groupIds)),
      );
    }
  }
  const others = unique.filter((id) => memberships.get(id)!.el_type !== "group");
  if (others.length > 0) {
    const already = await repo.membershipsIn(rc.db, toId, others);
    if (already.length > 0) throw new AppError("CONFLICT", ru.groups.alreadyMember);
    for (const id of others) {
      statements.push(repo.abortIf(repo.notMemberSql(fromId, id)), repo.abortIf(repo.isMemberSql(toId, id)));
    }
  }
  for (const id of groupIds) statements.push(...repo.moveGroupStatements({ id, from: fromId, to: toId, now }));
  for (const id of others) statements.push(repo.moveMembershipStatement({ elId: id, from: fromId, to: toId, now }));
  const moved = [
    ...groupIds.map((id) => ({ type: "group.moved", entityType: "group" as const, entityId: id, ownerId: groupsById.get(id)!.owner_id })),
    ...assetIds.map((id) => ({ type: "asset.moved", entityType: "asset" as const, entityId: id, ownerId: assetsById.get(id)!.owner_id })),
  ];
  if (moved.length > 0)
    statements.push(
      eventSql(
        rc,
        moved.map((e) => ({ ...e, actorId: actor.id, data: { from: fromId, to: toId } })),
      ),
    );
  await runGuarded(rc.db, statements);
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
    const memberships = await repo.assetMembershipsInSubtree(rc.db, job.groupId, job.chunkSize);
    if (memberships.length > 0) {
      const ids = [...new Set(memberships.map((m) => m.el_id))];
      const survivors = await repo.assetsAlsoOutside(rc.db, job.groupId, ids);
      const doomed = ids.filter((id) => !survivors.has(id));
      if (doomed.length > 0) {
        const purged = await purgeAssets(rc, doomed);
        assets += purged.assets;
        objects += purged.objects;
      }
      // The purge removed every membership of the doomed assets; those of the survivors inside the subtree remain.
      if (survivors.size > 0) await repo.runStatement(rc.db, repo.deleteMembershipPairsStatement(memberships));
      continue;
    }
    const chunk = await repo.deepestInSubtree(rc.db, job.groupId, job.chunkSize);
    if (chunk.length === 0) return `purged group ${job.groupId}: ${progress()}`;
    await repo.runBatch(rc.db, repo.deleteGroupsStatements(chunk));
    groups += chunk.length;
    if (chunk.includes(job.groupId)) return `purged group ${job.groupId}: ${progress()}`;
  }
  await rc.env.TASKS.send({ ...job } satisfies TaskMessageInput);
  return `purging group ${job.groupId}: ${progress()} so far; continued in a new message`;
}
