import { auditLog } from "../../db/schema/index";
import { newId } from "../../lib/ids";
import type { Actor, RequestContext } from "./context";

/** One audit entry as the services describe it. */
export interface AuditEntry {
  action: string;
  actorId: string | null;
  objectType?: string | null;
  objectId?: string | null;
  details?: Record<string, unknown>;
  ip?: string | null;
}

/**
 * The insert of one audit entry, not yet run: callers put it in the same D1 batch as the change it records, so a
 * change is never without its entry and an entry never without its change.
 */
export function auditStatement(rc: RequestContext, entry: AuditEntry) {
  return rc.db.insert(auditLog).values({
    id: newId(),
    ctime: Date.now(),
    actorId: entry.actorId,
    action: entry.action,
    objectType: entry.objectType ?? null,
    objectId: entry.objectId ?? null,
    details: entry.details ?? null,
    ip: entry.ip ?? null,
  });
}

/** Records an entry on its own, for actions that change nothing else (a failed sign-in). */
export async function recordAudit(rc: RequestContext, entry: AuditEntry): Promise<void> {
  await auditStatement(rc, entry);
}

/** Shortcut for the common case: the signed-in actor did `action` on an object. */
export function auditByActor(
  rc: RequestContext,
  actor: Actor,
  action: string,
  object: { type: string; id: string },
  details?: Record<string, unknown>,
) {
  return auditStatement(rc, { action, actorId: actor.id, objectType: object.type, objectId: object.id, details });
}
