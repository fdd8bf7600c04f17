import { countAudit, listAuditPage, type AuditFilter } from "../../db/repositories/audit.repository";
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
}

/**
 * One page of the audit log, newest first, with the total for the pager (administrators only).
 * @example await listAudit(rc, admin, { action: "auth.*", skip: 0, take: 50 })
 */
export async function listAudit(
  rc: RequestContext,
  actor: Actor,
  filter: AuditFilter & { skip: number; take: number },
): Promise<{ items: AuditEntryInfo[]; total: number }> {
  requireAdmin(actor);
  const [rows, total] = await Promise.all([listAuditPage(rc.db, filter), countAudit(rc.db, filter)]);
  return {
    items: rows.map(({ entry, actorName, actorLogin }) => ({
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
    })),
    total,
  };
}
