import { ru } from "../../../shared/i18n/ru";
import { deletePendingVariantsStatement, insertVariantStatement } from "../../db/repositories/asset-versions.repository";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import type { AssetRow, VariantRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import {
  backendFor,
  commitUpload,
  fileFormatOf,
  maxUploadBytes,
  queueProcessing,
  storeStream,
  uploadCompleteOf,
  type UploadComplete,
  planAssetCreation,
  requireAsset,
} from "../library";
import { outsideHold, type Actor, type RequestContext } from "../access";
import { MAX_SINGLE_UPLOAD_BYTES } from "../storage/pure";
import { resolveEntityStorage } from "../storage";
import type { ChecksumHeaders } from "../storage";

/**
 * A small file in one request: the asset (or the new version of an existing one), its variant and its bytes, where
 * the create → create-version → PUT flow takes three. A pending variant row (invisible everywhere) comes first, then
 * the bytes; then ONE batch creates the asset and commits the version (commit-after-upload), so a failure at any
 * point leaves nothing visible, and nothing at all once cleaned up.
 */

export interface DirectUploadInput {
  /** a new asset in this folder … */
  in_group?: string;
  /** … or a new version of this asset */
  asset_id?: string;
  file_name: string;
  mime_type: string;
  asset_class?: string;
}

/** The largest body the one-request upload takes: the single-PUT limit (larger files go multipart). */
function directUploadLimit(rc: RequestContext): number {
  return Math.min(MAX_SINGLE_UPLOAD_BYTES, maxUploadBytes(rc));
}

function declaredLength(contentLength: string | undefined, limit: number): number {
  if (contentLength === undefined) throw new AppError("LENGTH_REQUIRED", ru.assets.lengthRequired);
  const text = contentLength.trim();
  const length = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(length)) throw new AppError("BAD_REQUEST", ru.assets.lengthRequired);
  if (length > limit) throw new AppError("PAYLOAD_TOO_LARGE", ru.apiContract.undeclaredTooLarge(limit));
  return length;
}

/**
 * Stores `body` (exactly Content-Length bytes) as a new asset in `in_group`, or as the newest version of `asset_id`,
 * and answers SPEC's upload-complete. Rights are those of the three calls it replaces: create on the folder for a new
 * asset, create on the asset for a new version.
 * @example await uploadInOneRequest(rc, actor, { in_group, file_name: "a.jpg", mime_type: "image/jpeg" }, { body, contentLength: "1024" })
 */
export async function uploadInOneRequest(
  rc: RequestContext,
  actor: Actor,
  input: DirectUploadInput,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | undefined; checksums?: ChecksumHeaders },
): Promise<UploadComplete> {
  const size = declaredLength(upload.contentLength, directUploadLimit(rc));
  if (!upload.body && size > 0) throw new AppError("BAD_REQUEST", ru.assets.bodyMissing);

  const now = Date.now();
  let asset: AssetRow;
  let before: Statement[] = [];
  if (input.asset_id) {
    asset = await requireAsset(rc, actor, input.asset_id, "create");
  } else {
    const plan = await planAssetCreation(rc, actor, [
      { asset_name: input.file_name, asset_mime: input.mime_type, in_group: input.in_group, asset_class: input.asset_class },
    ]);
    asset = plan.assets[0];
    before = plan.statements;
  }
  const storageId = input.asset_id ? (await resolveEntityStorage(rc, { type: "asset", id: asset.id })).id : asset.defaultStorage!;
  const variantId = newId(now);
  const variant = {
    id: variantId,
    assetId: asset.id,
    versionId: null,
    variantType: "initial",
    status: "pending",
    name: input.file_name,
    mimeType: input.mime_type,
    format: fileFormatOf(input.file_name),
    fileName: input.file_name,
    contentSize: size,
    storageId,
    storageKey: `assets/${asset.id}/${variantId}`,
    toGroup: null,
    userId: actor.id,
    ctime: now,
    partSize: null,
    progressAt: null,
  } satisfies Partial<VariantRow>;

  // The pending row goes first: should the Worker die between storing and committing, the upload housekeeping finds
  // the row (a day old, no multipart upload) and deletes it with the object under its key.
  await insertVariantStatement(rc.db, variant).run();
  const abandon = async (error: unknown): Promise<never> => {
    await (await backendFor(rc, variant.storageId)).delete([variant.storageKey]).catch(() => undefined);
    await runBatch(rc.db, [deletePendingVariantsStatement(rc.db, [variant.id])]).catch(() => undefined);
    throw error;
  };
  const sha256 = await outsideHold(rc, () => storeStream(rc, variant, size, upload.body, upload.checksums)).catch(abandon);
  const committed = await commitUpload(rc, {
    variant: variant as VariantRow,
    asset,
    sha256,
    size,
    from: "pending",
    before,
    landedIn: input.in_group ?? null,
  }).catch(abandon);
  if (committed.outcome === "already") throw new AppError("CONFLICT", ru.assets.alreadyUploaded);
  await queueProcessing(rc, variant, committed.version);
  return uploadCompleteOf(asset, variant as VariantRow, committed.version, sha256, size);
}
