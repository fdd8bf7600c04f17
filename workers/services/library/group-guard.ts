/** Loading groups with the caller's right checked, shared by the group services of this domain. */
import type { SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import type { Database } from "../../db/client";
import * as repo from "../../db/repositories/group.repository";
import { findGroup } from "../../db/repositories/group.repository";
import type { GroupRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { requireEntityAccess, type AccessLevel } from "../access";
import type { Actor, RequestContext } from "../access";

/** Checks `level` on a group through the one access entry point (404 when the actor may not read it, else 403). */
export function requireGroup(
  rc: RequestContext,
  actor: Actor,
  g: { id: string; ownerId: string | null },
  level: AccessLevel,
  notFound: string = ru.groups.notFound,
) {
  return requireEntityAccess(rc, actor, { id: g.id, type: "group", ownerId: g.ownerId }, level, notFound);
}

/**
 * Loads a group and checks the actor's right on it. The virtual root may be read and created in by everyone
 * (its listing is filtered by visibility) and never changed. Trashed groups are 404 unless `allowTrashed`.
 */
export async function loadGroup(rc: RequestContext, actor: Actor, id: string, level: AccessLevel, allowTrashed = false): Promise<GroupRow> {
  const row = await findGroup(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.groups.notFound);
  if (id === ROOT_GROUP_ID) {
    if (level === "read") return row;
    if (level !== "create") throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
    // Everyone may create top-level groups except a chrooted caller (the group would lie outside the chroot).
    await requireGroup(rc, actor, row, level);
    return row;
  }
  await requireGroup(rc, actor, row, level);
  if (row.deletedAt != null && !allowTrashed) throw new AppError("NOT_FOUND", ru.groups.notFound);
  return row;
}

/**
 * `loadGroup` for a list of live groups in one query: every id must exist, be live and allow `level` (the virtual
 * root only for read). Answers the ids without duplicates.
 */
export async function loadGroups(rc: RequestContext, actor: Actor, ids: string[], level: AccessLevel): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (level !== "read") unique.forEach(rejectRoot);
  const rows = new Map((await repo.findGroups(rc.db, unique)).map((g) => [g.id, g]));
  for (const id of unique) {
    const g = rows.get(id);
    if (!g) throw new AppError("NOT_FOUND", ru.groups.notFound);
    if (id === ROOT_GROUP_ID) continue;
    await requireGroup(rc, actor, { id, ownerId: g.owner_id }, level);
    if (g.deleted_at != null) throw new AppError("NOT_FOUND", ru.groups.notFound);
  }
  return unique;
}

export function rejectRoot(id: string) {
  if (id === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", ru.groups.rootImmutable);
}

/** Runs a batch whose `abortIf` assertions re-check the service's checks; a failed assertion is a 409. */
export async function runGuarded(db: Database, statements: SQL[]) {
  try {
    return await repo.runBatch(db, statements);
  } catch (error) {
    if (repo.isAssertionFailure(error)) throw new AppError("CONFLICT", ru.groups.concurrentChange);
    throw error;
  }
}
