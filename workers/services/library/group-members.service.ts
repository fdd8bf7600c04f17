/** Changing what a group lists: inserting, deleting and moving members (assets, sub-groups, users). */
import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import * as repo from "../../db/repositories/group.repository";
import { findGroup } from "../../db/repositories/group.repository";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { accessibleIds, fileAuditStatement, requireRelistable, requireRelistableSubtree, userMembersIn, userMembershipStatements } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventSql } from "../events";
import { MAX_GROUP_DEPTH, sortKeyOf } from "./group-tree";
import { requireGroup, loadGroup, rejectRoot, runGuarded } from "./group-guard";

export interface MemberRef {
  el_id: string;
  el_type: "asset" | "group" | "user";
}

/**
 * POST /insert-members/{id}: lists assets in a group (and, for administrators, makes users members of it as a group
 * of users: `user_group_members`, the same as POST /group/users/{id}). Assets must exist and be readable, and the
 * caller needs acl on each asset not yet listed there (decision 026); groups join a group only by moving. Members already there are left as they are. Answers where each member now is.
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
    // Listing an asset in one more folder hands it that folder's rules (decision 026): acl on each asset not already
    // listed there (a membership in the trash counts as new: inserting brings it back).
    const live = new Set((await repo.membershipsIn(rc.db, groupId, assetIds)).filter((m) => m.trashed_at == null).map((m) => m.el_id));
    await requireRelistable(
      rc,
      actor,
      assetIds
        .filter((id) => !live.has(id))
        .map((id) => ({ id, type: "asset" as const, ownerId: found.get(id)!.owner_id, name: found.get(id)!.name })),
      ru.assets.notFound,
    );
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

/**
 * DELETE /delete-members/{id}: removes asset and user memberships (groups are deleted or moved, never removed here).
 * Unlinking an asset takes away what the folder passed down to it, so it needs acl on the asset (decision 026).
 */
export async function deleteMembers(rc: RequestContext, actor: Actor, groupId: string, ids: string[]): Promise<void> {
  rejectRoot(groupId);
  await loadGroup(rc, actor, groupId, "delete");
  const unique = [...new Set(ids)];
  const memberships = await repo.membershipsIn(rc.db, groupId, unique);
  if (memberships.some((m) => m.el_type === "group")) throw new AppError("BAD_REQUEST", ru.groups.groupsByDelete);
  const assetIds = memberships.filter((m) => m.el_type === "asset").map((m) => m.el_id);
  if (assetIds.length > 0) {
    const assets = await repo.assetsForMembership(rc.db, assetIds);
    await requireRelistable(
      rc,
      actor,
      assets.map((a) => ({ id: a.id, type: "asset" as const, ownerId: a.owner_id, name: a.name })),
      ru.groups.notMember,
    );
  }
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
 * with their subtree (closure moved in the same batch). Needs delete on the source and create on the target, and acl
 * on every moved entity and on everything in a moved group's subtree (decision 026); every member is checked first
 * and one guarded batch moves them all, or none.
 */
export async function moveMembers(rc: RequestContext, actor: Actor, fromId: string, toId: string, ids: string[]): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.includes(ROOT_GROUP_ID)) throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
  if (fromId === toId) throw new AppError("BAD_REQUEST", ru.groups.sameGroup);
  // Moving out of the virtual root needs delete on the moved group itself (checked below) instead of the root.
  const fromGroup = fromId === ROOT_GROUP_ID ? await loadGroup(rc, actor, fromId, "read") : await loadGroup(rc, actor, fromId, "delete");
  const toGroup = await loadGroup(rc, actor, toId, "create");

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
  // A move changes who may do what with the moved entities (and with a group's whole subtree): acl on all of them.
  await requireRelistable(
    rc,
    actor,
    assetIds.map((id) => ({ id, type: "asset" as const, ownerId: assetsById.get(id)!.owner_id, name: assetsById.get(id)!.name })),
    ru.groups.notMember,
  );
  for (const id of groupIds) {
    const g = groupsById.get(id)!;
    await requireRelistableSubtree(rc, actor, { id, type: "group", ownerId: g.owner_id, name: g.name }, ru.groups.notMember);
  }

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
      fileAuditStatement(rc, {
        actorId: actor.id,
        verb: "move",
        details: { from: fromGroup.name, to: toGroup.name, from_group: fromId },
        targets: [
          ...groupIds.map((id) => ({ type: "group" as const, id, name: groupsById.get(id)!.name, folderId: toId })),
          ...assetIds.map((id) => ({ type: "asset" as const, id, name: assetsById.get(id)!.name, folderId: toId })),
        ],
      }),
    );
  await runGuarded(rc.db, statements);
}
