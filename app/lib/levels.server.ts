import { AppError } from "../../workers/lib/errors";
import { levelsWhereTheyLive, readRouted } from "../../workers/api/library-reads";
import type { Actor, RequestContext } from "../../workers/services/access";

/**
 * The caller's levels on an entity for a page loader, through the same check as GET /api/auth/entity-access. An
 * entity the caller cannot read (or that does not exist) has no levels: the page offers no action on it. A page that
 * knows what the id is (`type`: a folder page, a viewer) lets the check's rows load beside the entity (decision 030).
 */
export async function levelsOrNone(rc: RequestContext, actor: Actor, id: string, type?: "asset" | "group"): Promise<string[]> {
  try {
    // Where its library lives (decision 051); the page's sign-in placed it and read the caller's copy ahead.
    return (await readRouted({ rc, actor }, "callerAccess", [id], type)).acl;
  } catch (error) {
    if (error instanceof AppError && (error.code === "NOT_FOUND" || error.code === "FORBIDDEN")) return [];
    throw error;
  }
}

/**
 * The caller's levels on several entities for a page loader, through the same check as POST
 * /api/auth/entity-user-access (one answer per id; an id the caller cannot read answers no levels).
 */
export async function levelsOfEach(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  if (ids.length === 0) return out;
  try {
    // Each decided where its library lives (decision 051).
    for (const row of await levelsWhereTheyLive({ rc, actor }, ids.map((entity) => ({ entity })))) out[row.entity] = row.acl;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    // One unreadable id refuses the whole batch: ask one by one so the others keep their answers.
    for (const id of ids) out[id] = await levelsOrNone(rc, actor, id);
  }
  return out;
}
