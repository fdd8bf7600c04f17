import { and, eq, inArray } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { groupMembers, groups } from "../../db/schema/index";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { accessibleIds } from "../access";
import type { Actor, RequestContext } from "../access";

/** Where a trashed item was: the folder it is restored into. */
export interface TrashLocation {
  group_id: string;
  group_name: string;
}

/** D1 allows 100 bound parameters per statement. */
const CHUNK = 90;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Names of the folders `ids` the actor may read (the root as «Доступные Файлы»); a folder the actor may not read
 * is left out, so the trash never reveals the name of a folder its owner cannot open.
 */
async function readableFolderNames(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const unique = [...new Set(ids)];
  if (unique.includes(ROOT_GROUP_ID)) names.set(ROOT_GROUP_ID, ru.app.rootGroupName);
  const others = unique.filter((id) => id !== ROOT_GROUP_ID);
  if (others.length === 0) return names;
  const readable = [...(await accessibleIds(rc, actor, "group", others))];
  for (const part of chunks(readable)) {
    const rows = await rc.db.select({ id: groups.id, name: groups.name }).from(groups).where(inArray(groups.id, part));
    for (const row of rows) names.set(row.id, row.name);
  }
  return names;
}

/** The former parent of each trashed group (by group id). */
export async function groupTrashLocations(
  rc: RequestContext,
  actor: Actor,
  items: readonly { id: string; parentId: string | null }[],
): Promise<Map<string, TrashLocation>> {
  const names = await readableFolderNames(rc, actor, items.flatMap((i) => (i.parentId ? [i.parentId] : [])));
  const out = new Map<string, TrashLocation>();
  for (const item of items) {
    const name = item.parentId ? names.get(item.parentId) : undefined;
    if (item.parentId && name !== undefined) out.set(item.id, { group_id: item.parentId, group_name: name });
  }
  return out;
}

/**
 * The folder each trashed asset is listed in (its memberships stay while it is in the trash, so a restore puts it
 * back there). An asset listed in several folders answers the first readable one by name.
 */
export async function assetTrashLocations(rc: RequestContext, actor: Actor, assetIds: readonly string[]): Promise<Map<string, TrashLocation>> {
  const memberships: { groupId: string; elId: string }[] = [];
  for (const part of chunks([...new Set(assetIds)])) {
    memberships.push(
      ...(await rc.db
        .select({ groupId: groupMembers.groupId, elId: groupMembers.elId })
        .from(groupMembers)
        .where(and(eq(groupMembers.elType, "asset"), inArray(groupMembers.elId, part)))),
    );
  }
  const names = await readableFolderNames(
    rc,
    actor,
    memberships.map((m) => m.groupId),
  );
  const out = new Map<string, TrashLocation>();
  for (const m of memberships) {
    const name = names.get(m.groupId);
    if (name === undefined) continue;
    const current = out.get(m.elId);
    if (!current || name.localeCompare(current.group_name, "ru") < 0) out.set(m.elId, { group_id: m.groupId, group_name: name });
  }
  return out;
}
