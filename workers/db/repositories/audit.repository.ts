import { and, asc, count, desc, eq, gt, gte, lte, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { auditLog, users } from "../schema/index";

export interface AuditFilter {
  /** exact action name, or a family with a trailing `.*` (e.g. `auth.*`) */
  action?: string;
  actorId?: string;
  from?: number;
  to?: number;
  /** entries about this file or folder, and (a folder) about what was in it at the time */
  entity?: string;
  /** only entries that sort before this one (newer, or as old with a greater id): placing a deep page (decision 038) */
  newerThan?: { ctime: number; id: string };
}

function auditWhere(f: AuditFilter): SQL | undefined {
  const family = f.action?.endsWith(".*") ? f.action.slice(0, -1) : undefined;
  return and(
    family !== undefined
      ? and(gte(auditLog.action, family), lte(auditLog.action, `${family}\uffff`))
      : f.action !== undefined
      ? eq(auditLog.action, f.action)
      : undefined,
    f.actorId !== undefined ? eq(auditLog.actorId, f.actorId) : undefined,
    f.from !== undefined ? gte(auditLog.ctime, f.from) : undefined,
    f.to !== undefined ? lte(auditLog.ctime, f.to) : undefined,
    f.entity !== undefined ? or(eq(auditLog.objectId, f.entity), eq(auditLog.folderId, f.entity)) : undefined,
    f.newerThan !== undefined
      ? or(gt(auditLog.ctime, f.newerThan.ctime), and(eq(auditLog.ctime, f.newerThan.ctime), gt(auditLog.id, f.newerThan.id)))
      : undefined,
  );
}

/** One page of audit entries, newest first, with the acting user's name. */
export function listAuditPage(db: Database, f: AuditFilter & { skip: number; take: number }) {
  return db
    .select({ entry: auditLog, actorName: users.name, actorLogin: users.login })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorId))
    .where(auditWhere(f))
    .orderBy(desc(auditLog.ctime), desc(auditLog.id))
    .limit(f.take)
    .offset(f.skip);
}

/** Audit entries of a filter without names (LOGS has no users table): newest first, or with `oldestFirst` the other way. */
export function listAuditRows(db: Database, f: AuditFilter & { skip: number; take: number; oldestFirst?: boolean }) {
  const order = f.oldestFirst ? [asc(auditLog.ctime), asc(auditLog.id)] : [desc(auditLog.ctime), desc(auditLog.id)];
  return db.select().from(auditLog).where(auditWhere(f)).orderBy(...order).limit(f.take).offset(f.skip);
}

/** The SQL condition of a filter, for the LOGS reader's pending check. */
export function auditFilterSql(f: AuditFilter): SQL {
  return auditWhere(f) ?? sql`1`;
}

/** Names and logins of users by id (the acting users of entries read from LOGS). */
export function usersByIds(db: Database, ids: string[]) {
  return db.all<{ id: string; name: string; login: string }>(
    sql`select id, name, login from users where id in (select value from json_each(${JSON.stringify(ids)}))`,
  );
}

export async function countAudit(db: Database, f: AuditFilter): Promise<number> {
  const row = await db.select({ n: count() }).from(auditLog).where(auditWhere(f)).get();
  return row?.n ?? 0;
}

/** What an id an audit entry mentions is: a user, a folder or a file, with its current name. */
export interface NamedEntity {
  id: string;
  type: "user" | "group" | "asset";
  name: string;
}

/**
 * Names of users, folders and files by id, in one query (a UNION over the three tables): the audit page shows
 * names, not ids. Ids of things deleted since are simply missing from the answer.
 */
export async function namesByIds(db: Database, ids: string[]): Promise<NamedEntity[]> {
  if (ids.length === 0) return [];
  // One JSON parameter instead of one per id: D1 binds at most 100 values per statement.
  const list = sql`select value from json_each(${JSON.stringify(ids)})`;
  return db.all<NamedEntity>(sql`
    select id, 'user' as type, name from users where id in (${list})
    union all select id, 'group' as type, name from groups where id in (${list})
    union all select id, 'asset' as type, name from assets where id in (${list})`);
}

/** A file or folder by id with its owner, for deciding who may read its history; undefined when there is none. */
export async function auditedEntity(db: Database, id: string): Promise<{ id: string; type: "asset" | "group"; owner_id: string } | undefined> {
  const [row] = await db.all<{ id: string; type: "asset" | "group"; owner_id: string }>(sql`
    select id, 'asset' as type, owner_id from assets where id = ${id}
    union all select id, 'group' as type, owner_id from groups where id = ${id}
    limit 1`);
  return row;
}
