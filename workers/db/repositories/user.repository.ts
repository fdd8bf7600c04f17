import { and, count, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import type { GlobalStatement } from "../library-shard-import";
import type { Statement } from "./asset.repository";
import { catalogStatement, type Reach } from "./library-crossing.repository";
import { robotTokens, sessions, users, type UserRow } from "../schema/index";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { containsFolded, foldedSql } from "./tag.repository";

/**
 * Queries of the users capability. Lists bind id lists as one JSON parameter (`json_each`) so no statement exceeds
 * D1's 100 bound parameters; every list is one statement plus its count.
 */

export function findUserByLogin(db: Database, login: string): Promise<UserRow | undefined> {
  return db
    .select()
    .from(users)
    .where(sql`lower(${users.login}) = lower(${login})`)
    .get();
}

export function findUserById(db: Database, id: string): Promise<UserRow | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export async function countUsers(db: Database): Promise<number> {
  const row = await db.select({ n: count() }).from(users).get();
  return row?.n ?? 0;
}

/** Inserts a user unless the login is taken (case-insensitively); returns whether it was inserted. */
export async function insertUserIfLoginFree(db: Database, row: typeof users.$inferInsert): Promise<boolean> {
  const result = await db.insert(users).values(row).onConflictDoNothing().run();
  return result.meta.changes > 0;
}

/** The insert of a new user, for a batch; a taken login fails it with a UNIQUE constraint error. */
export function insertUserStatement(db: Database, row: typeof users.$inferInsert) {
  return db.insert(users).values(row);
}

/** True for the error D1 raises when an insert or update hits a unique index (here: a login that is taken). */
export function isUniqueViolation(error: unknown): boolean {
  return /UNIQUE constraint failed/i.test(String((error as Error | undefined)?.message ?? error));
}

/** A user other than `exceptId` whose login equals `login` case-insensitively. */
export function loginTakenBy(db: Database, login: string, exceptId = ""): Promise<{ id: string } | undefined> {
  return db
    .select({ id: users.id })
    .from(users)
    .where(and(sql`lower(${users.login}) = lower(${login})`, ne(users.id, exceptId)))
    .get();
}

/** Number of access rules whose subject is the user (the `acl_count` of SPEC §3 User). */
// The outer column is spelled out: drizzle renders `users.id` as a bare "id", which inside the subquery means `r.id`.
const aclCount = sql<number>`(select count(*) from access_rules r where r.subj_type = 'user' and r.subj_id = "users"."id")`.mapWith(Number);

/** The columns of a user as the API shows them, acl_count included. */
const userView = {
  id: users.id,
  login: users.login,
  name: users.name,
  isAdmin: users.isAdmin,
  isRobot: users.isRobot,
  enabled: users.enabled,
  chrootGroups: users.chrootGroups,
  defaultStorage: users.defaultStorage,
  hasPassword: sql<number>`${users.passwordHash} is not null`.mapWith(Boolean),
  ctime: users.ctime,
  mtime: users.mtime,
  aclCount,
};

export type UserViewRow = {
  id: string;
  login: string;
  name: string;
  isAdmin: boolean;
  isRobot: boolean;
  enabled: boolean;
  chrootGroups: string[];
  defaultStorage: string | null;
  hasPassword: boolean;
  ctime: number;
  mtime: number;
  aclCount: number;
};

export function findUserView(db: Database, id: string): Promise<UserViewRow | undefined> {
  return db.select(userView).from(users).where(eq(users.id, id)).get();
}

export interface UserListFilter {
  enabled?: boolean;
  robot?: boolean;
  admin?: boolean;
  /** part of the name or login, case-insensitive (Cyrillic included) */
  q?: string;
}

function userFilter(f: UserListFilter): SQL | undefined {
  return and(
    f.enabled === undefined ? undefined : eq(users.enabled, f.enabled),
    f.robot === undefined ? undefined : eq(users.isRobot, f.robot),
    f.admin === undefined ? undefined : eq(users.isAdmin, f.admin),
    f.q ? sql`(${containsFolded(users.name, f.q)} or ${containsFolded(users.login, f.q)})` : undefined,
  );
}

/** One page of users by name (then id), with their acl_count. */
export function listUsersPage(db: Database, f: UserListFilter & { skip: number; take: number }): Promise<UserViewRow[]> {
  return db.select(userView).from(users).where(userFilter(f)).orderBy(foldedSql(users.name), users.id).limit(f.take).offset(f.skip);
}

export async function countUsersMatching(db: Database, f: UserListFilter): Promise<number> {
  const row = await db.select({ n: count() }).from(users).where(userFilter(f)).get();
  return row?.n ?? 0;
}

/**
 * The condition "another enabled administrator who can sign in (not a robot) exists besides `id`": the guard that
 * keeps at least one person able to administer the product.
 */
export function otherActiveAdminExistsSql(id: string): SQL {
  return sql`exists (select 1 from users where id <> ${id} and is_admin = 1 and enabled = 1 and is_robot = 0)`;
}

/** Live groups (not in the trash, not the virtual root) among `ids`. */
export function liveGroupIds(db: Database, ids: readonly string[]): Promise<{ id: string }[]> {
  return db.all<{ id: string }>(
    sql`select id from groups where id in (select value from json_each(${JSON.stringify(
      ids,
    )})) and deleted_at is null and id <> ${ROOT_GROUP_ID}`,
  );
}

export function updateUserStatement(db: Database, id: string, set: Partial<typeof users.$inferInsert>) {
  return db.update(users).set(set).where(eq(users.id, id));
}

/** Ends every sign-in of a user except the session family `keepFamily` (the caller's own, on a password change). */
export function revokeUserSessionsStatement(db: Database, userId: string, now: number, keepFamily: string | null = null) {
  return db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keepFamily ? ne(sessions.familyId, keepFamily) : undefined));
}

/** Revokes every live API token of a user. */
export function revokeUserTokensStatement(db: Database, userId: string, now: number) {
  return db
    .update(robotTokens)
    .set({ revokedAt: now })
    .where(and(eq(robotTokens.userId, userId), isNull(robotTokens.revokedAt)));
}

/**
 * Tables whose rows a user can own: every table with an `owner_id` column (assets, groups, and whatever later
 * capabilities add under the same convention), so deleting a user never leaves rows owned by nobody.
 */
export async function ownerTables(db: Database): Promise<string[]> {
  const rows = await db.all<{ name: string }>(
    sql`select m.name as name from sqlite_master m join pragma_table_info(m.name) p
        where m.type = 'table' and p.name = 'owner_id' and m.name not like 'sqlite_%' and m.name not like '_cf_%'
        order by m.name`,
  );
  return rows.map((r) => r.name).filter((name) => /^[a-z_][a-z0-9_]*$/.test(name));
}

/**
 * How many rows of each owner table belong to the user (trash included): one D1 batch of counts (D1 caps compound
 * SELECTs at a few terms, so no UNION).
 */
export async function ownedCounts(db: Database, tables: readonly string[], userId: string): Promise<Record<string, number>> {
  if (tables.length === 0) return {};
  const d1 = db.$client as D1Database;
  const results = await d1.batch<{ n: number }>(
    tables.map((t) => d1.prepare(`select count(*) as n from "${t}" where owner_id = ?`).bind(userId)),
  );
  return Object.fromEntries(tables.map((t, i) => [t, Number(results[i].results[0]?.n ?? 0)]));
}

/** Statements giving every row a user owns to `newOwner` (one per owner table). */
export function reassignOwnedStatements(tables: readonly string[], userId: string, newOwner: string): SQL[] {
  return tables.map((t) => sql`update ${sql.identifier(t)} set owner_id = ${newOwner} where owner_id = ${userId}`);
}

/** The rows of library tables a user owns, by table: counted in each library (`countReached`), not in the catalog alone. */
export const ownedInLibraries = (id: string): Record<string, Reach> => ({
  assets: { entities: "SELECT id FROM assets WHERE owner_id = ?1", binds: [id] },
  groups: { entities: "SELECT id FROM groups WHERE owner_id = ?1", binds: [id] },
});

/** The folders and files a user owns or has rules on: what deleting the user changes in libraries. */
export const userReach = (id: string): Reach => ({
  entities: `SELECT id FROM assets WHERE owner_id = ?1 UNION SELECT id FROM groups WHERE owner_id = ?1
             UNION SELECT obj_id FROM access_rules WHERE subj_type = 'user' AND subj_id = ?1`,
  binds: [id],
});

/** A user's rules and the rules on them deleted. */
const userRulesDeleted = (id: string): GlobalStatement => ({
  sql: "DELETE FROM access_rules WHERE (subj_type = 'user' AND subj_id = ?1) OR (obj_type = 'user' AND obj_id = ?1)",
  binds: [id],
});

/**
 * What deleting a user changes in a library's shard, as in the catalog (decision 050): the folders and files they own
 * go to `heir`, their rules go.
 */
export function userInLibraryStatements(id: string, heir: string | null): GlobalStatement[] {
  const owned = heir
    ? ["assets", "groups"].map((t) => ({ sql: `UPDATE ${t} SET owner_id = ?2 WHERE owner_id = ?1`, binds: [id, heir] }))
    : [];
  return [...owned, userRulesDeleted(id)];
}

/** Statements removing what only made sense with the user: their access rules, rules on them, group memberships. */
export function forgetUserStatements(userId: string): Statement[] {
  return [
    catalogStatement(userRulesDeleted(userId)),
    sql`delete from user_group_members where user_id = ${userId}`,
    sql`delete from users where id = ${userId}`,
  ];
}

export interface PickerRow {
  id: string;
  type: "user" | "group";
  name: string;
  login: string | null;
  is_robot: number | null;
}

/**
 * Users and groups whose name (or login) contains `q`, for the pickers of the admin screens and the rule editor:
 * enabled users first, then live groups for which `groupVisible` (an SQL condition on `g`) holds.
 */
export function searchUsersAndGroups(db: Database, q: string, opts: { limit: number; groupVisible: SQL; withLogins: boolean }) {
  const userMatch = opts.withLogins
    ? sql`(${containsFolded(users.name, q)} or ${containsFolded(users.login, q)})`
    : containsFolded(users.name, q);
  return db.all<PickerRow>(sql`
    select * from (select ${users.id} as id, 'user' as type, ${users.name} as name, ${opts.withLogins ? users.login : sql`null`} as login,
      ${users.isRobot} as is_robot from ${users} where ${users.enabled} = 1 and ${userMatch}
      order by ${foldedSql(users.name)}, ${users.id} limit ${opts.limit})
    union all
    select * from (select g.id as id, 'group' as type, g.name as name, null as login, null as is_robot from groups g
      where g.deleted_at is null and g.id <> ${ROOT_GROUP_ID} and ${containsFolded(sql`g.name`, q)} and ${opts.groupVisible}
      order by ${foldedSql(sql`g.name`)}, g.id limit ${opts.limit})`);
}
