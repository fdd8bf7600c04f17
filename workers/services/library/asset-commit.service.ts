/** Committing uploaded bytes as a version in one batch (commit-after-upload), queueing its processing, dropping empty versions. */
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { changesOf, returnedRows, runBatch, type Statement } from "../../db/repositories/asset.repository";
import {
  carryReservationValuesStatement,
  commitUploadStatements,
  deleteEmptyUploadsStatement,
  findReadyVariant,
  findVariant,
  selectReservedUploads,
  selectVersion,
  type ReservedUpload,
} from "../../db/repositories/asset-versions.repository";
import { dropReservationValuesStatement } from "../../db/repositories/field.repository";
import type { AssetRow, VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { requireAsset } from "./asset.service";
import { fileAuditStatement, type Actor, type RequestContext } from "../access";
import { sortKeyOf } from "./group-tree";
import type { TaskMessageInput } from "../../queue/messages";
import { eventStatement } from "../events";
import { backendFor, deleteUnreferencedObjects } from "./asset-content.service";
import { type UploadComplete } from "./asset-upload.service";

/** Previews and technical fields of a committed variant, made in the background (the multipart path queues the same after hashing). */
export async function queueProcessing(rc: RequestContext, variant: Pick<VariantRow, "id" | "assetId">, version: number): Promise<void> {
  await rc.env.TASKS.send({
    op: "process-variant",
    variantId: variant.id,
    assetId: variant.assetId,
    version,
  } satisfies TaskMessageInput);
}

/** SPEC §3 Worker upload-complete of a committed variant. */
export function uploadCompleteOf(asset: AssetRow, variant: VariantRow, version: number, sha256: string, size: number): UploadComplete {
  return {
    asset_id: asset.id,
    asset_version: version,
    asset_variant_id: variant.id,
    storage_id: variant.storageId,
    storage_path: variant.storageKey,
    mime_type: variant.mimeType,
    checksum: sha256,
    checksum_alg: "sha256",
    file_name: variant.fileName,
    file_size: size,
  };
}

/**
 * Commit-after-upload, shared by the single PUT and the multipart completion: ONE batch makes the next version
 * number, the variant ready with its hash and size, the asset's latest version and mtime, its memberships' size and
 * mtime, and the `to_group` membership (plus `extra` statements of the caller). The version belongs to the user who
 * started the upload. Answers `committed` with the new version number; `already` when another request committed
 * this variant first (its bytes are under the same key: they stay); and throws 404 when the variant was dropped or
 * the asset trashed meanwhile, after deleting the object nothing references.
 */
export async function commitUpload(
  rc: RequestContext,
  c: {
    variant: VariantRow;
    asset: AssetRow;
    sha256: string;
    size: number;
    from: "pending" | "saving";
    extra?: Statement[];
    /** statements that must run before the commit in the same transaction (the one-request upload creates its rows) */
    before?: Statement[];
    /** the folder the upload landed in, when the caller knows it */
    landedIn?: string | null;
  },
): Promise<{ outcome: "committed" | "already"; version: number }> {
  const now = Date.now();
  const versionId = newId(now);
  const before = c.before ?? [];
  // The folder the upload landed in, for the `asset.uploaded` event (automations trigger on it): `to_group`, else the
  // folder the asset was created in.
  const landedIn =
    c.landedIn ??
    c.variant.toGroup ??
    (
      await rc.db.get<{ group_id: string } | undefined>(
        sql`select group_id from group_members where el_id = ${c.asset.id} and el_type = 'asset' and trashed_at is null order by ctime limit 1`,
      )
    )?.group_id ??
    null;
  const results = await runBatch(rc.db, [
    ...before,
    ...commitUploadStatements(rc.db, {
      versionId,
      assetId: c.asset.id,
      variantId: c.variant.id,
      userId: c.variant.userId,
      sha256: c.sha256,
      size: c.size,
      toGroup: c.variant.toGroup,
      sortName: sortKeyOf(c.asset.name),
      now,
      from: c.from,
    }),
    ...(c.variant.reservedVersion === null ? [] : [carryReservationValuesStatement({ versionId, variantId: c.variant.id, assetId: c.asset.id })]),
    ...(c.extra ?? []),
    eventStatement(rc, {
      type: "asset.uploaded",
      entityType: "asset",
      entityId: c.asset.id,
      ownerId: c.asset.ownerId,
      actorId: c.variant.userId,
      data: { group_id: landedIn, variant_id: c.variant.id, mime_type: c.variant.mimeType, size: c.size },
    }),
    // Written only when the commit above did create the version (a second PUT changes nothing).
    fileAuditStatement(rc, {
      actorId: c.variant.userId,
      verb: c.asset.latestVersion === 0 ? "upload" : "version",
      targets: { type: "asset", id: c.asset.id, folderId: landedIn },
      details: { size: c.size, mime_type: c.variant.mimeType },
      when: sql`exists (select 1 from asset_versions where id = ${versionId})`,
    }),
    // The new version's number, read inside the same transaction (no extra round trip).
    sql`select version from asset_versions where id = ${versionId}`,
  ]);
  const version = (results[results.length - 1].results as { version: number }[] | undefined)?.[0]?.version;
  if (changesOf(results[before.length]) > 0 && version !== undefined) return { outcome: "committed", version };
  const committed = await findReadyVariant(rc.db, c.variant.id);
  if (committed) return { outcome: "already", version: committed.version };
  const current = await findVariant(rc.db, c.variant.id);
  await (await backendFor(rc, c.variant.storageId)).delete([c.variant.storageKey]);
  throw new AppError("NOT_FOUND", current ? ru.assets.notFound : ru.assets.variantNotFound);
}

/**
 * drop-empty-version (SPEC): removes versions create-version made that never received content. With `version`, that
 * one: 404 when the asset has no such version, 409 (nothing removed) when it has content (committed) or is receiving
 * it (a multipart upload begun: its parts are stored; a hashing run). A single-request upload keeps nothing before
 * its commit, so its version is removable even while a PUT streams (that PUT then answers 404 and leaves nothing).
 * `variantId` names the version by its upload (the variant create-version answered) instead. Without either (SPEC's
 * call has no body), every removable version of the asset goes. Answers the numbers removed.
 */
export async function dropEmptyVersions(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  version?: number,
  variantId?: string,
): Promise<{ dropped: number; versions: number[] }> {
  await requireAsset(rc, actor, assetId, "update");
  const reserved = await selectReservedUploads(rc.db, assetId);
  const removable = (u: ReservedUpload) => u.status === "pending" && u.uploadId === null;
  let targets: ReservedUpload[];
  if (variantId !== undefined) {
    // The version of one upload (what the app's upload queue cancels): its number may be unknown to the caller.
    const named = reserved.filter((u) => u.id === variantId);
    if (named.length === 0) {
      const ready = await findReadyVariant(rc.db, variantId);
      if (ready && ready.variant.assetId === assetId) throw new AppError("CONFLICT", ru.assets.versionHasContent(ready.version));
      throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
    }
    if (!named.every(removable)) throw new AppError("CONFLICT", ru.assets.versionHasContent(named[0].reservedVersion));
    targets = named;
  } else if (version === undefined) {
    targets = reserved.filter(removable);
  } else {
    const named = reserved.filter((u) => u.reservedVersion === version);
    if (named.length === 0) {
      if ((await selectVersion(rc.db, assetId, version)).length > 0) throw new AppError("CONFLICT", ru.assets.versionHasContent(version));
      throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
    }
    if (!named.every(removable)) throw new AppError("CONFLICT", ru.assets.versionHasContent(version));
    targets = named;
  }
  if (targets.length === 0) return { dropped: 0, versions: [] };
  const [deleted] = await runBatch(rc.db, [
    deleteEmptyUploadsStatement(
      rc.db,
      targets.map((v) => v.id),
    ),
    // The values attached to a version that goes go with it (a reservation that began receiving meanwhile keeps its own).
    dropReservationValuesStatement(
      rc.db,
      targets.map((v) => v.id),
    ),
  ]);
  const rows = (Array.isArray(deleted) ? deleted : (deleted as { results?: unknown[] }).results ?? []) as { id: string }[];
  const gone = new Set(rows.map((r) => r.id));
  // An upload that failed after storing part of its bytes may have left an object behind: it goes too.
  await deleteUnreferencedObjects(
    rc,
    targets.filter((t) => gone.has(t.id)),
  );
  const versions = [...new Set(targets.filter((t) => gone.has(t.id)).map((t) => t.reservedVersion))].sort((a, b) => b - a);
  return { dropped: returnedRows(deleted), versions };
}
