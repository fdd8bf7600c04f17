import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import type { Database } from "../../db/client";
import * as access from "../../db/repositories/access.repository";
import { findGroup, runBatch } from "../../db/repositories/group.repository";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { forgetCallers, requireEntityAccess } from "./access.service";
import { auditStatement } from "./audit.service";
import type { Actor, RequestContext } from "./context";

/**
 * Groups of users: users are members of groups (the same groups that hold files), and rules whose subject is a
 * group apply to its members. Managing a group's users needs the `group` level on it (owners and administrators
 * hold it); every change is audited in the same batch.
 */

export function userMembersIn(db: Database, groupId: string, userIds: readonly string[]) {
  return userIds.length ? access.userMembersIn(db, groupId, userIds) : Promise.resolve([]);
}

/** The statements that add or remove users of a group, with their audit entry. */
export function userMembershipStatements(
  rc: RequestContext,
  actor: Actor,
  groupId: string,
  userIds: readonly string[],
  op: "add" | "remove",
): SQL[] {
  const now = Date.now();
  forgetCallers(rc);
  return [
    op === "add" ? access.addUserMembersSql(groupId, userIds, now) : access.removeUserMembersSql(groupId, userIds),
    auditStatement(rc, {
      action: op === "add" ? "group.users_add" : "group.users_remove",
      actorId: actor.id,
      objectType: "group",
      objectId: groupId,
      details: { users: [...userIds] },
    }).getSQL(),
  ];
}

async function requireGroupLevel(rc: RequestContext, actor: Actor, groupId: string) {
  if (groupId === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
  const group = await findGroup(rc.db, groupId);
  if (!group || group.deletedAt != null) throw new AppError("NOT_FOUND", ru.access.groupNotFound);
  await requireEntityAccess(rc, actor, { id: groupId, type: "group", ownerId: group.ownerId }, "group", ru.access.groupNotFound);
}

/** POST /group/users/{id}: makes users members of the group (already members stay). */
export async function addUsersToGroup(rc: RequestContext, actor: Actor, groupId: string, userIds: string[]) {
  await requireGroupLevel(rc, actor, groupId);
  const unique = [...new Set(userIds)];
  const found = new Set((await access.usersExist(rc.db, unique)).map((u) => u.id));
  if (unique.some((id) => !found.has(id))) throw new AppError("NOT_FOUND", ru.access.userNotFound);
  await runBatch(rc.db, userMembershipStatements(rc, actor, groupId, unique, "add"));
  return listGroupUsers(rc, actor, groupId, { skip: 0, take: 500 });
}

/** DELETE /group/users/{id}: removes users from the group (users who are not members are ignored). */
export async function removeUsersFromGroup(rc: RequestContext, actor: Actor, groupId: string, userIds: string[]): Promise<void> {
  await requireGroupLevel(rc, actor, groupId);
  const present = await userMembersIn(rc.db, groupId, [...new Set(userIds)]);
  if (present.length > 0) await runBatch(rc.db, userMembershipStatements(rc, actor, groupId, present, "remove"));
}

/** GET /group/users/{id}: the users of a group (who holds `group` on it, or an administrator). */
export async function listGroupUsers(rc: RequestContext, actor: Actor, groupId: string, paging: { skip: number; take: number }) {
  await requireGroupLevel(rc, actor, groupId);
  const rows = await access.usersOfGroup(rc.db, groupId, paging);
  return rows.map((r) => ({ user_id: r.user_id, user_name: r.user_name, login: r.login, enabled: r.enabled !== 0, since: toIso(r.ctime) }));
}

/** GET /user/memeber-of/{id}: the groups a user belongs to; a user may ask about themselves, administrators about anyone. */
export async function memberOf(rc: RequestContext, actor: Actor, userId: string, paging: { skip: number; take: number }) {
  if (!actor.isAdmin && actor.id !== userId) throw new AppError("FORBIDDEN", ru.access.notYourRules);
  if ((await access.usersExist(rc.db, [userId])).length === 0) throw new AppError("NOT_FOUND", ru.access.userNotFound);
  const rows = await access.groupsOfUser(rc.db, userId, paging);
  return rows.map((r) => ({ group_id: r.group_id, group_name: r.group_name, since: toIso(r.ctime) }));
}
