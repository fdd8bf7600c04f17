/**
 * Who may do what with a collection (decision record 034). A collection is the owner's; members hold it at a role
 * (view < comment < edit); administrators act as the owner. Someone who holds none of these gets the same 404 as for
 * a collection that does not exist, so its existence, name and size never leak.
 */
import { ru } from "../../../shared/i18n/ru";
import { collectionFor, type CollectionRow } from "../../db/repositories/collection.repository";
import { AppError } from "../../lib/errors";
import type { Actor, RequestContext } from "../access";

/** What the caller is to a collection, as answers name it. */
export type CollectionRole = "owner" | "admin" | "edit" | "comment" | "view";

const RANK_ROLE: Record<number, CollectionRole> = { 1: "view", 2: "comment", 3: "edit" };

/** Levels in the order each includes the previous: `manage` is the owner's and administrators' (delete, members). */
const LEVEL_RANK = { view: 1, comment: 2, edit: 3, manage: 4 } as const;
export type CollectionNeed = keyof typeof LEVEL_RANK;

function rankOf(role: CollectionRole): number {
  return role === "owner" || role === "admin" ? 4 : LEVEL_RANK[role];
}

export function roleOf(actor: Actor, row: CollectionRow): CollectionRole | null {
  if (row.owner_id === actor.id) return "owner";
  if (row.rank != null && RANK_ROLE[row.rank]) return RANK_ROLE[row.rank];
  return actor.isAdmin ? "admin" : null;
}

/**
 * The collection and the caller's role, or an error: 404 (the same as for no collection) unless the caller holds it
 * at all, 403 when they hold it below `need`.
 */
export async function requireCollection(
  rc: RequestContext,
  actor: Actor,
  id: string,
  need: CollectionNeed,
): Promise<{ row: CollectionRow; role: CollectionRole }> {
  const row = await collectionFor(rc.db, id, actor.id);
  const role = row ? roleOf(actor, row) : null;
  if (!row || !role) throw new AppError("NOT_FOUND", ru.collections.notFound);
  if (rankOf(role) < LEVEL_RANK[need]) {
    throw new AppError("FORBIDDEN", need === "manage" ? ru.collections.ownerOnly : ru.collections.editOnly);
  }
  return { row, role };
}
