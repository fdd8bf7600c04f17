import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { inLibraryScope, type LibraryScope } from "./library-scope";
import { DENY_BIT, grantingBits, type AccessLevel, type ChainRow } from "../../services/access/pure";

/**
 * Queries of access control. A check is one statement (`chainRows`): the closure table gives every ancestor of the
 * entity (or of each group an asset is listed in), and the rules of the caller's subjects on those nodes come from
 * `access_rules_obj_idx`. List queries embed `visibleSql`, the same semantics as an EXISTS filter, so paging stays
 * correct.
 */

/** The caller's subjects: the user and every group of users they belong to. */
function subjectsOf(userId: string): SQL {
  return sql`(select ${userId} union all select group_id from user_group_members where user_id = ${userId})`;
}

/** What list filters need to know about a caller (null for administrators: no filter at all). */
export interface Visibility {
  userId: string;
  /** the chroot groups; empty = not confined */
  chroot: string[];
  /** a robot token's scope groups, a second confinement on top of the chroot; absent or empty = none */
  scope?: string[];
  /** whether any rule names the user or one of their groups (without any, the filter is the owner check alone) */
  rules: boolean;
  /** whether any of those rules carries deny (without one, lists skip the deny walk) */
  deny?: boolean;
}

export interface CallerRow {
  chroot_groups: string | null;
  any_rules: number;
  any_deny: number;
  groups: number;
}

function callerSql(userId: string): SQL {
  return sql`select u.chroot_groups,
      exists (select 1 from access_rules r where r.subj_id in ${subjectsOf(userId)}) as any_rules,
      exists (select 1 from access_rules r where r.subj_id in ${subjectsOf(userId)} and (r.acl & ${DENY_BIT}) <> 0) as any_deny,
      (select count(*) from user_group_members where user_id = ${userId}) as groups
    from users u where u.id = ${userId}`;
}

/** The caller's chroot and whether any rule applies to them, in one statement. */
export function callerRow(db: Database, userId: string) {
  return db.get<CallerRow | undefined>(callerSql(userId));
}

/** The path of the extra row `chainRowsWithCaller` adds: the caller row, so a first check is still one statement. */
export const CALLER_PATH = "#caller";

/**
 * `chainRows` and the caller row in one statement (a `union all` row with path CALLER_PATH carrying chroot_groups
 * in `node`, any_rules in `depth`, the number of groups in `inherit` and any_deny in `acl`): the first check of a
 * request.
 */
export function chainRowsWithCaller(db: Database, userId: string, entity: { id: string; type: "asset" | "group" }) {
  return db.all<RawChainRow>(sql`
    select ${CALLER_PATH} as path, coalesce(k.chroot_groups, '[]') as node, k.any_rules as depth, k.groups as inherit, k.any_deny as acl
    from (${callerSql(userId)}) k
    union all select * from (${chainSql(userId, entity)})`);
}

const ruleJoin = (userId: string) =>
  sql`left join access_inheritance i on i.entity_id = c.ancestor
    left join access_rules r on r.obj_id = c.ancestor and r.subj_id in ${subjectsOf(userId)}`;

/**
 * The rows `effectiveRuleMask` needs for one entity, in one statement (see `ChainRow`): for a group its closure
 * chain; for an asset its own rules and switch plus the chain of every group it is a live member of.
 */
export function chainRows(db: Database, userId: string, entity: { id: string; type: "asset" | "group" }) {
  return db.all<RawChainRow>(chainSql(userId, entity));
}

function chainSql(userId: string, entity: { id: string; type: "asset" | "group" }): SQL {
  if (entity.type === "group") {
    return sql`
      select c.descendant as path, c.ancestor as node, c.depth as depth, coalesce(i.inherit, 1) as inherit, r.acl as acl
      from group_closure c ${ruleJoin(userId)}
      where c.descendant = ${entity.id}`;
  }
  return sql`
    select '' as path, ${entity.id} as node, 0 as depth,
      coalesce((select inherit from access_inheritance where entity_id = ${entity.id}), 1) as inherit, r.acl as acl
    from (select 1) one left join access_rules r on r.obj_id = ${entity.id} and r.subj_id in ${subjectsOf(userId)}
    union all
    select m.group_id, c.ancestor, c.depth + 1, coalesce(i.inherit, 1), r.acl
    from group_members m cross join group_closure c on c.descendant = m.group_id ${ruleJoin(userId)}
    where m.el_id = ${entity.id} and m.el_type = 'asset' and m.trashed_at is null`;
}

export interface RawChainRow {
  path: string;
  node: string;
  depth: number;
  inherit: number;
  acl: number | null;
}

export function toChainRows(rows: readonly RawChainRow[]): ChainRow[] {
  return rows.map((r) => ({ path: r.path, node: r.node, depth: r.depth, inherit: r.inherit !== 0, acl: r.acl }));
}

/** A list of confinement groups as one bound parameter. */
function groupList(ids: readonly string[]): SQL {
  return sql`(select value from json_each(${JSON.stringify(ids)}))`;
}

/** "The entity lies inside one of the subtrees of `roots`" (an owner's unfiled asset counts as inside). */
function confinedSql(v: Visibility, roots: readonly string[], type: "asset" | "group", id: SQL, owner: SQL): SQL {
  return type === "group"
    ? sql`exists (select 1 from group_closure k where k.descendant = ${id} and k.ancestor in ${groupList(roots)})`
    : sql`(exists (select 1 from group_members cm cross join group_closure k on k.descendant = cm.group_id
        where cm.el_id = ${id} and cm.el_type = 'asset' and k.ancestor in ${groupList(roots)})
      or (${owner} = ${v.userId} and not exists (select 1 from group_members cm where cm.el_id = ${id} and cm.el_type = 'asset')))`;
}

/** Depth of the nearest node above (or at) group `id` whose inheritance is off. */
function cutOf(id: SQL): SQL {
  return sql`coalesce((select min(k.depth) from group_closure k join access_inheritance ai on ai.entity_id = k.ancestor
    where k.descendant = ${id} and ai.inherit = 0), 1000000)`;
}

/**
 * "A rule of the caller carrying one of `bits` reaches group `id`" (its own rules, then its ancestors' up to the
 * cut). The cut term mentions `r`, so SQLite evaluates it only for a matching rule, not for every ancestor.
 */
function groupRuleSql(userId: string, id: SQL, bits: number): SQL {
  return sql`exists (select 1 from group_closure c cross join access_rules r on r.obj_id = c.ancestor
    where c.descendant = ${id} and r.subj_id in ${subjectsOf(userId)} and (r.acl & ${bits}) <> 0
      and c.depth + 0 * r.acl <= ${cutOf(id)})`;
}

/**
 * "A rule of the caller carrying one of `bits` reaches asset `id`": its own rules, or (if it inherits) any of its groups'.
 * `groupGrants` decides a listing group (default: `groupRuleSql` on it, walked per row). With `groupGrants` (a set
 * lookup) the group half is asked first: it is then two index probes, and for files read through a folder, the usual
 * case, it answers before the file's own rules are looked up at all.
 */
function assetRuleSql(userId: string, id: SQL, bits: number, groupGrants?: (groupId: SQL) => SQL): SQL {
  const grants = groupGrants ? groupGrants(sql`am.group_id`) : groupRuleSql(userId, sql`am.group_id`, bits);
  const own = sql`exists (select 1 from access_rules r where r.obj_id = ${id} and r.subj_id in ${subjectsOf(
    userId,
  )} and (r.acl & ${bits}) <> 0)`;
  const viaGroups = sql`(not exists (select 1 from access_inheritance ai where ai.entity_id = ${id} and ai.inherit = 0)
      and exists (select 1 from group_members am where am.el_id = ${id} and am.el_type = 'asset' and am.trashed_at is null
        and ${grants}))`;
  return groupGrants ? sql`(${viaGroups} or ${own})` : sql`(${own} or ${viaGroups})`;
}

/** "The caller's rules pass read to group `id`" (the group half of `visibleSql` for the assets listed in it). */
export function groupGrantsReadSql(userId: string, id: SQL): SQL {
  return groupRuleSql(userId, id, grantingBits("read"));
}

/**
 * `visibleSql(v, "asset", …)` for many assets that share a few groups: `grantingGroups` is a set (a subquery) of the
 * groups among theirs that pass read down (`groupGrantsReadSql`, decided once per group instead of once per asset).
 * The same decision only without deny rules and confinement (null otherwise: use `visibleSql`).
 */
export function visibleAssetViaGroupsSql(v: Visibility | null, id: SQL, owner: SQL, grantingGroups: SQL): SQL | null {
  if (v === null || !v.rules || v.deny !== false || v.chroot.length > 0 || (v.scope ?? []).length > 0) return null;
  return sql`(${owner} = ${v.userId} or ${assetRuleSql(v.userId, id, grantingBits("read"), (g) => sql`${g} in ${grantingGroups}`)})`;
}

/**
 * The SQL condition "the caller holds `level` on this entity" for list queries, the same decision as the check
 * (`heldMask`): owners and rule holders (without a deny) inside the chroot. `id` and `owner` are the entity's
 * columns in the surrounding query; null visibility (administrators) is no condition at all.
 */
export function visibleSql(v: Visibility | null, type: "asset" | "group", id: SQL, owner: SQL, level: AccessLevel = "read"): SQL {
  if (v === null) return sql`1`;
  const ruleSql = type === "group" ? groupRuleSql : assetRuleSql;
  const denied = v.deny === false ? sql`` : sql` and not ${ruleSql(v.userId, id, DENY_BIT)}`;
  const granted = v.rules
    ? sql`(${owner} = ${v.userId} or (${ruleSql(v.userId, id, grantingBits(level))}${denied}))`
    : sql`${owner} = ${v.userId}`;
  const confinements = [v.chroot, v.scope ?? []].filter((roots) => roots.length > 0);
  if (confinements.length === 0) return granted;
  return sql`(${granted} and ${sql.join(
    confinements.map((roots) => confinedSql(v, roots, type, id, owner)),
    sql` and `,
  )})`;
}

/**
 * `visibleSql` for the members of a group that passes read down to the caller (its rules grant read and the caller
 * has no deny anywhere): a member that inherits is readable without walking its chain, so the cheap inheritance
 * probe comes first and the full condition runs only for members that switched inheritance off.
 */
export function visibleMemberSql(v: Visibility | null, type: "asset" | "group", id: SQL, owner: SQL, parentPassesRead: boolean): SQL {
  if (v === null || !parentPassesRead) return visibleSql(v, type, id, owner);
  return sql`(not exists (select 1 from access_inheritance ai0 where ai0.entity_id = ${id} and ai0.inherit = 0) or ${visibleSql(
    v,
    type,
    id,
    owner,
  )})`;
}

/** The nodes of every rule naming the user or one of their groups, with the rule's bits (what search asks the index). */
export function ruleNodesOf(db: Database, userId: string) {
  return db.all<{ obj_id: string; acl: number }>(sql`select obj_id, acl from access_rules where subj_id in ${subjectsOf(userId)}`);
}

/** Which of the ids (of one type) the caller holds `level` on, in one statement. */
export async function filterVisible(
  db: Database,
  v: Visibility | null,
  type: "asset" | "group",
  ids: readonly string[],
  level: AccessLevel = "read",
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const table = sql.raw(type === "group" ? "groups" : "assets");
  const rows = await db.all<{ id: string }>(sql`
    select e.id from json_each(${JSON.stringify(ids)}) j cross join ${table} e on e.id = j.value
    where ${visibleSql(v, type, sql`e.id`, sql`e.owner_id`, level)}`);
  return new Set(rows.map((r) => r.id));
}

// ---------------------------------------------------------------------------------------------------------------
// Entities, subjects and rules

export interface EntityRow {
  id: string;
  type: "asset" | "group";
  owner_id: string | null;
  name: string;
}

/** A live asset or group by id. */
export function findEntity(db: Database, id: string) {
  return db.get<EntityRow | undefined>(sql`
    select id, 'asset' as type, owner_id, name from assets where id = ${id} and deleted_at is null
    union all select id, 'group' as type, owner_id, name from groups where id = ${id} and deleted_at is null
    limit 1`);
}

/** Live assets and groups by id. */
export function findEntities(db: Database, ids: readonly string[]) {
  const list = JSON.stringify(ids);
  return db.all<EntityRow>(sql`
    select id, 'asset' as type, owner_id, name from assets where id in (select value from json_each(${list})) and deleted_at is null
    union all select id, 'group' as type, owner_id, name from groups where id in (select value from json_each(${list})) and deleted_at is null`);
}

/** A rule subject (an enabled or disabled user, or a live group) by id, optionally of one type. */
export function findSubject(db: Database, id: string, type?: "user" | "group") {
  return db.get<{ id: string; type: "user" | "group"; name: string } | undefined>(sql`
    select * from (
      select id, 'user' as type, name from users where id = ${id}
      union all select id, 'group' as type, name from groups where id = ${id} and deleted_at is null
    ) where ${type ? sql`type = ${type}` : sql`1`} limit 1`);
}

export interface RuleRow {
  rule_id: string;
  subj_id: string;
  subj_type: "user" | "group";
  obj_id: string;
  obj_type: "asset" | "group";
  acl: number;
  ctime: number;
  created_by: string | null;
  subj_name: string | null;
  obj_name: string | null;
}

const RULE_COLUMNS = sql`r.id as rule_id, r.subj_id, r.subj_type, r.obj_id, r.obj_type, r.acl, r.ctime, r.created_by,
  coalesce(su.name, sg.name) as subj_name, coalesce(oa.name, og.name) as obj_name`;
const RULE_NAMES = sql`left join users su on r.subj_type = 'user' and su.id = r.subj_id
  left join groups sg on r.subj_type = 'group' and sg.id = r.subj_id
  left join assets oa on r.obj_type = 'asset' and oa.id = r.obj_id
  left join groups og on r.obj_type = 'group' and og.id = r.obj_id`;

export function rulesByIds(db: Database, ids: readonly string[]) {
  return db.all<RuleRow>(sql`select ${RULE_COLUMNS} from access_rules r ${RULE_NAMES}
    where r.id in (select value from json_each(${JSON.stringify(ids)}))`);
}

export function ruleFor(db: Database, subjId: string, objId: string) {
  return db.get<{ id: string } | undefined>(sql`select id from access_rules where obj_id = ${objId} and subj_id = ${subjId} limit 1`);
}

/** Rules whose subject is one of `subjects` (a user, and with `viaGroups` the groups they belong to), newest first. */
/** A rule's subject with its name, named by the catalog for every library's list of its rules. */
export interface NamedSubject {
  id: string;
  name: string | null;
}

/** Subject `subjId` (a user or a group) and, `viaGroups`, the groups the user is in, with their names. */
export function subjectsNamed(db: Database, subjId: string, viaGroups: boolean) {
  const subjects = viaGroups
    ? sql`select ${subjId} as id union all select group_id from user_group_members where user_id = ${subjId}`
    : sql`select ${subjId} as id`;
  return db.all<NamedSubject>(sql`select s.id, coalesce(u.name, g.name) as name
    from (${subjects}) s left join users u on u.id = s.id left join groups g on g.id = s.id`);
}

/**
 * The rules naming `subjects` (their names given), newest first, of the libraries `scope` names by each rule's
 * object (decision 051, step 2.3): a rule on a library's folder or file is that library's to list.
 */
export function rulesOfSubjects(db: Database, subjects: readonly NamedSubject[], o: { skip: number; take: number; scope: LibraryScope }) {
  return db.all<RuleRow>(sql`with s(id, name) as (select json_extract(value, '$.id'), json_extract(value, '$.name') from json_each(${JSON.stringify(
    subjects,
  )}))
    select r.id as rule_id, r.subj_id, r.subj_type, r.obj_id, r.obj_type, r.acl, r.ctime, r.created_by, s.name as subj_name,
      coalesce(oa.name, og.name) as obj_name
    from s join access_rules r on r.subj_id = s.id
      left join assets oa on r.obj_type = 'asset' and oa.id = r.obj_id
      left join groups og on r.obj_type = 'group' and og.id = r.obj_id
    where ${inLibraryScope(o.scope, sql`r.obj_id`)}
    order by r.ctime desc, r.id limit ${o.take} offset ${o.skip}`);
}

export function insertRuleSql(r: {
  id: string;
  subjId: string;
  subjType: string;
  objId: string;
  objType: string;
  acl: number;
  now: number;
  by: string;
}) {
  return sql`insert into access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
    values (${r.id}, ${r.subjId}, ${r.subjType}, ${r.objId}, ${r.objType}, ${r.acl}, ${r.now}, ${r.by})`;
}

export function updateRuleSql(id: string, acl: number) {
  return sql`update access_rules set acl = ${acl} where id = ${id}`;
}

export function deleteRuleSql(id: string) {
  return sql`delete from access_rules where id = ${id}`;
}

/** Rules of a deleted subject or object go with it. */
export function deleteRulesOfSql(entityId: string) {
  return sql`delete from access_rules where subj_id = ${entityId} or obj_id = ${entityId}`;
}

export interface ChainRuleRow extends RuleRow {
  path: string;
  node: string;
  depth: number;
  inherit: number;
}

/**
 * Every rule (of any subject) on the nodes of an entity's chains, with the node's depth and switch: the input of
 * GET /user/entity-access, which keeps those `effectiveRuleMask` would count and marks inherited ones.
 */
export function chainRules(db: Database, entity: { id: string; type: "asset" | "group" }) {
  const nodes =
    entity.type === "group"
      ? sql`select c.descendant as path, c.ancestor as node, c.depth as depth from group_closure c where c.descendant = ${entity.id}`
      : sql`select '' as path, ${entity.id} as node, 0 as depth
        union all select m.group_id, c.ancestor, c.depth + 1 from group_members m cross join group_closure c on c.descendant = m.group_id
        where m.el_id = ${entity.id} and m.el_type = 'asset' and m.trashed_at is null`;
  return db.all<ChainRuleRow>(sql`
    with n as (${nodes})
    select n.path, n.node, n.depth, coalesce(i.inherit, 1) as inherit, ${RULE_COLUMNS}
    from n left join access_inheritance i on i.entity_id = n.node
    left join access_rules r on r.obj_id = n.node ${RULE_NAMES}
    order by n.depth, n.path, r.ctime`);
}

export async function inheritanceOf(db: Database, id: string): Promise<boolean> {
  const row = await db.get<{ inherit: number } | undefined>(sql`select inherit from access_inheritance where entity_id = ${id}`);
  return row ? row.inherit !== 0 : true;
}

/** Sets the switch; inheriting is the default, so switching it back on removes the row. */
export function setInheritanceSql(id: string, type: "asset" | "group", inherit: boolean, now: number) {
  return inherit
    ? sql`delete from access_inheritance where entity_id = ${id}`
    : sql`insert into access_inheritance (entity_id, entity_type, inherit, mtime) values (${id}, ${type}, 0, ${now})
        on conflict (entity_id) do update set inherit = 0, mtime = ${now}`;
}

/** Assets the caller reads that they own or that a rule of theirs names, most recently changed first. */
export function aclAssetRows(db: Database, v: Visibility, o: { skip: number; take: number }) {
  const u = v.userId;
  return db.all<{ id: string; name: string; mime: string; ctime: number; mtime: number; latest_version: number }>(sql`
    with candidates(id) as (
      select id from assets where owner_id = ${u}
      union select obj_id from access_rules where subj_id in ${subjectsOf(u)} and obj_type = 'asset'
    )
    select a.id, a.name, a.mime, a.ctime, a.mtime, a.latest_version from candidates k cross join assets a on a.id = k.id
    where a.deleted_at is null and ${visibleSql(v, "asset", sql`a.id`, sql`a.owner_id`)}
    order by a.mtime desc, a.id limit ${o.take} offset ${o.skip}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Groups of users

/** Which of the users are members of the group. */
export async function userMembersIn(db: Database, groupId: string, userIds: readonly string[]): Promise<string[]> {
  const rows = await db.all<{ user_id: string }>(sql`select user_id from user_group_members
    where group_id = ${groupId} and user_id in (select value from json_each(${JSON.stringify(userIds)}))`);
  return rows.map((r) => r.user_id);
}

export function addUserMembersSql(groupId: string, userIds: readonly string[], now: number) {
  return sql`insert into user_group_members (group_id, user_id, ctime)
    select ${groupId}, value, ${now} from json_each(${JSON.stringify(userIds)}) where true on conflict do nothing`;
}

export function removeUserMembersSql(groupId: string, userIds: readonly string[]) {
  return sql`delete from user_group_members where group_id = ${groupId}
    and user_id in (select value from json_each(${JSON.stringify(userIds)}))`;
}

/** The live groups a user is a member of, by name. */
export function groupsOfUser(db: Database, userId: string, o: { skip: number; take: number }) {
  return db.all<{ group_id: string; group_name: string; ctime: number }>(sql`
    select g.id as group_id, g.name as group_name, m.ctime from user_group_members m cross join groups g on g.id = m.group_id
    where m.user_id = ${userId} and g.deleted_at is null order by lower(g.name), g.id limit ${o.take} offset ${o.skip}`);
}

/** Members of a group of users, by name. */
export function usersOfGroup(db: Database, groupId: string, o: { skip: number; take: number }) {
  return db.all<{ user_id: string; user_name: string; login: string; enabled: number; ctime: number }>(sql`
    select u.id as user_id, u.name as user_name, u.login, u.enabled, m.ctime from user_group_members m cross join users u on u.id = m.user_id
    where m.group_id = ${groupId} order by lower(u.name), u.id limit ${o.take} offset ${o.skip}`);
}

export function usersExist(db: Database, ids: readonly string[]) {
  return db.all<{ id: string; is_admin: number }>(
    sql`select id, is_admin from users where id in (select value from json_each(${JSON.stringify(ids)}))`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The access invariant (decision 026)

/**
 * One live entity of a group's subtree (a descendant group, or an asset listed in the group or below it) on which the
 * caller does not hold `level`, or undefined when there is none: moving the group changes the inherited rights and
 * the chroot/scope confinement of all of them. One statement, stopping at the first hit.
 */
export function subtreeEntityWithout(db: Database, v: Visibility, groupId: string, level: AccessLevel) {
  return db.get<{ id: string; type: "asset" | "group" } | undefined>(sql`
    select * from (
      select sg.id, 'group' as type from group_closure sc cross join groups sg on sg.id = sc.descendant
      where sc.ancestor = ${groupId} and sc.depth > 0 and sg.deleted_at is null
        and not (${visibleSql(v, "group", sql`sg.id`, sql`sg.owner_id`, level)})
      union all
      select sa.id, 'asset' as type from group_closure sc
        cross join group_members sm on sm.group_id = sc.descendant and sm.el_type = 'asset' and sm.trashed_at is null
        cross join assets sa on sa.id = sm.el_id
      where sc.ancestor = ${groupId} and sa.deleted_at is null
        and not (${visibleSql(v, "asset", sql`sa.id`, sql`sa.owner_id`, level)})
    ) limit 1`);
}
