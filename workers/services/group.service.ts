import { ru } from "../../app/i18n/ru";
import { findGroup, listChildGroups } from "../db/repositories/group.repository";
import { ROOT_GROUP_ID } from "../lib/ids";
import { toIso } from "../lib/time";
import type { Actor, RequestContext } from "./context";

/** Page size of group listings (SPEC §9). */
export const GROUP_PAGE_SIZE = 50;

export interface GroupSummary {
  group_id: string;
  group_name: string;
  group_owner: string | null;
  owner_name: string | null;
  ctime: string | null;
  mtime: string | null;
  members: number;
}

/**
 * The virtual root 'Доступные Файлы': the top-level groups the actor may see (admins all of them, others the ones
 * they own until access rules widen that). Visibility is part of the SQL, so paging stays correct.
 */
export async function listAvailableRoot(rc: RequestContext, actor: Actor, { skip = 0, take = GROUP_PAGE_SIZE } = {}) {
  const [rows, root] = await Promise.all([
    listChildGroups(rc.db, ROOT_GROUP_ID, { ownerId: actor.isAdmin ? undefined : actor.id, skip, take }),
    findGroup(rc.db, ROOT_GROUP_ID),
  ]);
  const groups: GroupSummary[] = rows.map((r) => ({
    group_id: r.id,
    group_name: r.name,
    group_owner: r.ownerId,
    owner_name: r.ownerName,
    ctime: toIso(r.ctime),
    mtime: toIso(r.mtime),
    members: r.memberCount,
  }));
  return { group_id: ROOT_GROUP_ID, group_name: root?.name ?? ru.app.rootGroupName, groups, complete: rows.length < take };
}
