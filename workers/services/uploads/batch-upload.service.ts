import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/asset.repository";
import {
  commitUploadStatements,
  deletePendingVariantsStatement,
  insertVariantStatement,
} from "../../db/repositories/asset-versions.repository";
import type { VariantRow } from "../../db/schema";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { TaskMessageInput } from "../../queue/messages";
import { backendFor, fileFormatOf, planAssetCreation, storeStream, uploadCompleteOf, type UploadComplete } from "../library";
import { fileAuditStatement, type Actor, type RequestContext } from "../access";
import { eventStatement } from "../events";
import { sortKeyOf } from "../library/pure";

/**
 * Many small files in one request (issue 13): a folder of a thousand notes or thumbnails is made of round trips, and
 * one request per file still spends most of its time on them. The batch is ONE operation: every file is stored (under
 * pending variant rows, as the one-request upload does), then one D1 batch creates all the assets and commits all
 * their versions, or, on any failure, nothing is committed and what was stored is deleted again.
 */

/** At most this many files per request (the UI sends 16; the limit keeps the commit batch well inside D1's). */
export const MAX_BATCH_FILES = 50;
/** At most this many bytes per request: the body is read into memory to split its parts. */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;
/** Files stored to R2 at once within one request. */
const STORE_PARALLEL = 8;

export interface BatchUploadFile {
  name: string;
  mime: string;
  body: Blob;
}

export interface BatchUploadTarget {
  in_group: string;
  asset_class?: string;
}

/** Refuses an undeclared or too large body before it is read (411 / 413). */
export function requireBatchLength(contentLength: string | undefined): void {
  if (contentLength === undefined) throw new AppError("LENGTH_REQUIRED", ru.assets.lengthRequired);
  const text = contentLength.trim();
  if (!/^\d{1,16}$/.test(text)) throw new AppError("BAD_REQUEST", ru.assets.lengthRequired);
  if (Number(text) > MAX_BATCH_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", ru.assets.batchTooLarge(MAX_BATCH_BYTES / (1024 * 1024)));
}

/** Runs `work` over `items`, `parallel` at a time; rejects with the first failure once every started call settled. */
async function eachLimited<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length && failures.length === 0) {
        const item = items[next++];
        await work(item).catch((error: unknown) => failures.push(error));
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
}

/**
 * Stores `files` as new assets in `target.in_group` (create right on it, as for /api/asset/create) and answers SPEC's
 * upload-complete of each, in the order given.
 * @example await uploadBatch(rc, actor, { in_group }, [{ name: "a.txt", mime: "text/plain", body: file }])
 */
export async function uploadBatch(
  rc: RequestContext,
  actor: Actor,
  target: BatchUploadTarget,
  files: readonly BatchUploadFile[],
): Promise<UploadComplete[]> {
  if (files.length === 0) throw new AppError("BAD_REQUEST", ru.assets.batchEmpty);
  if (files.length > MAX_BATCH_FILES) throw new AppError("BAD_REQUEST", ru.assets.tooMany(MAX_BATCH_FILES));
  const plan = await planAssetCreation(
    rc,
    actor,
    files.map((f) => ({ asset_name: f.name, asset_mime: f.mime, in_group: target.in_group, asset_class: target.asset_class })),
  );
  const now = Date.now();
  const entries = files.map((file, i) => {
    const asset = plan.assets[i];
    const variantId = newId(now);
    const variant: VariantRow = {
      id: variantId,
      assetId: asset.id,
      versionId: null,
      variantType: "initial",
      status: "pending",
      name: file.name,
      mimeType: file.mime,
      format: fileFormatOf(file.name),
      fileName: file.name,
      contentSize: file.body.size,
      sha256: null,
      hashState: null,
      storageId: asset.defaultStorage!,
      storageKey: `assets/${asset.id}/${variantId}`,
      previewStorageId: null,
      metadataStorageId: null,
      techFields: null,
      techProps: null,
      toGroup: null,
      userId: actor.id,
      ctime: now,
      uploadId: null,
      partSize: null,
      hashOffset: null,
      progressAt: null,
      reservedVersion: null,
      madeBy: null,
      acceptedBy: null,
    };
    return { file, asset, variant, versionId: newId(now), sha256: "" };
  });

  // Pending rows first: should the Worker die while storing, the upload housekeeping finds them (a day old, no
  // multipart upload) and deletes them with the objects under their keys.
  await runBatch(
    rc.db,
    entries.map((e) => insertVariantStatement(rc.db, e.variant)),
  );
  const abandon = async (error: unknown): Promise<never> => {
    for (const storageId of new Set(entries.map((e) => e.variant.storageId))) {
      const keys = entries.filter((e) => e.variant.storageId === storageId).map((e) => e.variant.storageKey);
      await (await backendFor(rc, storageId)).delete(keys).catch(() => undefined);
    }
    await runBatch(rc.db, [
      deletePendingVariantsStatement(
        rc.db,
        entries.map((e) => e.variant.id),
      ),
    ]).catch(() => undefined);
    throw error;
  };

  await eachLimited(entries, STORE_PARALLEL, async (e) => {
    e.sha256 = await storeStream(rc, e.variant, e.file.body.size, e.file.body.stream());
  }).catch(abandon);

  const variantIds = entries.map((e) => e.variant.id);
  const results = await runBatch(rc.db, [
    ...plan.statements,
    ...entries.flatMap((e) =>
      commitUploadStatements(rc.db, {
        versionId: e.versionId,
        assetId: e.asset.id,
        variantId: e.variant.id,
        userId: actor.id,
        sha256: e.sha256,
        size: e.file.body.size,
        toGroup: null,
        sortName: sortKeyOf(e.asset.name),
        now,
        from: "pending",
      }),
    ),
    eventStatement(
      rc,
      entries.map((e) => ({
        type: "asset.uploaded",
        entityType: "asset" as const,
        entityId: e.asset.id,
        ownerId: actor.id,
        actorId: actor.id,
        data: { group_id: target.in_group, variant_id: e.variant.id, mime_type: e.variant.mimeType, size: e.file.body.size },
      })),
    ),
    fileAuditStatement(rc, {
      actorId: actor.id,
      verb: "upload",
      targets: entries.map((e) => ({
        type: "asset" as const,
        id: e.asset.id,
        name: e.asset.name,
        folderId: target.in_group,
        details: { size: e.file.body.size, mime_type: e.variant.mimeType },
      })),
    }),
    sql`select count(*) as ready from variants where id in (select value from json_each(${JSON.stringify(
      variantIds,
    )})) and status = 'ready'`,
  ]).catch(abandon);
  // The rows were made by this request a moment ago, so every commit lands; anything else is a broken invariant.
  const ready = (results[results.length - 1].results as { ready: number }[] | undefined)?.[0]?.ready;
  if (ready !== entries.length) throw new Error(`batch upload committed ${ready} of ${entries.length} variants`);

  await rc.env.TASKS.sendBatch(
    entries.map((e) => ({
      body: { op: "process-variant", variantId: e.variant.id, assetId: e.asset.id, version: 1 } satisfies TaskMessageInput,
    })),
  );
  return entries.map((e) => uploadCompleteOf(e.asset, e.variant, 1, e.sha256, e.file.body.size));
}
