import { ru } from "../../../shared/i18n/ru";
import { usersExist } from "../../db/repositories/access.repository";
import { ownedAssets, ownedGroups } from "../../db/repositories/owned.repository";
import { AppError } from "../../lib/errors";
import { toIso } from "../../lib/time";
import type { Actor, RequestContext } from "./context";

export interface OwnedPaging {
  groupSkip: number;
  assetSkip: number;
  take: number;
}

/**
 * What a user owns — the folders and files whose owner they are, and so hold every right on, whatever the rules say
 * (the administrator's user page; a user may ask about themselves). Trashed items are left out. Each list pages on
 * its own; a page shorter than `take` is the last.
 */
export async function ownedByUser(rc: RequestContext, actor: Actor, userId: string, paging: OwnedPaging) {
  if (!actor.isAdmin && actor.id !== userId) throw new AppError("FORBIDDEN", ru.users.adminOnly);
  if ((await usersExist(rc.db, [userId])).length === 0) throw new AppError("NOT_FOUND", ru.users.notFound);
  const [groups, assets] = await Promise.all([
    ownedGroups(rc.db, { ownerId: userId, skip: paging.groupSkip, take: paging.take }),
    ownedAssets(rc.db, { ownerId: userId, skip: paging.assetSkip, take: paging.take }),
  ]);
  return {
    groups: groups.map((g) => ({ group_id: g.id, group_name: g.name, mtime: toIso(g.mtime) })),
    assets: assets.map((a) => ({ asset_id: a.id, name: a.name, mimetype: a.mime, ver: a.version, mtime: toIso(a.mtime) })),
  };
}
