import { ru } from "../../../shared/i18n/ru";
import { findUserById } from "../../db/repositories/user.repository";
import { findReadyVariant } from "../../db/repositories/asset-versions.repository";
import { DEFAULT_STORAGE_ID, returnedRows, runBatch } from "../../db/repositories/asset.repository";
import {
  deletePreviewsOfAssetsStatement,
  findAssetForPreview,
  findPreviewForAsset,
  healPreviewStatements,
  healedStageSql,
  previewsOfAssets,
  previewsOfVariants,
  replacePreviewStatements,
  sharedPreviewMaker,
} from "../../db/repositories/preview.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { signLink, verifyLink } from "../../lib/signed-url";
import { ownCandidateOfVersion, ownCandidatesOfLatest, putCandidateStatements } from "../../db/repositories/heal-candidate.repository";
import { canAccess, outsideHold, requireEntityAccess, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { r2Backend } from "../storage";
import { decode } from "../../lib/decoder";

/**
 * The preview sizes (SPEC §3 preview config): what GET /api/asset/preview-size answers, what clients render
 * before uploading, and what the processing pipeline will generate. Images fit inside width × height.
 */
export const PREVIEW_SIZES = [
  { name: "thumb", width: 320, height: 320, quality: 80 },
  { name: "medium", width: 1280, height: 1280, quality: 85 },
] as const;

export type PreviewSizeName = (typeof PREVIEW_SIZES)[number]["name"];
export const PREVIEW_SIZE_NAMES = PREVIEW_SIZES.map((s) => s.name) as [PreviewSizeName, ...PreviewSizeName[]];

/**
 * Previews only a browser makes (decision 029), kept out of the preview config (`preview-size`, the Worker's task):
 * `strip`, a video's hover-scrub sprite — `STRIP_FRAMES` frames side by side, each inside 160 × 160.
 */
export const STRIP_FRAMES = 10;
export const PREVIEW_KIND_NAMES = [...PREVIEW_SIZE_NAMES, "strip"] as [PreviewSizeName | "strip", ...(PreviewSizeName | "strip")[]];
export type PreviewKindName = (typeof PREVIEW_KIND_NAMES)[number];

/** The box each kind must fit in when a browser heals it (the SPEC sizes; the strip: ten 160 px frames). */
export const PREVIEW_BOUNDS: Record<PreviewKindName, { width: number; height: number }> = {
  ...(Object.fromEntries(PREVIEW_SIZES.map((s) => [s.name, { width: s.width, height: s.height }])) as Record<PreviewSizeName, { width: number; height: number }>),
  strip: { width: 160 * STRIP_FRAMES, height: 160 },
};

/** Image types a preview may have. */
export const PREVIEW_MIME_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif"] as const;
export type PreviewMimeType = (typeof PREVIEW_MIME_TYPES)[number];

/** Largest preview accepted: 5 MiB. */
export const PREVIEW_MAX_BYTES = 5 * 1024 * 1024;

/** How long a signed preview link stays valid at least; links are bucketed by the hour so URLs stay cacheable. */
const LINK_TTL_SECONDS = 3600;

/** R2 key of a preview's bytes: server-generated, never a user's file name. */
export function previewStorageKey(assetId: string, previewId: string): string {
  return `previews/${assetId}/${previewId}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Upload

type PreviewInsert = Parameters<typeof replacePreviewStatements>[1];

/** `image/PNG; charset=x` → `image/png`; null when not one of the preview types. */
export function previewMimeType(contentType: string | undefined | null): PreviewMimeType | null {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return (PREVIEW_MIME_TYPES as readonly string[]).includes(type) ? (type as PreviewMimeType) : null;
}

/** Reads a request body into memory, refusing with 413 as soon as it grows past `max` bytes. */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new AppError("PAYLOAD_TOO_LARGE", ru.catalog.previewTooLarge(max / 1024 / 1024));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export interface PreviewUpload {
  assetId: string;
  /** version number; omitted: the latest version (or the asset itself while it has none) */
  version?: number;
  size: PreviewKindName;
  /**
   * heal-on-view: `read` suffices, but only a missing preview is stored (a PDF's text card may be replaced once by
   * a page render); the image must fit the kind's box. Without it the caller needs `update` and replaces.
   */
  heal?: boolean;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Stores a client-made preview image for an asset version. Without `heal` it needs update on the asset and replaces
 * the previous one of that version and size; with `heal` (decision 029) `read` suffices and it is stored only when the
 * version has none of that size (409 otherwise), except that a PDF's text card gives way once to a page render.
 * Checks in order: asset (404/403), content type (415), size (413), then in the media Worker image bytes (400), pixels
 * (413), the kind's box when healing (400) and a GIF's frames (413).
 * The bytes go to R2 first, then one D1 batch swaps (or conditionally inserts) the row; replaced objects go afterwards.
 */
export async function uploadPreview(rc: RequestContext, actor: Actor, input: PreviewUpload) {
  const asset = await findAssetForPreview(rc.db, input.assetId, input.version ?? null);
  if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const level = input.heal ? "read" : "update";
  const ref = { id: input.assetId, type: "asset", ownerId: asset.owner_id } as const;
  await requireEntityAccess(rc, actor, ref, level, ru.assets.notFound);
  if (input.version !== undefined && !asset.version_id) throw new AppError("NOT_FOUND", ru.catalog.previewVersionNotFound(input.version));
  // A heal by someone without `update` is his alone until a user with `update` accepts it (decision 029, «Who sees
  // a heal»): what a reader posts never becomes what everyone else is shown.
  const pending = input.heal === true && !(await canAccess(rc, actor, ref, "update"));
  if (pending && !asset.version_id) throw new AppError("NOT_FOUND", ru.catalog.previewVersionNotFound(input.version ?? 0));

  const mime = previewMimeType(input.contentType);
  if (!mime) {
    await input.body?.cancel();
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", ru.catalog.previewType);
  }
  const declared = Number(input.contentLength);
  if (input.contentLength !== undefined && Number.isFinite(declared) && declared > PREVIEW_MAX_BYTES) {
    await input.body?.cancel();
    throw new AppError("PAYLOAD_TOO_LARGE", ru.catalog.previewTooLarge(PREVIEW_MAX_BYTES / 1024 / 1024));
  }
  const bytes = await outsideHold(rc, () => readCapped(input.body, PREVIEW_MAX_BYTES));
  if (bytes.length === 0) throw new AppError("BAD_REQUEST", ru.catalog.previewEmpty);
  // The checks parse the bytes: the media Worker runs them (decision 032), the 5 MiB cap above bounds what crosses.
  const box = input.heal || input.size === "strip" ? PREVIEW_BOUNDS[input.size] : null;
  const info = await decode(rc.env, (decoder) => decoder.previewImage(bytes, mime, box));

  const now = Date.now();
  const id = newId(now);
  const storageKey = previewStorageKey(input.assetId, id);
  const media = r2Backend(rc.env.MEDIA);
  await media.put(storageKey, bytes, { contentType: mime, size: bytes.length });
  const isPdf = asset.mime.split(";")[0].trim().toLowerCase() === "application/pdf";
  const row = {
    id,
    assetId: input.assetId,
    versionId: asset.version_id,
    size: input.size,
    mimeType: mime,
    width: info.width,
    height: info.height,
    contentSize: bytes.length,
    storageKey,
    // A healed PDF's picture is its first page: marked so no later healer replaces it (a card may be replaced once).
    maker: input.heal && isPdf && input.size !== "strip" ? "page" : "browser",
    madeBy: actor.id,
    acceptedBy: actor.id,
    ctime: now,
  };
  let replaced: { storageKey: string }[];
  try {
    if (pending && row.versionId) {
      await storePendingPreview(rc, { ...row, versionId: row.versionId }, isPdf && input.size !== "strip");
      return { preview_id: id, size: input.size, width: info.width, height: info.height, mime_type: mime, content_size: bytes.length, pending: true };
    }
    if (input.heal) {
      const stage = input.size === "thumb" && row.versionId ? [healedStageSql(row.versionId)] : [];
      const [dropped, inserted] = await runBatch(rc.db, [...healPreviewStatements(rc.db, row, isPdf && input.size !== "strip"), ...stage]);
      if (returnedRows(inserted) === 0) {
        await media.delete([storageKey]);
        throw new AppError("CONFLICT", ru.catalog.previewExists);
      }
      replaced = ((dropped.results ?? []) as { storage_key: string }[]).map((r) => ({ storageKey: r.storage_key }));
    } else {
      [replaced] = await rc.db.batch(replacePreviewStatements(rc.db, row));
    }
  } catch (error) {
    if (!(error instanceof AppError)) await media.delete([storageKey]);
    throw error;
  }
  if (replaced.length > 0) await media.delete(replaced.map((r) => r.storageKey));
  return { preview_id: id, size: input.size, width: info.width, height: info.height, mime_type: mime, content_size: bytes.length, pending: false };
}

/**
 * A pending heal of a picture (its bytes already in R2): refused with 409 when the version already shows one of
 * that kind to everyone (a PDF's text card excepted: a page render may still be proposed), else stored as the
 * maker's candidate, replacing his earlier one (whose object goes). Nothing changes for anyone else.
 */
async function storePendingPreview(
  rc: RequestContext,
  row: PreviewInsert & { versionId: string; madeBy: string },
  overCard: boolean,
): Promise<void> {
  const media = r2Backend(rc.env.MEDIA);
  const shared = await sharedPreviewMaker(rc.db, row.assetId, row.versionId, row.size);
  if (shared && !(overCard && shared.maker === "card")) {
    await media.delete([row.storageKey]);
    throw new AppError("CONFLICT", ru.catalog.previewExists);
  }
  const [dropped] = await runBatch(
    rc.db,
    putCandidateStatements({
      id: row.id!,
      assetId: row.assetId,
      versionId: row.versionId,
      kind: row.size as PreviewKindName,
      madeBy: row.madeBy,
      storageId: DEFAULT_STORAGE_ID,
      storageKey: row.storageKey,
      mimeType: row.mimeType,
      width: row.width ?? null,
      height: row.height ?? null,
      contentSize: row.contentSize,
      sha256: null,
      maker: row.maker ?? null,
      ctime: row.ctime,
    }),
  ).catch(async (error: unknown) => {
    await media.delete([row.storageKey]);
    throw error;
  });
  const stale = ((dropped.results ?? []) as { storage_key: string }[]).map((r) => r.storage_key);
  if (stale.length > 0) await media.delete(stale);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading and links

/**
 * The preview image to show for an asset version and size (the version's own, else the asset's version-less one),
 * for a caller who may read the asset; 404 when the asset is unknown or unreadable, or has no such preview.
 * `etag` is the preview id, so a client's If-None-Match is answered without reading R2.
 */
export async function findPreview(
  rc: RequestContext,
  actor: Actor,
  input: { assetId: string; version: number; size: PreviewKindName; variantId?: string | null },
) {
  const row = await findPreviewForAsset(rc.db, input.assetId, input.version, input.size);
  if (!row) throw new AppError("NOT_FOUND", ru.assets.notFound);
  await requireEntityAccess(rc, actor, { id: input.assetId, type: "asset", ownerId: row.owner_id }, "read", ru.assets.notFound);
  // A variant id names the version's preview: it must be a ready variant of that asset and version (0: any version).
  if (input.variantId) {
    const variant = await findReadyVariant(rc.db, input.variantId);
    if (!variant || variant.variant.assetId !== input.assetId || (input.version !== 0 && variant.version !== input.version)) {
      throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
    }
  }
  const shared = row.preview_id && row.storage_key && row.mime_type ? row : null;
  // Nothing shown to everyone (or only a PDF's text card): the caller's own pending heal, if he made one (decision
  // 029, «Who sees a heal») — his page render of a PDF is what he sees instead of the card, so he does not render again.
  if (!shared || shared.maker === "card") {
    const own = input.version > 0 ? await ownCandidateOfVersion(rc.db, input.assetId, input.version, input.size, actor.id) : undefined;
    if (own) return { id: own.id, etag: `"${own.id}"`, mimeType: own.mime_type, storageKey: own.storage_key, size: own.content_size, maker: own.maker, pending: true };
  }
  if (!row.preview_id || !row.storage_key || !row.mime_type) throw new AppError("NOT_FOUND", ru.catalog.previewNotFound);
  return {
    id: row.preview_id,
    etag: `"${row.preview_id}"`,
    mimeType: row.mime_type,
    storageKey: row.storage_key,
    size: row.content_size ?? 0,
    maker: row.maker,
    pending: false,
  };
}

/** The bytes of a preview found by `findPreview`; 404 if the object has gone. */
export async function readPreview(rc: RequestContext, storageKey: string) {
  const object = await r2Backend(rc.env.MEDIA).get(storageKey);
  if (!object?.body) throw new AppError("NOT_FOUND", ru.catalog.previewNotFound);
  return { ...object, body: object.body };
}

/**
 * A link to an asset's preview that works in `<img src>` without a bearer: a `play` link signed for the asset id
 * and the actor, valid one to two hours (bucketed by the hour so the URL, and the browser's cache of it, is
 * stable). `previewId` busts caches when the preview is replaced.
 * @example await previewUrl(rc, actor, { assetId, version: 2, size: "thumb", previewId })
 * // "/api/asset/content/preview/<assetId>/2/thumb?u=…&exp=…&sig=…&p=<previewId>"
 */
export async function previewUrl(
  rc: RequestContext,
  actor: Actor,
  input: { assetId: string; version: number; size?: PreviewKindName; previewId?: string | null },
  now = Date.now(),
): Promise<string> {
  const exp = (Math.floor(now / 1000 / LINK_TTL_SECONDS) + 2) * LINK_TTL_SECONDS;
  const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose: "play", id: input.assetId, userId: actor.id, exp }));
  if (input.previewId) params.set("p", input.previewId);
  return `/api/asset/content/preview/${input.assetId}/${input.version}/${input.size ?? "thumb"}?${params}`;
}

/**
 * The actor a signed `play` link for `assetId` stands for, or null when the link is invalid, expired, or its user
 * no longer exists or is disabled. The link only replaces the bearer: access is still checked for that user.
 */
export async function actorFromPlayLink(
  rc: RequestContext,
  assetId: string,
  params: { u?: string; exp?: string; sig?: string },
): Promise<Actor | null> {
  const userId = await verifyLink(rc.config.JWT_SECRET, "play", assetId, params);
  if (!userId) return null;
  const user = await findUserById(rc.db, userId);
  if (!user || !user.enabled) return null;
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

/**
 * Preview links for the latest version of each readable asset among `ids` (one query); unreadable and unknown ids
 * are left out, assets without a preview answer null.
 */
export async function previewsByAssets(rc: RequestContext, actor: Actor, ids: readonly string[], size: PreviewKindName = "thumb") {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await previewsOfAssets(rc.db, unique, size, await visibility(rc, actor));
  const byId = new Map(rows.map((r) => [r.asset_id, r]));
  // Files with nothing shared yet may hold the caller's own pending heal: shown to him alone.
  const bare = rows.filter((r) => !r.preview_id && r.version > 0).map((r) => r.asset_id);
  const own = new Map(bare.length > 0 ? (await ownCandidatesOfLatest(rc.db, bare, size, actor.id)).map((c) => [c.asset_id, c.id]) : []);
  const out: { asset_id: string; preview: string | null }[] = [];
  for (const id of unique) {
    const row = byId.get(id);
    if (!row) continue;
    const previewId = row.preview_id ?? own.get(id) ?? null;
    out.push({
      asset_id: id,
      preview: previewId ? await previewUrl(rc, actor, { assetId: id, version: row.version, size, previewId }) : null,
    });
  }
  return out;
}

/** Preview links for the versions of ready variants among `ids` whose assets the actor may read (one query). */
export async function previewsByVariants(rc: RequestContext, actor: Actor, ids: readonly string[], size: PreviewKindName = "thumb") {
  if (ids.length === 0) return [];
  const unique = [...new Set(ids)];
  const rows = await previewsOfVariants(rc.db, unique, size, await visibility(rc, actor));
  const byId = new Map(rows.map((r) => [r.variant_id, r]));
  const out: { variant_id: string; preview: string | null }[] = [];
  for (const id of unique) {
    const row = byId.get(id);
    if (!row) continue;
    out.push({
      variant_id: id,
      preview: row.preview_id
        ? await previewUrl(rc, actor, { assetId: row.asset_id, version: row.version, size, previewId: row.preview_id })
        : null,
    });
  }
  return out;
}

/**
 * Removes every preview of the given assets (rows, then R2 objects); for the asset purge. No access check: the
 * caller has already decided the assets go.
 */
export async function deletePreviewsOfAssets(rc: RequestContext, assetIds: readonly string[]): Promise<number> {
  if (assetIds.length === 0) return 0;
  const removed = await deletePreviewsOfAssetsStatement(rc.db, assetIds);
  if (removed.length > 0) await r2Backend(rc.env.MEDIA).delete(removed.map((r) => r.storageKey));
  return removed.length;
}
