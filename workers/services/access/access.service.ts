import { ru } from "../../../shared/i18n/ru";
import {
  CALLER_PATH,
  callerRow,
  chainRows,
  chainRowsWithCaller,
  filterVisible,
  ruleNodesOf,
  toChainRows,
  type RawChainRow,
  type Visibility,
} from "../../db/repositories/access.repository";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import {
  ACCESS_LEVELS,
  ALL_GRANTS,
  DENY_BIT,
  effectiveRuleMask,
  grantingBits,
  heldMask,
  holds,
  insideChroot,
  levelsOf,
  SELF_PATH,
  type AccessLevel,
} from "./access-policy";
import type { Actor, RequestContext } from "./context";

export { ACCESS_LEVELS, type AccessLevel } from "./access-policy";
export type { Visibility } from "../../db/repositories/access.repository";

export const ACCESS_LEVEL_TITLES: Record<AccessLevel, string> = {
  deny: "Запрет доступа",
  read: "Просмотр",
  update: "Изменение",
  create: "Создание",
  delete: "Удаление",
  acl: "Управление правами",
  group: "Управление группами",
  superuser: "Полный доступ",
  download: "Скачивание",
  execute: "Запуск задач",
};

/** An entity as access decisions see it. Rules exist on assets and groups; the other types are their owner's. */
export interface AccessEntity {
  id: string;
  type: "asset" | "group" | "user" | "task" | "workflow";
  ownerId: string | null;
}

interface Caller {
  chroot: string[];
  anyRules: boolean;
  anyDeny: boolean;
  inGroups: boolean;
}

/** Per request: the rule mask each check computed, by `${userId}:${entityId}` (lists reuse the check of their group). */
const ruleMasks = new WeakMap<RequestContext, Map<string, number>>();

function rememberRuleMask(rc: RequestContext, key: string, mask: number) {
  let perRequest = ruleMasks.get(rc);
  if (!perRequest) ruleMasks.set(rc, (perRequest = new Map()));
  perRequest.set(key, mask);
}

/** Per request, per user: the caller row is read once however many checks and lists a request makes. */
const callers = new WeakMap<RequestContext, Map<string, Promise<Caller>>>();

function parseChroot(raw: string | null | undefined): string[] {
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function perUserOf(rc: RequestContext): Map<string, Promise<Caller>> {
  let perUser = callers.get(rc);
  if (!perUser) callers.set(rc, (perUser = new Map()));
  return perUser;
}

function caller(rc: RequestContext, userId: string): Promise<Caller> {
  const perUser = perUserOf(rc);
  let found = perUser.get(userId);
  if (!found) {
    found = callerRow(rc.db, userId).then((row) => ({
      chroot: parseChroot(row?.chroot_groups),
      anyRules: Boolean(row?.any_rules),
      anyDeny: Boolean(row?.any_deny),
      inGroups: (row?.groups ?? 0) > 0,
    }));
    perUser.set(userId, found);
  }
  return found;
}

/**
 * The caller and the entity's chain rows: one statement when the request has not read the caller yet (the caller
 * row rides along), else the chain alone.
 */
async function callerAndChain(
  rc: RequestContext,
  userId: string,
  entity: { id: string; type: "asset" | "group" },
): Promise<{ me: Caller; raw: RawChainRow[] }> {
  const known = perUserOf(rc).get(userId);
  if (known) return { me: await known, raw: await chainRows(rc.db, userId, entity) };
  const all = await chainRowsWithCaller(rc.db, userId, entity);
  const header = all.find((r) => r.path === CALLER_PATH);
  const me: Caller = {
    chroot: parseChroot(header?.node),
    anyRules: Boolean(header?.depth),
    anyDeny: Boolean(header?.acl),
    inGroups: (header?.inherit ?? 0) > 0,
  };
  perUserOf(rc).set(userId, Promise.resolve(me));
  return { me, raw: all.filter((r) => r.path !== CALLER_PATH) };
}

/**
 * Reads the caller's access row into the request (one statement, no wait for callers that never check): called
 * beside the actor lookup so it shares that round trip (decision 030).
 */
export async function preloadCaller(rc: RequestContext, userId: string): Promise<void> {
  await Promise.all([caller(rc, userId), ruleNodesWanted.has(rc) ? ruleNodesFor(rc, userId) : undefined]);
}

/** Requests that will ask for the caller's rule nodes (`wantRuleNodes`), and what they read, by user. */
const ruleNodesWanted = new WeakSet<RequestContext>();
const ruleNodesRead = new WeakMap<RequestContext, Map<string, Promise<{ grants: string[]; denies: string[] }>>>();

/** Marks a request that will call `readRuleNodes`: the nodes are then read beside the caller row, in its round trip. */
export function wantRuleNodes(rc: RequestContext): void {
  ruleNodesWanted.add(rc);
}

function ruleNodesFor(rc: RequestContext, userId: string): Promise<{ grants: string[]; denies: string[] }> {
  let perUser = ruleNodesRead.get(rc);
  if (!perUser) ruleNodesRead.set(rc, (perUser = new Map()));
  let found = perUser.get(userId);
  if (!found) {
    const read = grantingBits("read");
    found = ruleNodesOf(rc.db, userId).then((rows) => ({
      grants: [...new Set(rows.filter((r) => (r.acl & read) !== 0).map((r) => r.obj_id))],
      denies: [...new Set(rows.filter((r) => (r.acl & DENY_BIT) !== 0).map((r) => r.obj_id))],
    }));
    perUser.set(userId, found);
  }
  return found;
}

type CallerAndChain = Awaited<ReturnType<typeof callerAndChain>>;

/** Per request: checks started ahead (`prefetchAccess`), by `${userId}:${type}:${entityId}`, each used by one check. */
const prefetched = new WeakMap<RequestContext, Map<string, Promise<CallerAndChain>>>();

/**
 * Starts the rows of a check on an entity whose type the route already knows, so they load while the route reads the
 * entity itself: the check then costs no round trip of its own (decision 030). For read-only routes: a check that
 * runs after the request changed rules must not use rows read before. Administrators need no rows.
 */
export function prefetchAccess(rc: RequestContext, actor: Actor, entity: { id: string; type: "asset" | "group" }): void {
  if (actor.isAdmin || (entity.type === "group" && entity.id === ROOT_GROUP_ID)) return;
  let perRequest = prefetched.get(rc);
  if (!perRequest) prefetched.set(rc, (perRequest = new Map()));
  const key = `${actor.id}:${entity.type}:${entity.id}`;
  if (perRequest.has(key)) return;
  const rows = callerAndChain(rc, actor.id, entity);
  // a check that never comes (the entity is gone) must not leave an unhandled rejection behind
  rows.catch(() => {});
  perRequest.set(key, rows);
}

function takePrefetched(rc: RequestContext, userId: string, entity: { id: string; type: string }): Promise<CallerAndChain> | undefined {
  const perRequest = prefetched.get(rc);
  const key = `${userId}:${entity.type}:${entity.id}`;
  const rows = perRequest?.get(key);
  if (!rows) return undefined;
  perRequest!.delete(key);
  return rows;
}

/** Forgets what this request read about callers (after it changed rules or memberships itself). */
export function forgetCallers(rc: RequestContext): void {
  callers.delete(rc);
  prefetched.delete(rc);
  ruleNodesRead.delete(rc);
}

/**
 * Every level the actor holds on an entity, as a bitmask (see access-policy `heldMask`): one statement for a
 * non-owner (the entity's chains with the rules on them), none for administrators and unconfined owners.
 */
export async function entityMask(rc: RequestContext, actor: Actor, entity: AccessEntity): Promise<number> {
  if (actor.isAdmin) return ALL_GRANTS;
  const isOwner = entity.ownerId != null && entity.ownerId === actor.id;
  if (entity.type !== "asset" && entity.type !== "group") return isOwner ? ALL_GRANTS : 0;
  const scope = actor.scopeGroups ?? [];
  if (entity.type === "group" && entity.id === ROOT_GROUP_ID) {
    // The virtual root: everyone reads it (its listing is filtered); top-level groups are created there unless confined.
    const root = await caller(rc, actor.id);
    return maskOfRoot(root.chroot.length === 0 && scope.length === 0);
  }
  const ahead = takePrefetched(rc, actor.id, entity);
  const known = perUserOf(rc).get(actor.id);
  if (known) {
    // Decided without a query when the request already knows the caller.
    const me = await known;
    const confined = me.chroot.length > 0 || scope.length > 0;
    if (isOwner && !confined) return ALL_GRANTS;
    if (!isOwner && !me.anyRules && !confined) return 0;
  }
  const { me, raw } = await (ahead ?? callerAndChain(rc, actor.id, { id: entity.id, type: entity.type }));
  const confined = me.chroot.length > 0 || scope.length > 0;
  if (isOwner && !confined) return ALL_GRANTS;
  const rows = toChainRows(raw);
  if (me.anyRules) rememberRuleMask(rc, `${actor.id}:${entity.id}`, effectiveRuleMask(rows));
  const unfiled = entity.type === "asset" && !rows.some((r) => r.path !== SELF_PATH);
  return heldMask({
    isAdmin: false,
    isOwner,
    inChroot: (insideChroot(rows, me.chroot) && insideChroot(rows, scope)) || (unfiled && isOwner),
    ruleMask: me.anyRules ? effectiveRuleMask(rows) : 0,
  });
}

function maskOfRoot(mayCreate: boolean): number {
  return (1 << ACCESS_LEVELS.indexOf("read")) | (mayCreate ? 1 << ACCESS_LEVELS.indexOf("create") : 0);
}

/**
 * Whether a group passes read down to the caller through rules (its effective rules grant read or superuser) and
 * the caller has no deny rule anywhere: then every member that inherits is readable, and member pages skip the
 * chain walk for them. Reuses the request's check of the group (no query after `requireEntityAccess` on it).
 */
export async function passesReadDown(rc: RequestContext, actor: Actor, groupId: string): Promise<boolean> {
  if (actor.isAdmin || groupId === ROOT_GROUP_ID) return false;
  const me = await caller(rc, actor.id);
  if (!me.anyRules || me.anyDeny) return false;
  const key = `${actor.id}:${groupId}`;
  let mask = ruleMasks.get(rc)?.get(key);
  if (mask === undefined) {
    mask = effectiveRuleMask(toChainRows(await chainRows(rc.db, actor.id, { id: groupId, type: "group" })));
    rememberRuleMask(rc, key, mask);
  }
  return (mask & grantingBits("read")) !== 0 && (mask & DENY_BIT) === 0;
}

/** The levels the actor holds on an entity, by name. */
export async function entityLevels(rc: RequestContext, actor: Actor, entity: AccessEntity): Promise<AccessLevel[]> {
  return levelsOf(await entityMask(rc, actor, entity));
}

/** The access decision for one entity: the one entry point every service uses. */
export async function canAccess(rc: RequestContext, actor: Actor, entity: AccessEntity, level: AccessLevel): Promise<boolean> {
  return holds(await entityMask(rc, actor, entity), level);
}

/**
 * Throws unless the actor holds `level` on the entity: 404 when the actor may not even read it (its existence must
 * not leak), 403 when it may read it but not do this. `notFound` is the 404 message (e.g. 'Группа не найдена').
 */
export async function requireEntityAccess(
  rc: RequestContext,
  actor: Actor,
  entity: AccessEntity,
  level: AccessLevel,
  notFound: string,
): Promise<void> {
  const mask = await entityMask(rc, actor, entity);
  if (holds(mask, level)) return;
  if (level !== "read" && holds(mask, "read")) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  throw new AppError("NOT_FOUND", notFound);
}

/**
 * What list queries put into SQL (`visibleSql` of access.repository) so paging stays correct: null for
 * administrators (everything), otherwise the caller's id, chroot and whether any rule applies to them.
 */
export async function visibility(rc: RequestContext, actor: Actor): Promise<Visibility | null> {
  if (actor.isAdmin) return null;
  const me = await caller(rc, actor.id);
  return { userId: actor.id, chroot: me.chroot, scope: actor.scopeGroups ?? [], rules: me.anyRules, deny: me.anyDeny };
}

/**
 * The nodes whose rules give the caller read (`grants`) and those whose rules deny it (`denies`): the terms a search
 * puts to the index's visibility column (decision 039). Null for administrators, who see everything.
 */
export async function readRuleNodes(rc: RequestContext, actor: Actor): Promise<{ grants: string[]; denies: string[] } | null> {
  return actor.isAdmin ? null : ruleNodesFor(rc, actor.id);
}

/** The caller's chroot groups (empty when not confined; administrators are never confined). */
export async function chrootOf(rc: RequestContext, actor: Actor): Promise<string[]> {
  return actor.isAdmin ? [] : (await caller(rc, actor.id)).chroot;
}

/** Which of the ids the actor holds `level` on, in one statement. */
export async function accessibleIds(
  rc: RequestContext,
  actor: Actor,
  type: "asset" | "group",
  ids: readonly string[],
  level: AccessLevel = "read",
): Promise<Set<string>> {
  return filterVisible(rc.db, await visibility(rc, actor), type, ids, level);
}

/** Whether any rule names the user or a group they belong to (whoami `any_acls`). */
export async function hasAnyRules(rc: RequestContext, actor: Actor): Promise<boolean> {
  return (await caller(rc, actor.id)).anyRules;
}

/** Abilities the UI uses to decide what to show; the API enforces each one independently. */
export async function userAbilities(rc: RequestContext, actor: Actor) {
  const me = await caller(rc, actor.id);
  return {
    is_admin: actor.isAdmin,
    any_acls: actor.isAdmin || me.anyRules,
    chrooted: !actor.isAdmin && me.chroot.length > 0,
    abilities: {
      browse: true,
      createGroups: !actor.isRobot && (actor.isAdmin || me.chroot.length === 0),
      viewJobs: true,
      manageAutomations: actor.isAdmin,
      manageMetadata: actor.isAdmin,
      manageUsers: actor.isAdmin,
      manageAccess: actor.isAdmin || me.anyRules,
      aclRoots: actor.isAdmin || me.anyRules,
    },
  };
}
