import { z } from "zod";
import { ru } from "../../../shared/i18n/ru";
import { WAVEFORM_MAX_BUCKETS, roundPeaks, type Waveform } from "../../../shared/waveform";
import { DEFAULT_STORAGE_ID, returnedRows, runBatch } from "../../db/repositories/asset.repository";
import { ownCandidateOfVersion, putCandidateStatements } from "../../db/repositories/heal-candidate.repository";
import {
  findAssetForPreview,
  healPreviewStatements,
  healedStageSql,
  replacePreviewStatements,
  sharedPreviewMaker,
} from "../../db/repositories/preview.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { canAccess, requireEntityAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { r2Backend } from "../storage";
import { decode } from "../../lib/decoder";
import { PREVIEW_SIZES, previewStorageKey, type PreviewSizeName } from "./preview.service";

/** A waveform as posted by a browser (shared/waveform.ts): bounded buckets, each 0..1. */
export const WaveformSchema = z
  .object({
    version: z.literal(1),
    sampleRate: z.number().int().min(1).max(1_536_000),
    durationSec: z.number().min(0).max(1_000_000),
    peaks: z.array(z.number().min(0).max(1)).min(1).max(WAVEFORM_MAX_BUCKETS),
  });

/** R2 key of a version's waveform JSON: one per version, replaced in place. */
export function waveformStorageKey(assetId: string, versionId: string): string {
  return `waveforms/${assetId}/${versionId}.json`;
}

/** A waveform drawn as a PNG of a preview size, by the media Worker (decision 032: the API Worker links no encoder). */
interface WaveformPicture {
  bytes: Uint8Array;
  width: number;
  height: number;
}

function renderPicture(rc: RequestContext, waveform: Waveform, size: PreviewSizeName): Promise<WaveformPicture> {
  return decode(rc.env, (decoder) => decoder.waveformPng(waveform.peaks, size));
}

/** R2 key of a maker's pending waveform of a version (heal by a user without `update`): one per maker, replaced. */
function pendingWaveformKey(assetId: string, versionId: string, makerId: string): string {
  return `waveforms/${assetId}/${versionId}.pending.${makerId}.json`;
}

/**
 * A pending heal stored for its maker alone (decision 029, «Who sees a heal»): the object is written, then his
 * candidate row of that kind replaces his earlier one (whose object goes unless it is the same key).
 */
async function putPending(
  rc: RequestContext,
  input: { assetId: string; versionId: string; kind: "waveform" | PreviewSizeName; makerId: string; key: string; bytes: Uint8Array; mime: string; width?: number; height?: number },
): Promise<void> {
  const media = r2Backend(rc.env.MEDIA);
  await media.put(input.key, input.bytes, { contentType: input.mime, size: input.bytes.length });
  const now = Date.now();
  const [dropped] = await runBatch(
    rc.db,
    putCandidateStatements({
      id: newId(now),
      assetId: input.assetId,
      versionId: input.versionId,
      kind: input.kind,
      madeBy: input.makerId,
      storageId: DEFAULT_STORAGE_ID,
      storageKey: input.key,
      mimeType: input.mime,
      width: input.width ?? null,
      height: input.height ?? null,
      contentSize: input.bytes.length,
      sha256: null,
      maker: "browser",
      ctime: now,
    }),
  );
  const stale = ((dropped.results ?? []) as { storage_key: string }[]).map((r) => r.storage_key).filter((k) => k !== input.key);
  if (stale.length > 0) await media.delete(stale);
}

/** Stores a version's peaks JSON (rounded to 3 decimals). */
export async function storeWaveform(rc: RequestContext, assetId: string, versionId: string, waveform: Waveform): Promise<void> {
  const json = JSON.stringify({ ...waveform, peaks: roundPeaks(waveform.peaks) });
  await r2Backend(rc.env.MEDIA).put(waveformStorageKey(assetId, versionId), new TextEncoder().encode(json), {
    contentType: "application/json",
    size: new TextEncoder().encode(json).length,
  });
}

/**
 * Stores a generated preview (PNG of a waveform) for a version and size: the bytes in R2, then the `previews` row
 * swapped; the replaced object is deleted afterwards.
 */
export async function storeGeneratedPreview(
  rc: RequestContext,
  input: { assetId: string; versionId: string; size: PreviewSizeName; bytes: Uint8Array; width: number; height: number; mime: "image/png" | "image/jpeg" },
) {
  const info = { width: input.width, height: input.height };
  const now = Date.now();
  const id = newId(now);
  const key = previewStorageKey(input.assetId, id);
  const media = r2Backend(rc.env.MEDIA);
  await media.put(key, input.bytes, { contentType: input.mime, size: input.bytes.length });
  let replaced: { storageKey: string }[];
  try {
    [replaced] = await rc.db.batch(
      replacePreviewStatements(rc.db, {
        id,
        assetId: input.assetId,
        versionId: input.versionId,
        size: input.size,
        mimeType: input.mime,
        width: info.width,
        height: info.height,
        contentSize: input.bytes.length,
        storageKey: key,
        ctime: now,
      }),
    );
  } catch (error) {
    await media.delete([key]);
    throw error;
  }
  const stale = replaced.map((r) => r.storageKey).filter((k) => k !== key);
  if (stale.length > 0) await media.delete(stale);
  return info;
}

/**
 * A healer's waveform JSON: stored only when the version has none (an R2 conditional put, so of two healers
 * exactly one wins); false when one was already there.
 */
async function storeWaveformIfAbsent(rc: RequestContext, assetId: string, versionId: string, waveform: Waveform): Promise<boolean> {
  const json = new TextEncoder().encode(JSON.stringify({ ...waveform, peaks: roundPeaks(waveform.peaks) }));
  const stored = await rc.env.MEDIA.put(waveformStorageKey(assetId, versionId), json, {
    httpMetadata: { contentType: "application/json" },
    onlyIf: { etagDoesNotMatch: "*" },
  });
  return stored !== null;
}

/**
 * A healer's waveform picture: inserted only where the version has no preview of that size (a heal never replaces
 * one, decision 029); a stored thumb marks the version's preview stage done. Answers whether it was stored.
 */
async function healGeneratedPreview(
  rc: RequestContext,
  input: { assetId: string; versionId: string; size: PreviewSizeName; bytes: Uint8Array; width: number; height: number; makerId: string },
): Promise<{ width: number; height: number } | null> {
  const info = { width: input.width, height: input.height };
  const now = Date.now();
  const id = newId(now);
  const key = previewStorageKey(input.assetId, id);
  const media = r2Backend(rc.env.MEDIA);
  await media.put(key, input.bytes, { contentType: "image/png", size: input.bytes.length });
  const row = {
    id,
    assetId: input.assetId,
    versionId: input.versionId,
    size: input.size,
    mimeType: "image/png",
    width: info.width,
    height: info.height,
    contentSize: input.bytes.length,
    storageKey: key,
    maker: "browser",
    madeBy: input.makerId,
    acceptedBy: input.makerId,
    ctime: now,
  };
  try {
    const stage = input.size === "thumb" ? [healedStageSql(input.versionId)] : [];
    const [, inserted] = await runBatch(rc.db, [...healPreviewStatements(rc.db, row, false), ...stage]);
    if (returnedRows(inserted) > 0) return info;
  } catch (error) {
    await media.delete([key]);
    throw error;
  }
  await media.delete([key]);
  return null;
}

/**
 * A waveform a browser computed (MP3, AAC, OGG, FLAC: decodeAudioData) for a version of an asset. Without `heal`
 * it needs `update` (as uploading a preview) and replaces the stored peaks and the version's thumb and medium
 * previews (PNG). With `heal` (decision 029, heal on view) `read` suffices, but the peaks are stored only when the
 * version has none (409 otherwise) and their pictures only fill sizes the version lacks; the route rate-limits it.
 */
export async function acceptWaveform(
  rc: RequestContext,
  actor: Actor,
  input: { assetId: string; version?: number; waveform: Waveform; heal?: boolean },
) {
  const asset = await findAssetForPreview(rc.db, input.assetId, input.version ?? null);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const level = input.heal ? "read" : "update";
  await requireEntityAccess(rc, actor, { id: input.assetId, type: "asset", ownerId: asset.owner_id }, level, ru.assets.notFound);
  if (!asset.version_id) {
    if (input.version !== undefined) throw new AppError("NOT_FOUND", ru.catalog.previewVersionNotFound(input.version));
    throw new AppError("NOT_FOUND", ru.assets.notFound);
  }
  const versionId = asset.version_id;
  const ref = { id: input.assetId, type: "asset", ownerId: asset.owner_id } as const;
  if (input.heal && !(await canAccess(rc, actor, ref, "update"))) return pendingWaveform(rc, actor, { ...input, versionId });
  if (input.heal) {
    if (!(await storeWaveformIfAbsent(rc, input.assetId, versionId, input.waveform))) {
      throw new AppError("CONFLICT", ru.catalog.waveformExists);
    }
  } else {
    await storeWaveform(rc, input.assetId, versionId, input.waveform);
  }
  const previews: { size: PreviewSizeName; width: number; height: number }[] = [];
  for (const size of PREVIEW_SIZES) {
    const picture = await renderPicture(rc, input.waveform, size.name);
    const info = input.heal
      ? await healGeneratedPreview(rc, { assetId: input.assetId, versionId, size: size.name, ...picture, makerId: actor.id })
      : await storeGeneratedPreview(rc, { assetId: input.assetId, versionId, size: size.name, ...picture, mime: "image/png" });
    if (info) previews.push({ size: size.name, width: info.width, height: info.height });
  }
  return { buckets: input.waveform.peaks.length, previews, pending: false };
}

/**
 * A heal by a caller without `update`: the peaks and the pictures of sizes the version lacks are stored as his
 * pending candidates, seen by him alone until a user with `update` accepts them; 409 when the version already has
 * shared peaks (as for any heal).
 */
async function pendingWaveform(
  rc: RequestContext,
  actor: Actor,
  input: { assetId: string; versionId: string; waveform: Waveform },
) {
  if (await r2Backend(rc.env.MEDIA).head(waveformStorageKey(input.assetId, input.versionId))) {
    throw new AppError("CONFLICT", ru.catalog.waveformExists);
  }
  const json = new TextEncoder().encode(JSON.stringify({ ...input.waveform, peaks: roundPeaks(input.waveform.peaks) }));
  const base = { assetId: input.assetId, versionId: input.versionId, makerId: actor.id };
  await putPending(rc, { ...base, kind: "waveform", key: pendingWaveformKey(input.assetId, input.versionId, actor.id), bytes: json, mime: "application/json" });
  const previews: { size: PreviewSizeName; width: number; height: number }[] = [];
  for (const size of PREVIEW_SIZES) {
    if (await sharedPreviewMaker(rc.db, input.assetId, input.versionId, size.name)) continue;
    const { bytes, width, height } = await renderPicture(rc, input.waveform, size.name);
    const key = previewStorageKey(input.assetId, newId());
    await putPending(rc, { ...base, kind: size.name, key, bytes, mime: "image/png", width, height });
    previews.push({ size: size.name, width, height });
  }
  return { buckets: input.waveform.peaks.length, previews, pending: true };
}

/** The waveform of a version (0 or the latest number: the latest) for a caller who may read the asset; 404 without one. */
export async function readWaveform(rc: RequestContext, actor: Actor, assetId: string, version: number): Promise<Waveform> {
  const asset = await findAssetForPreview(rc.db, assetId, version === 0 ? null : version);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireEntityAccess(rc, actor, { id: assetId, type: "asset", ownerId: asset.owner_id }, "read", ru.assets.notFound);
  if (!asset.version_id) throw new AppError("NOT_FOUND", ru.catalog.waveformNotFound);
  const media = r2Backend(rc.env.MEDIA);
  let object = await media.get(waveformStorageKey(assetId, asset.version_id));
  if (!object?.body) {
    // None shared: the caller's own pending peaks, which only he is shown (decision 029, «Who sees a heal»).
    const own = await ownCandidateOfVersion(rc.db, assetId, version === 0 ? asset.latest_version : version, "waveform", actor.id);
    object = own ? await media.get(own.storage_key) : null;
  }
  if (!object?.body) throw new AppError("NOT_FOUND", ru.catalog.waveformNotFound);
  const parsed = WaveformSchema.safeParse(await new Response(object.body).json().catch(() => null));
  if (!parsed.success) throw new AppError("NOT_FOUND", ru.catalog.waveformNotFound);
  return parsed.data;
}
