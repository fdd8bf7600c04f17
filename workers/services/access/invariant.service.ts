/**
 * The access invariant's one gate (docs/decisions/026-access-invariant.md): no sequence of calls by a user who lacks
 * `acl` on an entity changes who may do what with it. Rules already need `acl` on their object; what else changes an
 * entity's rights is *where it is listed* — an asset's rights are the union of what every folder listing it passes
 * down, a group's come from its ancestors. So every call that lists an asset in another folder (insert-members and its
 * variants, create-version with `to_group`, automations), moves it, unlinks it, or moves a group with its subtree
 * asks here, before anything is written, for `acl` on each entity whose rights it would change.
 */
import { ru } from "../../../shared/i18n/ru";
import { subtreeEntityWithout } from "../../db/repositories/access.repository";
import { AppError } from "../../lib/errors";
import { accessibleIds, visibility, type AccessEntity } from "./access.service";
import type { Actor, RequestContext } from "./context";

/** An entity whose listing a call changes, with its name for the message. */
export interface RelistedEntity extends AccessEntity {
  type: "asset" | "group";
  name: string;
}

/**
 * Throws unless the actor holds `acl` on every entity: 404 (`notFound`) for one they cannot read — its existence must
 * not leak — and 403 naming the missing level for one they can. Checks every entity before the caller writes anything.
 */
export async function requireRelistable(
  rc: RequestContext,
  actor: Actor,
  entities: readonly RelistedEntity[],
  notFound: string,
): Promise<void> {
  if (actor.isAdmin || entities.length === 0) return;
  // One statement per type however many entities (insert-members takes up to 500): the list filter with level acl,
  // then, only for those without it, with level read to tell 403 from 404.
  const without: RelistedEntity[] = [];
  for (const type of ["asset", "group"] as const) {
    const ofType = entities.filter((e) => e.type === type);
    if (ofType.length === 0) continue;
    const held = await accessibleIds(rc, actor, type, ofType.map((e) => e.id), "acl");
    without.push(...ofType.filter((e) => !held.has(e.id)));
  }
  if (without.length === 0) return;
  for (const type of ["asset", "group"] as const) {
    const ofType = without.filter((e) => e.type === type);
    if (ofType.length === 0) continue;
    const readable = await accessibleIds(rc, actor, type, ofType.map((e) => e.id), "read");
    if (ofType.some((e) => !readable.has(e.id))) throw new AppError("NOT_FOUND", notFound);
  }
  throw new AppError("FORBIDDEN", ru.access.relistNeedsAcl(without[0].type, without[0].name));
}

/**
 * Moving a group changes the inherited rules and the chroot/scope confinement of everything below it, so the actor
 * needs `acl` on the group (`requireRelistable`) and on every live entity of its subtree: one statement finds the
 * first one without. The group itself is readable by then, so a missing level below it is a 403 that names no
 * entity (the one found may be hidden from the actor).
 */
export async function requireRelistableSubtree(rc: RequestContext, actor: Actor, group: RelistedEntity, notFound: string): Promise<void> {
  await requireRelistable(rc, actor, [group], notFound);
  const v = await visibility(rc, actor);
  if (v === null) return;
  const without = await subtreeEntityWithout(rc.db, v, group.id, "acl");
  if (without) throw new AppError("FORBIDDEN", ru.access.subtreeNeedsAcl(group.name));
}
