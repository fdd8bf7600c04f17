import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import * as repo from "../../db/repositories/access.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { runBatch } from "../../db/repositories/group.repository";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { ACCESS_LEVEL_TITLES, accessibleIds, entityMask, forgetCallers, requireEntityAccess } from "./access.service";
import { ALL_GRANTS, DENY_BIT, holds, levelsOf, maskOf, SELF_PATH, type AccessLevel } from "./access-policy";
import { auditStatement } from "./audit.service";
import { fileAuditStatement } from "./file-audit.service";
import type { Actor, RequestContext } from "./context";

/**
 * Access rules, inheritance switches and access reads (SPEC §6). Changing rules on an object needs `acl` on it,
 * and nobody but an administrator can grant or take away levels they do not hold there themselves. Every change is
 * written with its audit entry in one D1 batch.
 */

/** A rule as the API shows it (SPEC §3 Access rule). */
export interface AccessRule {
  rule_id: string;
  subj_id: string;
  subj_type: "user" | "group";
  subj_name: string | null;
  obj_id: string;
  obj_type: "asset" | "group";
  obj_name: string | null;
  acl: AccessLevel[];
  ctime: string | null;
  created_by: string | null;
}

export function toRule(r: repo.RuleRow): AccessRule {
  return {
    rule_id: r.rule_id,
    subj_id: r.subj_id,
    subj_type: r.subj_type,
    subj_name: r.subj_name,
    obj_id: r.obj_id,
    obj_type: r.obj_type,
    obj_name: r.obj_name,
    acl: levelsOf(r.acl),
    ctime: toIso(r.ctime),
    created_by: r.created_by,
  };
}

export interface NewRuleInput {
  subj: string;
  subj_type?: "user" | "group";
  obj: string;
  obj_type?: "asset" | "group";
  acl: AccessLevel[];
}

/** A live asset or group (never the virtual root), or 404/400. */
async function requireObject(rc: RequestContext, id: string, type?: "asset" | "group"): Promise<repo.EntityRow> {
  if (id === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.access.rootNoRules);
  const entity = await repo.findEntity(rc.db, id);
  if (!entity || (type && entity.type !== type)) throw new AppError("NOT_FOUND", ru.access.objectNotFound);
  return entity;
}

/**
 * Checks that the actor may change rules on the object and that `changed` (the levels added or removed) are held
 * by the actor there; deny is not a level one holds, so any `acl` holder may set or lift it.
 */
async function requireAclChange(rc: RequestContext, actor: Actor, obj: repo.EntityRow, changed: number) {
  if (actor.isAdmin) return;
  const held = await entityMask(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id });
  if (!holds(held, "acl")) {
    if (holds(held, "read")) throw new AppError("FORBIDDEN", ru.errors.forbidden);
    throw new AppError("NOT_FOUND", ru.access.objectNotFound);
  }
  const missing = changed & ~DENY_BIT & ~held;
  if (missing)
    throw new AppError(
      "FORBIDDEN",
      ru.access.cannotGrant(
        levelsOf(missing)
          .map((l) => ACCESS_LEVEL_TITLES[l])
          .join(", "),
      ),
    );
}

function auditRules(
  rc: RequestContext,
  actor: Actor,
  action: string,
  rule: { id: string; objType: string; objId: string },
  details: object,
) {
  const entries: SQL[] = [
    auditStatement(rc, {
      action,
      actorId: actor.id,
      objectType: rule.objType,
      objectId: rule.objId,
      details: { rule_id: rule.id, ...details },
    }).getSQL(),
  ];
  // A rule on a file or folder is also a share in its history (asset.share / group.share), named at the time.
  if (rule.objType === "asset" || rule.objType === "group")
    entries.push(
      fileAuditStatement(rc, {
        actorId: actor.id,
        verb: "share",
        targets: { type: rule.objType, id: rule.objId },
        details: { rule: action.slice("acl.".length), ...details },
      }),
    );
  return entries;
}

interface PlannedChanges {
  statements: SQL[];
  created: string[];
}

/** Validates one new rule and adds its statements to `plan`. */
async function planCreate(rc: RequestContext, actor: Actor, input: NewRuleInput, plan: PlannedChanges, now: number) {
  const mask = maskOf(input.acl);
  if (mask === 0) throw new AppError("BAD_REQUEST", ru.access.emptyAcl);
  const subject = await repo.findSubject(rc.db, input.subj, input.subj_type);
  if (!subject || subject.id === ROOT_GROUP_ID) throw new AppError("NOT_FOUND", ru.access.subjectNotFound);
  const obj = await requireObject(rc, input.obj, input.obj_type);
  await requireAclChange(rc, actor, obj, 0);
  if (await repo.ruleFor(rc.db, subject.id, obj.id)) throw new AppError("CONFLICT", ru.access.ruleExists);
  await requireAclChange(rc, actor, obj, mask);
  const id = newId(now);
  plan.statements.push(
    repo.insertRuleSql({ id, subjId: subject.id, subjType: subject.type, objId: obj.id, objType: obj.type, acl: mask, now, by: actor.id }),
    ...auditRules(
      rc,
      actor,
      "acl.create",
      { id, objType: obj.type, objId: obj.id },
      { subj_id: subject.id, subj_type: subject.type, acl: levelsOf(mask) },
    ),
  );
  plan.created.push(id);
}

async function loadRule(rc: RequestContext, id: string): Promise<repo.RuleRow> {
  const [rule] = await repo.rulesByIds(rc.db, [id]);
  if (!rule) throw new AppError("NOT_FOUND", ru.access.ruleNotFound);
  return rule;
}

/** The object of an existing rule; a rule whose object is gone can only be deleted by an administrator. */
async function ruleObject(rc: RequestContext, actor: Actor, rule: repo.RuleRow): Promise<repo.EntityRow> {
  const obj = await repo.findEntity(rc.db, rule.obj_id);
  if (obj) return obj;
  if (actor.isAdmin) return { id: rule.obj_id, type: rule.obj_type, owner_id: null, name: "" };
  throw new AppError("NOT_FOUND", ru.access.ruleNotFound);
}

async function planUpdate(rc: RequestContext, actor: Actor, id: string, acl: AccessLevel[], plan: PlannedChanges) {
  const rule = await loadRule(rc, id);
  const mask = maskOf(acl);
  if (mask === 0) throw new AppError("BAD_REQUEST", ru.access.emptyAcl);
  const obj = await ruleObject(rc, actor, rule);
  await requireAclChangeOrHide(rc, actor, obj, rule.acl ^ mask);
  plan.statements.push(
    repo.updateRuleSql(id, mask),
    ...auditRules(
      rc,
      actor,
      "acl.update",
      { id, objType: rule.obj_type, objId: rule.obj_id },
      { from: levelsOf(rule.acl), to: levelsOf(mask) },
    ),
  );
}

async function planDelete(rc: RequestContext, actor: Actor, id: string, plan: PlannedChanges) {
  const rule = await loadRule(rc, id);
  const obj = await ruleObject(rc, actor, rule);
  await requireAclChangeOrHide(rc, actor, obj, rule.acl);
  plan.statements.push(
    repo.deleteRuleSql(id),
    ...auditRules(
      rc,
      actor,
      "acl.delete",
      { id, objType: rule.obj_type, objId: rule.obj_id },
      { subj_id: rule.subj_id, acl: levelsOf(rule.acl) },
    ),
  );
}

/** `requireAclChange` that reports a rule the actor may not even see on its object as a missing rule. */
async function requireAclChangeOrHide(rc: RequestContext, actor: Actor, obj: repo.EntityRow, changed: number) {
  if (actor.isAdmin) return;
  try {
    await requireAclChange(rc, actor, obj, changed);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) throw new AppError("NOT_FOUND", ru.access.ruleNotFound);
    throw error;
  }
}

async function commit(rc: RequestContext, plan: PlannedChanges) {
  if (plan.statements.length > 0) await runBatch(rc.db, plan.statements);
  forgetCallers(rc);
}

/** POST /user/acl: a new rule (409 when the subject already has one on the object: change that one). */
export async function createRule(rc: RequestContext, actor: Actor, input: NewRuleInput): Promise<AccessRule> {
  const plan: PlannedChanges = { statements: [], created: [] };
  await planCreate(rc, actor, input, plan, Date.now());
  await commit(rc, plan);
  return toRule(await loadRule(rc, plan.created[0]));
}

/** GET /user/acl/{id}: a rule, for administrators, `acl` holders on its object and its subject user. */
export async function getRule(rc: RequestContext, actor: Actor, id: string): Promise<AccessRule> {
  const rule = await loadRule(rc, id);
  if (actor.isAdmin || (rule.subj_type === "user" && rule.subj_id === actor.id)) return toRule(rule);
  const obj = await repo.findEntity(rc.db, rule.obj_id);
  const mask = obj ? await entityMask(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id }) : 0;
  if (!holds(mask, "acl")) throw new AppError("NOT_FOUND", ru.access.ruleNotFound);
  return toRule(rule);
}

/** PATCH /user/acl/{id}: replaces the levels of a rule. */
export async function updateRule(rc: RequestContext, actor: Actor, id: string, acl: AccessLevel[]): Promise<AccessRule> {
  const plan: PlannedChanges = { statements: [], created: [] };
  await planUpdate(rc, actor, id, acl, plan);
  await commit(rc, plan);
  return toRule(await loadRule(rc, id));
}

/** DELETE /user/acl/{id}. */
export async function deleteRule(rc: RequestContext, actor: Actor, id: string): Promise<void> {
  const plan: PlannedChanges = { statements: [], created: [] };
  await planDelete(rc, actor, id, plan);
  await commit(rc, plan);
}

export interface RuleListChanges {
  create?: NewRuleInput[];
  update?: { rule_id: string; acl: AccessLevel[] }[];
  delete?: string[];
}

/** PATCH /user/acl-list: creates, changes and deletes rules in one batch, all or nothing (every change checked first). */
export async function changeRules(rc: RequestContext, actor: Actor, changes: RuleListChanges) {
  const ids = [...(changes.update ?? []).map((u) => u.rule_id), ...(changes.delete ?? [])];
  if (new Set(ids).size !== ids.length) throw new AppError("BAD_REQUEST", ru.access.duplicateInList);
  const pairs = (changes.create ?? []).map((c) => `${c.subj}:${c.obj}`);
  if (new Set(pairs).size !== pairs.length) throw new AppError("BAD_REQUEST", ru.access.duplicateInList);
  const plan: PlannedChanges = { statements: [], created: [] };
  const now = Date.now();
  for (const input of changes.create ?? []) await planCreate(rc, actor, input, plan, now);
  for (const u of changes.update ?? []) await planUpdate(rc, actor, u.rule_id, u.acl, plan);
  for (const id of changes.delete ?? []) await planDelete(rc, actor, id, plan);
  await commit(rc, plan);
  const touched = [...plan.created, ...(changes.update ?? []).map((u) => u.rule_id)];
  const rows = touched.length ? await repo.rulesByIds(rc.db, touched) : [];
  return {
    created: plan.created,
    updated: (changes.update ?? []).map((u) => u.rule_id),
    deleted: changes.delete ?? [],
    rules: rows.map(toRule),
  };
}

/** GET /user/user-acl/{id}: the rules of a user, direct and through their groups (`via_group`); self or administrators. */
export async function rulesOfUser(
  rc: RequestContext,
  actor: Actor,
  userId: string,
  paging: Paging,
  page: RulesPage = (subjects, window) => rulesOfSubjectsPage(rc, actor, subjects, window, "all"),
) {
  if (!actor.isAdmin && actor.id !== userId) throw new AppError("FORBIDDEN", ru.access.notYourRules);
  const user = await repo.findSubject(rc.db, userId, "user");
  if (!user) throw new AppError("NOT_FOUND", ru.access.userNotFound);
  const rows = await page(await repo.subjectsNamed(rc.db, userId, true), paging);
  return rows.map((r) => ({ ...toRule(r), via_group: r.subj_type === "group" ? r.subj_id : null }));
}

/** GET /user/group-acl/{id}: the rules whose subject is a group; administrators and `group` holders on it. */
export async function rulesOfGroup(
  rc: RequestContext,
  actor: Actor,
  groupId: string,
  paging: Paging,
  page: RulesPage = (subjects, window) => rulesOfSubjectsPage(rc, actor, subjects, window, "all"),
) {
  const group = await repo.findEntity(rc.db, groupId);
  if (!group || group.type !== "group") throw new AppError("NOT_FOUND", ru.access.groupNotFound);
  await requireEntityAccess(rc, actor, { id: group.id, type: "group", ownerId: group.owner_id }, "group", ru.access.groupNotFound);
  return (await page(await repo.subjectsNamed(rc.db, groupId, false), paging)).map(toRule);
}

type Paging = { skip: number; take: number };

/**
 * How a page of the rules naming some subjects is read: over the catalog (`rulesOfSubjectsPage`), or in every
 * library where it lives (the API's, decision 051, step 2.3), newest first.
 */
export type RulesPage = (subjects: repo.NamedSubject[], paging: Paging) => Promise<repo.RuleRow[]>;

/**
 * A page of the rules naming `subjects`, of the libraries `scope` names: the caller was checked before. A rule's
 * object is named only to an administrator or to a caller who may read it — a deny rule tells its subject that he may
 * not, not what he may not read.
 */
export async function rulesOfSubjectsPage(
  rc: RequestContext,
  actor: Actor,
  subjects: repo.NamedSubject[],
  paging: Paging,
  scope: LibraryScope,
): Promise<repo.RuleRow[]> {
  const rows = await repo.rulesOfSubjects(rc.db, subjects, { ...paging, scope });
  if (actor.isAdmin || rows.length === 0) return rows;
  const of = (type: "asset" | "group") => [...new Set(rows.filter((r) => r.obj_type === type).map((r) => r.obj_id))];
  const [groups, assets] = await Promise.all([
    accessibleIds(rc, actor, "group", of("group")),
    accessibleIds(rc, actor, "asset", of("asset")),
  ]);
  return rows.map((r) => ((r.obj_type === "group" ? groups : assets).has(r.obj_id) ? r : { ...r, obj_name: null }));
}

/**
 * GET /user/entity-access/{id}: every rule that reaches an entity, its own first and then the inherited ones
 * (`inherited: true`, `from` = the group they are on) up to where inheritance is switched off; `acl` holders and
 * administrators.
 */
export async function rulesOnEntity(rc: RequestContext, actor: Actor, id: string) {
  const obj = await requireObject(rc, id);
  await requireEntityAccess(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id }, "acl", ru.access.entityNotFound);
  const rows = await repo.chainRules(rc.db, { id: obj.id, type: obj.type });
  const self = rows.filter((r) => (obj.type === "asset" ? r.path === SELF_PATH : r.depth === 0));
  const selfInherits = self.every((r) => r.inherit !== 0);
  const cuts = new Map<string, number>();
  for (const r of rows) {
    if (r.inherit === 0 && r.path !== SELF_PATH) cuts.set(r.path, Math.min(cuts.get(r.path) ?? Infinity, r.depth));
  }
  const seen = new Set<string>();
  const rules: (AccessRule & { inherited: boolean; from: string })[] = [];
  for (const r of rows) {
    if (!r.rule_id || seen.has(r.rule_id)) continue;
    const own = r.node === obj.id;
    if (!own && (!selfInherits || r.depth > (cuts.get(r.path) ?? Infinity))) continue;
    seen.add(r.rule_id);
    rules.push({ ...toRule(r), inherited: !own, from: r.node });
  }
  return { entity_id: obj.id, entity_type: obj.type, name: obj.name, inherit: selfInherits, rules };
}

/** GET /auth/entity-access/{id}: the caller's effective levels on an entity (404 when they cannot even read it). */
export async function callerAccess(rc: RequestContext, actor: Actor, id: string) {
  const obj = id === ROOT_GROUP_ID ? { id, type: "group" as const, owner_id: null, name: "" } : await repo.findEntity(rc.db, id);
  if (!obj) throw new AppError("NOT_FOUND", ru.access.entityNotFound);
  const mask = await entityMask(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id });
  if (mask === 0) throw new AppError("NOT_FOUND", ru.access.entityNotFound);
  return { entity_id: obj.id, entity_type: obj.type, acl: levelsOf(mask) };
}

/**
 * The levels a user holds on entities, for administrators and `acl` holders on each entity. A pair without a user (SPEC
 * §7 sends none) asks for the caller: anyone may read their own levels, as entity-access answers them (404 with none).
 */
export async function userAccess(rc: RequestContext, actor: Actor, pairs: { entity: string; user?: string }[]) {
  const asked = pairs.map((p) => ({ entity: p.entity, user: p.user ?? actor.id }));
  const entityIds = [...new Set(asked.map((p) => p.entity))];
  const userIds = [...new Set(asked.map((p) => p.user))];
  const [entities, users] = await Promise.all([repo.findEntities(rc.db, entityIds), repo.usersExist(rc.db, userIds)]);
  const entityById = new Map(entities.map((e) => [e.id, e]));
  const userById = new Map(users.map((u) => [u.id, u]));
  const out: { entity: string; user: string; acl: AccessLevel[] }[] = [];
  for (const p of asked) {
    const e = entityById.get(p.entity);
    if (!e) throw new AppError("NOT_FOUND", ru.access.entityNotFound);
    const ref = { id: e.id, type: e.type, ownerId: e.owner_id };
    if (p.user === actor.id) {
      const mask = await entityMask(rc, actor, ref);
      if (mask === 0) throw new AppError("NOT_FOUND", ru.access.entityNotFound);
      out.push({ entity: e.id, user: actor.id, acl: levelsOf(mask) });
      continue;
    }
    await requireEntityAccess(rc, actor, ref, "acl", ru.access.entityNotFound);
    const u = userById.get(p.user);
    if (!u) throw new AppError("NOT_FOUND", ru.access.userNotFound);
    const subject: Actor = { id: u.id, name: "", login: "", isAdmin: u.is_admin !== 0, isRobot: false, sessionFamily: null };
    const mask = await entityMask(rc, subject, ref);
    out.push({ entity: e.id, user: u.id, acl: levelsOf(mask) });
  }
  return out;
}

/** GET /auth/entity-acl-access/{id}: whether the caller may change rules on the entity, and which levels it may grant. */
export async function aclAccess(rc: RequestContext, actor: Actor, id: string) {
  const obj = await requireObject(rc, id);
  const mask = await entityMask(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id });
  if (!holds(mask, "read") && !holds(mask, "acl")) throw new AppError("NOT_FOUND", ru.access.entityNotFound);
  const may = holds(mask, "acl");
  return { entity_id: obj.id, acl: may, grantable: may ? levelsOf((actor.isAdmin ? ALL_GRANTS : mask) | DENY_BIT) : [] };
}

/** GET /auth/access-inheritance/{id}: whether the entity inherits its ancestors' rules (readers may ask). */
export async function getInheritance(rc: RequestContext, actor: Actor, id: string) {
  const obj = await requireObject(rc, id);
  await requireEntityAccess(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id }, "read", ru.access.entityNotFound);
  return { entity_id: obj.id, inherit: await repo.inheritanceOf(rc.db, obj.id) };
}

/** POST /auth/access-inheritance/{id}: switches inheritance on or off (needs `acl` on the entity). */
export async function setInheritance(rc: RequestContext, actor: Actor, id: string, inherit: boolean) {
  const obj = await requireObject(rc, id);
  await requireEntityAccess(rc, actor, { id: obj.id, type: obj.type, ownerId: obj.owner_id }, "acl", ru.access.entityNotFound);
  await runBatch(rc.db, [
    repo.setInheritanceSql(obj.id, obj.type, inherit, Date.now()),
    auditStatement(rc, {
      action: "acl.inheritance",
      actorId: actor.id,
      objectType: obj.type,
      objectId: obj.id,
      details: { inherit },
    }).getSQL(),
  ]);
  forgetCallers(rc);
  return { entity_id: obj.id, inherit };
}
