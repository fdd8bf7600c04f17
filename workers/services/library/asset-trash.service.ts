/** Moving assets to the trash, restoring them, and the trash listing of assets. */
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { assetTrashLocations } from "./trash-location.service";
import {
  changesOf,
  findAsset,
  findAssets,
  listTrashedAssets,
  restoreAssetStatements,
  runBatch,
  trashAssetsStatements,
} from "../../db/repositories/asset.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { AppError } from "../../lib/errors";
import { TRASH_RETENTION_MS } from "../../lib/trash";
import { fileAuditStatement, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { iso, requireOnAsset, unique, requireListSize, requireAsset, getAsset } from "./asset.service";
import { type AssetInfo, type AssetSections, type TrashedAsset, type Paging } from "./asset-shapes";


/**
 * Moves assets to the trash in one batch, all or nothing: every id must be a live asset the actor may delete.
 * Their memberships are hidden (`trashed_at`) at the same instant; `restoreAsset` undoes it within the retention
 * period (`TRASH_RETENTION_DAYS`), after which `purge-trash` deletes them for good.
 */
export async function trashAssets(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<void> {
  const wanted = unique(ids);
  requireListSize(wanted.length);
  if (wanted.length === 0) return;
  const rows = new Map((await findAssets(rc.db, wanted)).map((a) => [a.id, a]));
  for (const id of wanted) {
    const asset = rows.get(id);
    if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
    await requireOnAsset(rc, actor, asset, "delete");
  }
  const trashed = wanted.map((id) => ({
    type: "asset.trashed",
    entityType: "asset" as const,
    entityId: id,
    ownerId: rows.get(id)!.ownerId,
    actorId: actor.id,
  }));
  await runBatch(rc.db, [
    ...trashAssetsStatements(rc.db, wanted, Date.now()),
    eventStatement(rc, trashed),
    fileAuditStatement(rc, { actorId: actor.id, verb: "delete", targets: wanted.map((id) => ({ type: "asset" as const, id, name: rows.get(id)!.name })) }),
  ]);
}

/** Moves one asset to the trash. */
export async function trashAsset(rc: RequestContext, actor: Actor, id: string): Promise<void> {
  const asset = await requireAsset(rc, actor, id, "delete");
  const trashed = eventStatement(rc, {
    type: "asset.trashed",
    entityType: "asset",
    entityId: id,
    ownerId: asset.ownerId,
    actorId: actor.id,
  });
  await runBatch(rc.db, [
    ...trashAssetsStatements(rc.db, [id], Date.now()),
    trashed,
    fileAuditStatement(rc, { actorId: actor.id, verb: "delete", targets: { type: "asset", id, name: asset.name } }),
  ]);
}

/** Takes an asset out of the trash within `TRASH_RETENTION_DAYS` (409 when it is not in the trash, 404 when expired). */
export async function restoreAsset(rc: RequestContext, actor: Actor, id: string): Promise<AssetInfo & AssetSections> {
  const asset = await findAsset(rc.db, id);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireOnAsset(rc, actor, asset, "delete");
  if (asset.deletedAt == null) throw new AppError("CONFLICT", ru.assets.notInTrash);
  const now = Date.now();
  if (now - asset.deletedAt > TRASH_RETENTION_MS) throw new AppError("NOT_FOUND", ru.assets.restoreExpired);
  const event = eventStatement(rc, {
    type: "asset.restored",
    entityType: "asset",
    entityId: id,
    ownerId: asset.ownerId,
    actorId: actor.id,
  });
  const [restored] = await runBatch(rc.db, [
    ...restoreAssetStatements(rc.db, id, asset.deletedAt, now),
    event,
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "restore",
      targets: { type: "asset", id, name: asset.name, details: { trash: true } },
      // a restore that found the file out of the trash already (a race) changed nothing: no entry either
      when: sql`exists (select 1 from assets where id = ${id} and deleted_at is null)`,
    }),
  ]);
  if (changesOf(restored) === 0) throw new AppError("CONFLICT", ru.assets.notInTrash);
  return getAsset(rc, actor, id);
}

/**
 * Trashed assets that can still be restored, newest first: the caller's own (an administrator sees everyone's), of the
 * libraries `scope` names (across libraries, `trashWhereItLives` asks each where it lives).
 */
export async function trashedAssetsPage(rc: RequestContext, actor: Actor, paging: Paging, scope: LibraryScope = "own"): Promise<TrashedAsset[]> {
  const since = Date.now() - TRASH_RETENTION_MS;
  const rows = await listTrashedAssets(rc.db, { vis: await visibility(rc, actor), since, ...paging, scope });
  const locations = await assetTrashLocations(
    rc,
    actor,
    rows.map((a) => a.id),
  );
  return rows.map((a) => ({
    asset_id: a.id,
    name: a.name,
    mimetype: a.mime,
    owner: a.ownerId,
    ver: a.latestVersion,
    deleted_at: iso(a.deletedAt ?? 0),
    purge_at: iso((a.deletedAt ?? 0) + TRASH_RETENTION_MS),
    location: locations.get(a.id) ?? null,
  }));
}
