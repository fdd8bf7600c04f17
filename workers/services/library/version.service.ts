import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { DEFAULT_STORAGE_ID, changesOf, findGroupLite, runBatch } from "../../db/repositories/asset.repository";
import { selectReadyVariants, selectVersion, selectVersions } from "../../db/repositories/asset-versions.repository";
import {
  deleteVersionStatements,
  restoreVersionStatements,
  selectAssetsNamed,
  selectVersionObjects,
  selectVersionPreviews,
  updateVersionDescriptionStatement,
} from "../../db/repositories/version.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { fileAuditStatement, requireEntityAccess, visibility } from "../access";
import { deleteUnreferencedObjects } from "./asset-content.service";
import { mainVariant, requireAsset } from "./asset.service";
import { sortKeyOf } from "./group-tree";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { previewStorageKey } from "../media";

/** Longest version comment (SPEC §3 Version.desc). */
export const MAX_VERSION_COMMENT = 1000;
/** Most names one name-clash check takes (an upload batch is checked in slices of this size). */
export const MAX_NAMES_PER_CHECK = 500;

/** What restoring answers: the number of the new version and the one it copies. */
export interface RestoredVersion {
  asset_id: string;
  version: number;
  version_id: string;
  restored_from: number;
}

async function requireVersion(rc: RequestContext, assetId: string, version: number) {
  const [row] = await selectVersion(rc.db, assetId, version);
  if (!row) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  return row;
}

/**
 * Makes an older version the newest WITHOUT losing anything: a new version (max + 1) whose variants reference the
 * same stored objects as version `version` (copy-on-write: no bytes are duplicated; purges delete an object only
 * when no variant references it), with copies of its previews. Needs `create` on the asset — what adding a version
 * by upload needs. One D1 batch with its event; preview bytes are copied before it and removed again if it fails.
 */
export async function restoreVersion(rc: RequestContext, actor: Actor, assetId: string, version: number): Promise<RestoredVersion> {
  const asset = await requireAsset(rc, actor, assetId, "create");
  const source = await requireVersion(rc, assetId, version);
  const [ready, previews] = await Promise.all([selectReadyVariants(rc.db, assetId, version), selectVersionPreviews(rc.db, assetId, source.id)]);
  if (ready.length === 0) throw new AppError("NOT_FOUND", ru.assets.noContent);
  const now = Date.now();
  const versionId = newId(now);
  const copiedPreviews: [string, string, string][] = [];
  for (const p of previews) {
    const object = await rc.env.MEDIA.get(p.storageKey);
    // A preview whose bytes are gone is not copied: the restored version gets a new one like any upload.
    if (!object) continue;
    const id = newId(now);
    const key = previewStorageKey(assetId, id);
    await rc.env.MEDIA.put(key, await object.arrayBuffer(), { httpMetadata: object.httpMetadata });
    copiedPreviews.push([p.id, id, key]);
  }
  const size = mainVariant(ready)?.variant.contentSize ?? 0;
  let results;
  try {
    results = await runBatch(rc.db, [
      ...restoreVersionStatements({
        assetId,
        sourceVersionId: source.id,
        versionId,
        variants: ready.map((r) => [r.variant.id, newId(now)]),
        previews: copiedPreviews,
        description: ru.fileVersions.restoredFrom(version),
        userId: actor.id,
        size,
        now,
      }),
      // The event only when the version was made (a lost race writes nothing at all).
      sql`${eventStatement(rc, {
        type: "asset.version-restored",
        entityType: "asset",
        entityId: assetId,
        ownerId: asset.ownerId,
        actorId: actor.id,
        data: { version_id: versionId, restored_from: version },
      })} where exists (select 1 from asset_versions where id = ${versionId})`,
      fileAuditStatement(rc, {
        actorId: actor.id,
        verb: "restore",
        targets: { type: "asset", id: assetId, details: { version } },
        when: sql`exists (select 1 from asset_versions where id = ${versionId})`,
      }),
    ]);
  } catch (error) {
    if (copiedPreviews.length) await rc.env.MEDIA.delete(copiedPreviews.map(([, , key]) => key));
    throw error;
  }
  if (changesOf(results[0]) === 0) {
    if (copiedPreviews.length) await rc.env.MEDIA.delete(copiedPreviews.map(([, , key]) => key));
    throw new AppError("CONFLICT", ru.fileVersions.versionGone);
  }
  const [made] = (await selectVersions(rc.db, assetId)).filter((v) => v.id === versionId);
  return { asset_id: assetId, version: made?.version ?? 0, version_id: versionId, restored_from: version };
}

/**
 * Deletes one version with its variants, previews and version-bound field values: `delete` on the asset. The last
 * remaining version cannot go (409; delete the file instead). The rows go in one batch first; the stored objects
 * that no other row references any more (a restored or copied version may share them) are deleted after the
 * commit. If storage fails then, the rows are gone already and the bytes are only unreferenced — never the reverse.
 */
export async function deleteVersion(rc: RequestContext, actor: Actor, assetId: string, version: number): Promise<{ latest: number }> {
  const asset = await requireAsset(rc, actor, assetId, "delete");
  const target = await requireVersion(rc, assetId, version);
  const versions = await selectVersions(rc.db, assetId);
  const rest = versions.filter((v) => v.id !== target.id);
  if (rest.length === 0) throw new AppError("CONFLICT", ru.fileVersions.lastVersion);
  const latest = Math.max(...rest.map((v) => v.version));
  const [objects, previews, latestVariants] = await Promise.all([
    selectVersionObjects(rc.db, target.id),
    selectVersionPreviews(rc.db, assetId, target.id),
    selectReadyVariants(rc.db, assetId, latest),
  ]);
  const now = Date.now();
  const results = await runBatch(rc.db, [
    ...deleteVersionStatements({ assetId, versionId: target.id, latest, size: mainVariant(latestVariants)?.variant.contentSize ?? 0, now }),
    // The event only when the version is gone (a refused last version writes nothing at all).
    sql`${eventStatement(rc, {
      type: "asset.version-deleted",
      entityType: "asset",
      entityId: assetId,
      ownerId: asset.ownerId,
      actorId: actor.id,
      data: { version_id: target.id, version },
    })} where not exists (select 1 from asset_versions where id = ${target.id})`,
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "delete",
      targets: { type: "asset", id: assetId, details: { version } },
      when: sql`not exists (select 1 from asset_versions where id = ${target.id})`,
    }),
  ]);
  if (changesOf(results[results.length - 3]) === 0) throw new AppError("CONFLICT", ru.fileVersions.lastVersion);
  try {
    await deleteUnreferencedObjects(rc, [...objects, ...previews.map((p) => ({ storageId: DEFAULT_STORAGE_ID, storageKey: p.storageKey }))]);
  } catch (error) {
    // The version is gone; its bytes stay only as unreferenced objects (nothing can reach them).
    console.warn("objects of a deleted version not removed", error);
  }
  return { latest };
}

/** Sets or clears (empty text) a version's comment: `update` on the asset. */
export async function setVersionComment(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  version: number,
  desc: string | null,
): Promise<{ version: number; desc: string | null }> {
  const asset = await requireAsset(rc, actor, assetId, "update");
  const target = await requireVersion(rc, assetId, version);
  const text = desc?.trim() ? desc.trim() : null;
  await runBatch(rc.db, [
    updateVersionDescriptionStatement(assetId, version, text),
    eventStatement(rc, {
      type: "asset.updated",
      entityType: "asset",
      entityId: assetId,
      ownerId: asset.ownerId,
      actorId: actor.id,
      data: { version_id: target.id, version, desc: text },
    }),
  ]);
  return { version, desc: text };
}

/** One file of a folder that an upload's name clashes with. */
export interface NameMatch {
  /** the name as asked */
  name: string;
  asset_id: string;
  asset_name: string;
  ver: number;
}

/**
 * Which of `names` are taken by files of group `groupId` (case-insensitively, as file systems that ignore case see
 * it), among those the caller may read: `read` on the group. When several files share a name the most recently
 * changed one is answered (the one a new version would most likely be meant for).
 */
export async function namesInGroup(rc: RequestContext, actor: Actor, groupId: string, names: readonly string[]): Promise<NameMatch[]> {
  if (names.length > MAX_NAMES_PER_CHECK) throw new AppError("BAD_REQUEST", ru.fileVersions.namesTooMany(MAX_NAMES_PER_CHECK));
  const group = await findGroupLite(rc.db, groupId);
  if (!group || group.deletedAt != null) throw new AppError("NOT_FOUND", ru.groups.notFound);
  await requireEntityAccess(rc, actor, { id: group.id, type: "group", ownerId: group.ownerId }, "read", ru.groups.notFound);
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return [];
  const rows = await selectAssetsNamed(rc.db, groupId, [...new Set(wanted.map(sortKeyOf))], await visibility(rc, actor));
  const newest = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    const seen = newest.get(row.sortName);
    if (!seen || row.mtime > seen.mtime || (row.mtime === seen.mtime && row.id > seen.id)) newest.set(row.sortName, row);
  }
  return wanted.flatMap((name) => {
    const row = newest.get(sortKeyOf(name));
    return row ? [{ name, asset_id: row.id, asset_name: row.name, ver: row.latestVersion }] : [];
  });
}
