import { sql, type SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { abortIf, isAssertionFailure, runBatch, storageExists } from "../../db/repositories/group.repository";
import type { Statement } from "../../db/repositories/asset.repository";
import {
  countUsersMatching,
  findUserById,
  findUserView,
  forgetUserStatements,
  userReach,
  userInLibraryStatements,
  insertUserStatement,
  isUniqueViolation,
  listUsersPage,
  liveGroupIds,
  loginTakenBy,
  otherActiveAdminExistsSql,
  ownedCounts,
  ownedInLibraries,
  ownerTables,
  reassignOwnedStatements,
  revokeUserSessionsStatement,
  searchUsersAndGroups,
  updateUserStatement,
  type UserListFilter,
  type UserViewRow,
} from "../../db/repositories/user.repository";
import type { UserRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { hashPassword, verifyPassword } from "../../lib/password";
import { visibleSql } from "../../db/repositories/access.repository";
import { disableUnownedAutomationsStatements } from "../../db/repositories/automation.repository";
import { visibility } from "./access.service";
import { auditByActor } from "./audit.service";
import { countReached } from "../../db/reach-count";
import type { GlobalChange } from "../../db/repositories/library-crossing.repository";
import type { Actor, RequestContext } from "./context";

/** A user as the API shows it (SPEC §3 User, plus is_admin and times). */
export interface UserInfo {
  user_id: string;
  user_name: string;
  login: string;
  enabled: boolean;
  is_admin: boolean;
  is_robot: boolean;
  chroot_groups: string[];
  default_storage: string | null;
  acl_count: number;
  /** false for users made by single sign-on, who have no password of their own */
  has_password: boolean;
  ctime: string;
  mtime: string;
}

export interface UserCreateInput {
  user_name: string;
  user_login: string;
  user_passwd: string;
  enabled: boolean;
  is_admin?: boolean;
  is_robot?: boolean;
  chroot_groups?: string[];
  default_storage?: string | null;
}

export interface UserPatchInput {
  user_name?: string;
  user_login?: string;
  user_passwd?: string;
  /** the caller's current password, required when people change their own password */
  current_passwd?: string;
  enabled?: boolean;
  is_admin?: boolean;
  is_robot?: boolean;
  chroot_groups?: string[];
  default_storage?: string | null;
}

/** Fields people may change on their own account; everything else is for administrators. */
const SELF_FIELDS = new Set<keyof UserPatchInput>(["user_name", "user_passwd", "current_passwd"]);

function toInfo(row: UserViewRow): UserInfo {
  return {
    user_id: row.id,
    user_name: row.name,
    login: row.login,
    enabled: row.enabled,
    is_admin: row.isAdmin,
    is_robot: row.isRobot,
    chroot_groups: row.chrootGroups ?? [],
    default_storage: row.defaultStorage,
    acl_count: row.aclCount,
    has_password: row.hasPassword,
    ctime: new Date(row.ctime).toISOString(),
    mtime: new Date(row.mtime).toISOString(),
  };
}

/** Throws 403 unless the actor is an administrator. */
export function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.users.adminOnly);
}

/** 404 for an unknown chroot group, 404 for an unknown storage: checked before anything is written. */
async function checkReferences(rc: RequestContext, input: { chroot_groups?: string[]; default_storage?: string | null }) {
  if (input.chroot_groups && input.chroot_groups.length > 0) {
    const wanted = [...new Set(input.chroot_groups)];
    const found = new Set((await liveGroupIds(rc.db, wanted)).map((r) => r.id));
    const missing = wanted.find((id) => !found.has(id));
    if (missing) throw new AppError("NOT_FOUND", ru.users.chrootGroupNotFound(missing));
  }
  if (input.default_storage && !(await storageExists(rc.db, input.default_storage))) {
    throw new AppError("NOT_FOUND", ru.users.storageNotFound);
  }
}

async function loadView(rc: RequestContext, id: string): Promise<UserInfo> {
  const row = await findUserView(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.users.notFound);
  return toInfo(row);
}

/**
 * Creates a user or robot (administrators). 409 when the login exists (case-insensitively), 404 for an unknown
 * chroot group or storage.
 * @example await createUser(rc, admin, { user_name: "Мария", user_login: "maria", user_passwd: "…", enabled: true })
 */
export async function createUser(rc: RequestContext, actor: Actor, input: UserCreateInput): Promise<UserInfo> {
  requireAdmin(actor);
  if (await loginTakenBy(rc.db, input.user_login)) throw new AppError("CONFLICT", ru.users.loginTaken(input.user_login));
  await checkReferences(rc, input);
  const now = Date.now();
  const id = newId(now);
  const chroot = [...new Set(input.chroot_groups ?? [])];
  try {
    await rc.db.batch([
      insertUserStatement(rc.db, {
        id,
        login: input.user_login,
        name: input.user_name,
        passwordHash: await hashPassword(input.user_passwd),
        isAdmin: input.is_admin ?? false,
        isRobot: input.is_robot ?? false,
        enabled: input.enabled,
        chrootGroups: chroot,
        defaultStorage: input.default_storage ?? null,
        ctime: now,
        mtime: now,
      }),
      auditByActor(
        rc,
        actor,
        "user.create",
        { type: "user", id },
        {
          login: input.user_login,
          is_admin: input.is_admin ?? false,
          is_robot: input.is_robot ?? false,
          enabled: input.enabled,
        },
      ),
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("CONFLICT", ru.users.loginTaken(input.user_login));
    throw error;
  }
  return loadView(rc, id);
}

/** One user: administrators read anyone, others only themselves (403). */
export async function getUser(rc: RequestContext, actor: Actor, id: string): Promise<UserInfo> {
  if (!actor.isAdmin && actor.id !== id) throw new AppError("FORBIDDEN", ru.users.adminOnly);
  return loadView(rc, id);
}

/** One page of users with the total for the pager (administrators). */
export async function listUsers(
  rc: RequestContext,
  actor: Actor,
  filter: UserListFilter & { skip: number; take: number },
): Promise<{ items: UserInfo[]; total: number }> {
  requireAdmin(actor);
  const [rows, total] = await Promise.all([listUsersPage(rc.db, filter), countUsersMatching(rc.db, filter)]);
  return { items: rows.map(toInfo), total };
}

/** True when the user, as it is, keeps the product administrable (an enabled administrator who can sign in). */
function isActiveAdmin(u: { isAdmin: boolean; enabled: boolean; isRobot: boolean }): boolean {
  return u.isAdmin && u.enabled && !u.isRobot;
}

/**
 * Changes a user. Administrators may change every field; people may change their own name and password (the
 * current password is required when they have one). Disabling a user or making it a robot ends all its sessions at
 * once; a new password ends every other session of the user. Removing the last enabled administrator (disable,
 * demote, make robot) is refused with 409, checked again inside the write so two concurrent changes cannot both win.
 */
export async function patchUser(rc: RequestContext, actor: Actor, id: string, patch: UserPatchInput): Promise<UserInfo> {
  const self = actor.id === id;
  const fields = (Object.keys(patch) as (keyof UserPatchInput)[]).filter((k) => patch[k] !== undefined);
  if (!actor.isAdmin && (!self || fields.some((f) => !SELF_FIELDS.has(f)))) throw new AppError("FORBIDDEN", ru.users.adminOnly);
  const user = await findUserById(rc.db, id);
  if (!user) throw new AppError("NOT_FOUND", ru.users.notFound);

  if (patch.user_login !== undefined && (await loginTakenBy(rc.db, patch.user_login, id))) {
    throw new AppError("CONFLICT", ru.users.loginTaken(patch.user_login));
  }
  await checkReferences(rc, patch);
  if (patch.user_passwd !== undefined && self && user.passwordHash) {
    if (patch.current_passwd === undefined) throw new AppError("BAD_REQUEST", ru.users.currentPasswordRequired);
    if (!(await verifyPassword(patch.current_passwd, user.passwordHash))) throw new AppError("FORBIDDEN", ru.users.currentPasswordWrong);
  }

  const now = Date.now();
  const set: Partial<UserRow> = { mtime: now };
  const changed: string[] = [];
  const note = <K extends keyof UserRow>(field: string, key: K, value: UserRow[K] | undefined) => {
    if (value === undefined) return;
    const same = JSON.stringify(user[key]) === JSON.stringify(value);
    if (!same) changed.push(field);
    set[key] = value;
  };
  note("user_name", "name", patch.user_name);
  note("user_login", "login", patch.user_login);
  note("enabled", "enabled", patch.enabled);
  note("is_admin", "isAdmin", patch.is_admin);
  note("is_robot", "isRobot", patch.is_robot);
  note("chroot_groups", "chrootGroups", patch.chroot_groups ? [...new Set(patch.chroot_groups)] : undefined);
  note("default_storage", "defaultStorage", patch.default_storage);
  if (patch.user_passwd !== undefined) set.passwordHash = await hashPassword(patch.user_passwd);

  const after = { ...user, ...set };
  const audits: SQL[] = [];
  if (changed.length > 0) audits.push(auditByActor(rc, actor, "user.update", { type: "user", id }, { fields: changed }).getSQL());
  if (user.enabled && !after.enabled) audits.push(auditByActor(rc, actor, "user.disable", { type: "user", id }).getSQL());
  if (!user.enabled && after.enabled) audits.push(auditByActor(rc, actor, "user.enable", { type: "user", id }).getSQL());
  if (patch.user_passwd !== undefined)
    audits.push(auditByActor(rc, actor, "user.password_change", { type: "user", id }, { self }).getSQL());

  // Sessions: a disabled user or a new robot signs out everywhere; a new password keeps only the caller's session.
  const endAll = (user.enabled && !after.enabled) || (!user.isRobot && after.isRobot);
  const sessions =
    endAll || patch.user_passwd !== undefined
      ? [revokeUserSessionsStatement(rc.db, id, now, endAll ? null : self ? actor.sessionFamily : null).getSQL()]
      : [];
  // Automations act with their owner's rights over the whole library: an owner who stops being an enabled
  // administrator loses them in the same write, each switched off with an audit row (docs/security.md).
  const mayOwnAutomations = (u: { isAdmin: boolean; enabled: boolean }) => u.isAdmin && u.enabled;
  const automationsOff =
    mayOwnAutomations(user) && !mayOwnAutomations(after)
      ? disableUnownedAutomationsStatements({
          ownerId: id,
          actorId: actor.id,
          reason: after.enabled ? "owner_demoted" : "owner_disabled",
          now,
        })
      : [];
  // The guard runs inside the batch (a transaction): it fails the whole write if, by then, no other active
  // administrator would be left.
  const guard = isActiveAdmin(user) && !isActiveAdmin(after) ? [abortIf(sql`not ${otherActiveAdminExistsSql(id)}`)] : [];

  try {
    await runBatch(rc.db, [...guard, updateUserStatement(rc.db, id, set).getSQL(), ...sessions, ...audits, ...automationsOff]);
  } catch (error) {
    if (isAssertionFailure(error)) throw new AppError("CONFLICT", ru.users.lastAdmin);
    if (isUniqueViolation(error)) throw new AppError("CONFLICT", ru.users.loginTaken(patch.user_login ?? user.login));
    throw error;
  }
  return loadView(rc, id);
}

/**
 * Deletes a user (administrators). The user must be disabled first (409); what it owns (files, folders, and rows of
 * any other table with an owner) goes to `newOwner` in the same batch, which is required when it owns anything
 * (409 otherwise). Its access rules, group memberships, sessions, tokens and settings go with it.
 */
export async function deleteUser(
  rc: RequestContext,
  actor: Actor,
  id: string,
  newOwner: string | undefined,
  across: GlobalChange,
): Promise<{ user_id: string; new_owner: string | null; reassigned: Record<string, number> }> {
  requireAdmin(actor);
  const user = await findUserById(rc.db, id);
  if (!user) throw new AppError("NOT_FOUND", ru.users.notFound);
  if (user.enabled) throw new AppError("CONFLICT", ru.users.disableFirst);
  const tables = await ownerTables(rc.db);
  // Files and folders counted in every library, each shard asked (decision 051, step 2.4); the other tables are global.
  const inLibraries = ownedInLibraries(id);
  const global = ownedCounts(
    rc.db,
    tables.filter((t) => !inLibraries[t]),
    id,
  );
  const owned = Object.fromEntries(
    await Promise.all(tables.map(async (t) => [t, inLibraries[t] ? await countReached(rc, inLibraries[t]) : (await global)[t]!] as const)),
  );
  const total = Object.values(owned).reduce((a, b) => a + b, 0);
  if (newOwner !== undefined) {
    if (newOwner === id) throw new AppError("BAD_REQUEST", ru.users.newOwnerSame);
    const heir = await findUserById(rc.db, newOwner);
    if (!heir) throw new AppError("NOT_FOUND", ru.users.newOwnerNotFound);
    if (!heir.enabled) throw new AppError("CONFLICT", ru.users.newOwnerDisabled);
  } else if (total > 0) {
    throw new AppError("CONFLICT", ru.users.newOwnerRequired(total));
  }
  const heirId = newOwner ?? null;
  const statements: Statement[] = [
    // Re-checked inside the transaction: the user may have been enabled again since it was read.
    abortIf(sql`exists (select 1 from users where id = ${id} and enabled = 1)`),
    ...(heirId ? [abortIf(sql`not exists (select 1 from users where id = ${heirId} and enabled = 1)`)] : []),
    ...(heirId ? reassignOwnedStatements(tables, id, heirId) : []),
    ...forgetUserStatements(id),
  ];
  const audit = auditByActor(rc, actor, "user.delete", { type: "user", id }, { login: user.login, new_owner: heirId, reassigned: owned });
  try {
    await across(userReach(id), [...statements, audit.getSQL()], userInLibraryStatements(id, heirId));
  } catch (error) {
    if (isAssertionFailure(error)) throw new AppError("CONFLICT", ru.users.changedMeanwhile);
    throw error;
  }
  return { user_id: id, new_owner: heirId, reassigned: owned };
}

/** An entry of the user/group picker. */
export interface PickerEntry {
  id: string;
  type: "user" | "group";
  name: string;
  /** users only, and only for administrators */
  login?: string;
  is_robot?: boolean;
}

/**
 * Users and groups whose name contains `name`, for pickers (rule editor, membership, new owner). Administrators see
 * every group and the users' logins; others see enabled users by name and the groups they may read (rules, chroot and a
 * robot token's scope included, decided in SQL).
 */
export async function searchUserGroup(rc: RequestContext, actor: Actor, name: string, limit = 20): Promise<PickerEntry[]> {
  const groupVisible = visibleSql(await visibility(rc, actor), "group", sql`g.id`, sql`g.owner_id`);
  const rows = await searchUsersAndGroups(rc.db, name, { limit, groupVisible, withLogins: actor.isAdmin });
  return rows.map((r) =>
    r.type === "user"
      ? { id: r.id, type: "user", name: r.name, ...(r.login !== null ? { login: r.login } : {}), is_robot: Boolean(r.is_robot) }
      : { id: r.id, type: "group", name: r.name },
  );
}
