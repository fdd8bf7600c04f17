import { ru } from "../../../shared/i18n/ru";
import {
  auditFilterSql,
  auditedEntity,
  countAudit,
  listAuditPage,
  listAuditRows,
  namesByIds,
  usersByIds,
  type AuditFilter,
  type NamedEntity,
} from "../../db/repositories/audit.repository";
import type { Database } from "../../db/client";
import { logsDb, mergedPage, shadowedKeys, type MergeSource } from "../logs";
import { AppError } from "../../lib/errors";
import { canAccess } from "./access.service";
import type { Actor, RequestContext } from "./context";
import { requireAdmin } from "./user.service";

/** One audit entry as the API shows it. */
export interface AuditEntryInfo {
  id: string;
  ctime: string;
  action: string;
  /** null for an anonymous caller (a failed sign-in) */
  actor_id: string | null;
  /** null when there is no actor or the user was deleted since */
  actor_name: string | null;
  actor_login: string | null;
  object_type: string | null;
  object_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  /** file and folder events: the name the file or folder had then (it may have been renamed or purged since) */
  object_name: string | null;
  /** the users, folders and files this entry mentions (its object and ids in `details`) that still exist, by id */
  names: Record<string, { type: NamedEntity["type"]; name: string }>;
}

/** Detail keys whose values are ids (or lists of ids) of users, folders or files. */
const ID_DETAILS = ["subj_id", "users", "items", "new_owner", "scope_groups", "user_id", "group_id", "asset_id"];

/** The ids an entry mentions: its object and the id-valued details. */
function mentionedIds(objectId: string | null, details: Record<string, unknown> | null | undefined): string[] {
  const ids: string[] = objectId ? [objectId] : [];
  for (const key of ID_DETAILS) {
    const value = details?.[key];
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === "string" && v.length <= 64) ids.push(v);
  }
  return ids;
}

function nameAtTheTime(details: unknown): string | null {
  if (typeof details !== "object" || details === null || !("name" in details)) return null;
  return typeof details.name === "string" ? details.name : null;
}

/**
 * Who may read the entries of a filter: administrators every entry; anyone else only the history of one file or
 * folder (`entity`) he holds `acl` on, and a file or folder he cannot manage answers the same 404 as one that does
 * not exist (its existence must not leak). Without `entity` a non-administrator is refused (403).
 */
async function requireAuditReader(rc: RequestContext, actor: Actor, filter: AuditFilter): Promise<void> {
  if (actor.isAdmin) return;
  if (filter.entity === undefined) return requireAdmin(actor);
  const entity = await auditedEntity(rc.db, filter.entity);
  const notFound = () => new AppError("NOT_FOUND", ru.errors.historyNotFound);
  if (!entity) throw notFound();
  if (!(await canAccess(rc, actor, { id: entity.id, type: entity.type, ownerId: entity.owner_id }, "acl"))) throw notFound();
}

type AuditPageRow = Awaited<ReturnType<typeof listAuditPage>>[number];
type AuditRow = Awaited<ReturnType<typeof listAuditRows>>[number];

const unnamed = (entry: AuditRow): AuditPageRow => ({ entry, actorName: null, actorLogin: null });

/** The entries of a filter in one database, as a side of the merged list (newest first). */
function auditSource(db: Database, filter: AuditFilter, named: boolean): MergeSource<AuditPageRow> {
  return {
    page: async (skip, take) => (named ? listAuditPage(db, { ...filter, skip, take }) : (await listAuditRows(db, { ...filter, skip, take })).map(unnamed)),
    count: () => countAudit(db, filter),
    last: async () => (await listAuditRows(db, { ...filter, skip: 0, take: 1, oldestFirst: true })).map(unnamed)[0],
    countBefore: (row) => countAudit(db, { ...filter, newerThan: { ctime: row.entry.ctime, id: row.entry.id } }),
  };
}

/**
 * One page of the entries of the hot database and of LOGS together (decision 038), merged by time, and their total;
 * the acting users of entries from LOGS are named from the hot database.
 */
async function auditPageOfBoth(rc: RequestContext, filter: AuditFilter & { skip: number; take: number }) {
  const logs = logsDb(rc.env);
  const { skip, take, ...where } = filter;
  const shadowed = shadowedKeys(rc.db, logs, "audit_log", auditFilterSql(where));
  const [page, hotTotal, logsTotal, shadowedNow] = await Promise.all([
    mergedPage(
      auditSource(rc.db, where, true),
      auditSource(logs, where, false),
      (row) => row.entry.id,
      (a, b) => b.entry.ctime - a.entry.ctime || (a.entry.id < b.entry.id ? 1 : a.entry.id > b.entry.id ? -1 : 0),
      shadowed,
      skip,
      take,
    ),
    countAudit(rc.db, where),
    countAudit(logs, where),
    shadowed,
  ]);
  const actors = [...new Set(page.flatMap((row) => (row.actorName === null && row.entry.actorId ? [row.entry.actorId] : [])))];
  if (actors.length > 0) {
    const users = new Map((await usersByIds(rc.db, actors)).map((u) => [u.id, u]));
    for (const row of page) {
      const user = row.entry.actorId ? users.get(row.entry.actorId) : undefined;
      if (user) Object.assign(row, { actorName: user.name, actorLogin: user.login });
    }
  }
  return { rows: page, total: hotTotal + logsTotal - shadowedNow.size };
}

/**
 * One page of the audit log, newest first, with the total for the pager: every entry for administrators, the
 * history of a file or folder for whoever holds `acl` on it.
 * @example await listAudit(rc, admin, { action: "auth.*", skip: 0, take: 50 })
 * @example await listAudit(rc, manager, { entity: assetId, action: "asset.download", skip: 0, take: 1 }) // total: downloads
 */
export async function listAudit(
  rc: RequestContext,
  actor: Actor,
  filter: AuditFilter & { skip: number; take: number },
): Promise<{ items: AuditEntryInfo[]; total: number }> {
  await requireAuditReader(rc, actor, filter);
  const { rows, total } = await auditPageOfBoth(rc, filter);
  const mentioned = rows.map(({ entry }) => mentionedIds(entry.objectId, entry.details as Record<string, unknown> | null));
  // Every name on the page in one query, not one per row.
  const named = new Map((await namesByIds(rc.db, [...new Set(mentioned.flat())])).map((n) => [n.id, n]));
  return {
    items: rows.map(({ entry, actorName, actorLogin }, i) => ({
      id: entry.id,
      ctime: new Date(entry.ctime).toISOString(),
      action: entry.action,
      actor_id: entry.actorId,
      actor_name: actorName,
      actor_login: actorLogin,
      object_type: entry.objectType,
      object_id: entry.objectId,
      details: entry.details ?? null,
      ip: entry.ip,
      object_name: nameAtTheTime(entry.details) ?? (entry.objectId ? named.get(entry.objectId)?.name ?? null : null),
      names: Object.fromEntries(
        mentioned[i].flatMap((id) => {
          const n = named.get(id);
          return n ? [[id, { type: n.type, name: n.name }]] : [];
        }),
      ),
    })),
    total,
  };
}
