import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import {
  returnedRows,
  findAsset,
  firstFolderOf,
  purgeAssetsStatements,
  runBatch,
  selectAssetObjects,
  unreferencedKeys,
} from "../../db/repositories/asset.repository";
import {
  findReadyVariant,
  findReadyVariantOfType,
  selectReadyVariants,
  type ReadyVariant,
} from "../../db/repositories/asset-versions.repository";
import { findUserById } from "../../db/repositories/user.repository";
import { noLibrarySwitched, openLibraryShard, switchedLibraries } from "../../db/library-directory";
import { callShard } from "../../db/library-shard-call";
import { contentsOf } from "../../db/repositories/search.repository";
import { findCandidateById, ownCandidateOfVersion, type CandidateSqlRow } from "../../db/repositories/heal-candidate.repository";
import type { AssetRow, VariantType } from "../../db/schema/index";
import { VARIANT_TYPES } from "../../db/schema/index";
import { contentDisposition } from "../../lib/content-disposition";
import { AppError } from "../../lib/errors";
import { contentRange, ifNoneMatch, ifRangeAllows, parseRange, unsatisfiedRange } from "../../lib/http-range";
import { signLink, verifyLink, type SignedPurpose } from "../../lib/signed-url";
import { canAccess, fileAuditStatement, onShard } from "../access";
import { MAX_SINGLE_UPLOAD_BYTES } from "../storage/pure";
import { requireOnAsset } from "./asset.service";
import { SCREEN_VARIANT_TYPES, variantLevel } from "./variant-level";
import type { Actor, RequestContext } from "../access";
import type { StorageBackend } from "../storage";
import { getStorageBackend } from "../storage";

/**
 * The bytes of assets: single-PUT uploads with commit-after-upload, downloads and media streaming with ranges,
 * signed links, and deleting objects nobody references any more. Storage is reached only through `backendFor`.
 * Taking bytes in is asset-upload.service.ts; committing them as a version, asset-commit.service.ts.
 */

export { MAX_SINGLE_UPLOAD_BYTES };
/** Lifetime of an upload link. */
export const UPLOAD_LINK_TTL_SECONDS = 3600;
/** Lifetime of a play (streaming) link: long enough to watch a film with pauses. */
export const PLAY_LINK_TTL_SECONDS = 6 * 3600;
/** Lifetime of a signed download link. */
export const DOWNLOAD_LINK_TTL_SECONDS = 3600;
/** The best viewable rendition first (asset-proxy-doc, play without a variant type). */
export const VIEWABLE_ORDER: readonly VariantType[] = ["proxy_lowres", "proxy_highres", "master", "initial", "watermarked", "untyped"];

/** Types a browser would render as an active document: never served inline from our origin. */
const ACTIVE_CONTENT = /html|xml|svg|javascript|ecmascript|x-shockwave-flash|text\/cache-manifest/i;

/**
 * The one place that turns a storage id into a backend: the R2 binding for the default storage, an S3-compatible
 * client (credentials decrypted) for external storages.
 */
export function backendFor(rc: RequestContext, storageId: string): Promise<StorageBackend> {
  return getStorageBackend(rc, storageId);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The signed query (`u`, `exp`, `sig`) of a link; anything missing fails verification (403). */
export interface SignedParams {
  u?: string;
  exp?: string;
  sig?: string;
}

/**
 * The user a signed link was issued to, re-checked now: the signature must be valid for this purpose and object
 * and unexpired, and the user must still exist and be enabled. Any failure is the same 403.
 */
export async function linkActor(rc: RequestContext, purpose: SignedPurpose, id: string, params: SignedParams): Promise<Actor> {
  return linkUser(rc, await verifyLink(rc.config.JWT_SECRET, purpose, id, params));
}

/** The enabled user a link is for, as its actor (any failure is the same 403). */
export async function linkUser(rc: RequestContext, userId: string | null | undefined): Promise<Actor> {
  const user = userId ? await findUserById(rc.db, userId) : undefined;
  if (!user || !user.enabled) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

export async function signedQuery(rc: RequestContext, purpose: SignedPurpose, id: string, userId: string, ttlSeconds: number) {
  const exp = nowSeconds() + ttlSeconds;
  const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose, id, userId, exp }));
  return { params, expire: new Date(exp * 1000).toISOString() };
}

// ---------------------------------------------------------------------------------------------------------------
// Serving bytes

/** Who asks for bytes: a signed-in actor (bearer), or a signed link of a purpose. */
export type ContentCredential = { actor: Actor } | { link: SignedParams; purpose: "download" | "play" };

/** The request headers that shape a content answer, and the disposition wanted. */
export interface ContentRequest {
  range?: string | null;
  ifNoneMatch?: string | null;
  ifRange?: string | null;
  disposition?: "attachment" | "inline";
}

/** A version in a download path: a number, or the latest. */
export type VersionSelector = number | "latest";

/**
 * Streams a ready variant: 200 or 206 (one byte range), 304 for a matching If-None-Match, 416 for a malformed or
 * unsatisfiable Range. Bodies stream straight from storage (never buffered). User content is served with
 * `nosniff` and a sandboxing CSP, and active types (HTML, SVG, XML …) are always attachments, so a file can never run
 * script on our origin.
 */
export async function serveVariant(rc: RequestContext, row: ReadyVariant, req: ContentRequest): Promise<Response> {
  const v = row.variant;
  const size = v.contentSize;
  const etag = `"${v.sha256 ?? v.id}"`;
  const lastModified = row.versionCtime;
  const inline = req.disposition === "inline" && !ACTIVE_CONTENT.test(v.mimeType);
  const headers = new Headers({
    ETag: etag,
    "Last-Modified": new Date(lastModified).toUTCString(),
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, no-cache",
    "Content-Disposition": contentDisposition(v.fileName, inline ? "inline" : "attachment"),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Referrer-Policy": "no-referrer",
  });
  if (ifNoneMatch(req.ifNoneMatch, etag)) return new Response(null, { status: 304, headers });

  let range = parseRange(req.range, size);
  if (range.kind === "unsatisfiable") {
    throw new AppError("RANGE_NOT_SATISFIABLE", ru.assets.rangeNotSatisfiable, {
      "Content-Range": unsatisfiedRange(size),
      "Accept-Ranges": "bytes",
    });
  }
  if (range.kind === "range" && !ifRangeAllows(req.ifRange, etag, lastModified)) range = { kind: "none" };

  const backend = await backendFor(rc, v.storageId);
  const object = await backend.get(v.storageKey, range.kind === "range" ? { offset: range.offset, length: range.length } : undefined);
  if (!object?.body) {
    console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "variant bytes missing", variant: v.id }));
    throw new AppError("NOT_FOUND", ru.assets.contentMissing);
  }
  headers.set("Content-Type", v.mimeType);
  if (range.kind === "range") {
    headers.set("Content-Range", contentRange(range.offset, range.end, size));
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(size));
  return new Response(object.body, { status: 200, headers });
}

/**
 * The level a variant needs, checked on its asset: an original needs `download`; a screen rendition `read`, or
 * `download` (whoever may take the original may take its copy). 404 when the caller holds neither on the file, 403
 * when they may read it but the variant is an original.
 */
async function requireVariantLevel(rc: RequestContext, actor: Actor, asset: AssetRow, type: VariantType, notFound?: string) {
  const level = variantLevel(type);
  if (level === "read" && (await mayDownload(rc, actor, asset))) return;
  await requireOnAsset(rc, actor, asset, level, notFound);
}

const mayDownload = (rc: RequestContext, actor: Actor, asset: AssetRow) =>
  canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "download");

/** A live asset the caller reads or may download (`download` alone fetches bytes by id, decision 007); else 404. */
async function requireSeenAsset(rc: RequestContext, actor: Actor, assetId: string): Promise<AssetRow> {
  const asset = await findAsset(rc.db, assetId);
  if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  if (await mayDownload(rc, actor, asset)) return asset;
  await requireOnAsset(rc, actor, asset, "read");
  return asset;
}

/** A ready variant the actor may fetch (`requireVariantLevel`); a variant they cannot see is missing (404). */
async function requireVariantAccess(rc: RequestContext, actor: Actor, variantId: string, assetId?: string) {
  const row = await findReadyVariant(rc.db, variantId);
  const asset = row && (assetId === undefined || row.variant.assetId === assetId) ? await findAsset(rc.db, row.variant.assetId) : undefined;
  if (!row || !asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  await requireVariantLevel(rc, actor, asset, row.variant.variantType, ru.assets.variantNotFound);
  return { row, asset };
}

/** The level a link's variant needs, for the user it was signed for: download, or read for a screen rendition. */
async function requireLinkLevel(rc: RequestContext, actor: Actor, row: ReadyVariant, asset: AssetRow): Promise<void> {
  const allowed =
    (await mayDownload(rc, actor, asset)) ||
    (variantLevel(row.variant.variantType) === "read" &&
      (await canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read")));
  if (!allowed) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
}

/**
 * Serves a variant and, when the answer is a download (an attachment, its first bytes: a resumed range is the same
 * download), records `asset.download` for the file before the bytes flow, so a download the client cancels
 * halfway is still counted and an answer that failed is not. One write per download; views and players (inline)
 * write nothing.
 */
async function serveCounted(
  rc: RequestContext,
  actorId: string,
  asset: DownloadedFile,
  row: ReadyVariant,
  req: ContentRequest,
): Promise<Response> {
  const response = await serveVariant(rc, row, req);
  // 206 from byte 0 opens a download (a download manager's first range); a later range continues one
  const firstBytes =
    response.status === 200 || (response.status === 206 && response.headers.get("Content-Range")?.startsWith("bytes 0-") === true);
  if (req.disposition === "attachment" && firstBytes) {
    await rc.db.run(
      fileAuditStatement(rc, {
        actorId,
        verb: "download",
        targets: { type: "asset", id: asset.id, name: asset.name, folderId: asset.folderId },
        details: { version: row.version, variant: row.variant.variantType },
      }),
    );
  }
  return response;
}

function isVariantType(value: string): value is VariantType {
  return (VARIANT_TYPES as readonly string[]).includes(value);
}

/** The ready variant a download path names in a file's version: a variant type (its newest ready one) or a variant id. */
async function downloadVariant(rc: RequestContext, asset: AssetRow, version: VersionSelector, selector: string) {
  const number = version === "latest" ? asset.latestVersion : version;
  if (number <= 0) return undefined;
  if (isVariantType(selector)) return findReadyVariantOfType(rc.db, asset.id, number, selector);
  const row = await findReadyVariant(rc.db, selector);
  return row && row.variant.assetId === asset.id && row.version === number ? row : undefined;
}

/** What a download resolves to: the file (for its audit entry) and the ready variant whose bytes are served. */
export interface Download {
  asset: DownloadedFile;
  row: ReadyVariant;
}

type DownloadedFile = Pick<AssetRow, "id" | "name"> & { folderId?: string };

/**
 * The file as its download's audit entry names it. Read in a library's shard, with its folder: the entry is written
 * in the catalog, whose own lookup of the folder reads its copy of the library (decision 051 deletes it).
 */
async function downloadedFile(rc: RequestContext, asset: AssetRow): Promise<DownloadedFile> {
  return { id: asset.id, name: asset.name, folderId: onShard(rc) ? await firstFolderOf(rc.db, asset.id) : undefined };
}

/**
 * A bearer's `GET /content/download/{id}/{version}/{variant}` resolved where the file's library lives (a routed read):
 * download on the file, or `read` for a screen rendition (404 when the caller cannot read it, 403 for an original he
 * may only read). The bytes are served in the Worker (`serveDownload`).
 */
export async function resolveDownload(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  version: VersionSelector,
  selector: string,
): Promise<Download> {
  const asset = await requireSeenAsset(rc, actor, assetId);
  const row = await downloadVariant(rc, asset, version, selector);
  if (!row) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  await requireVariantLevel(rc, actor, asset, row.variant.variantType);
  return { asset: await downloadedFile(rc, asset), row };
}

/** Serves a resolved download as an attachment (unless asked otherwise), counted as `asset.download` for `actorId`. */
/**
 * A bearer's `GET /content/download-variant/{variantId}?a=…` resolved where file `assetId`'s library lives (a routed
 * read): the variant of that file and the caller's level for it; `serveDownload` serves it.
 */
export async function variantDownload(rc: RequestContext, actor: Actor, assetId: string, variantId: string): Promise<Download> {
  const { row, asset } = await requireVariantAccess(rc, actor, variantId, assetId);
  return { asset: await downloadedFile(rc, asset), row };
}

export function serveDownload(rc: RequestContext, actorId: string, download: Download, req: ContentRequest): Promise<Response> {
  return serveCounted(rc, actorId, download.asset, download.row, { ...req, disposition: req.disposition ?? "attachment" });
}

/**
 * `GET /content/download/{id}/{version}/{variant}` through a signed download link, resolved where the file's library
 * lives (a routed read): the link must be signed for the resolved variant and for `by`, the user it names (found in
 * the Worker: a global row), who must still hold its level (403 otherwise, whatever is missing). The Worker serves
 * the bytes (`serveDownload`), as for a bearer's `resolveDownload`.
 */
export async function linkedDownload(
  rc: RequestContext,
  by: Actor,
  assetId: string,
  version: VersionSelector,
  selector: string,
  link: SignedParams,
): Promise<Download> {
  const asset = await findAsset(rc.db, assetId);
  const row = asset && asset.deletedAt == null ? await downloadVariant(rc, asset, version, selector) : undefined;
  if (!row || !asset || (await verifyLink(rc.config.JWT_SECRET, "download", row.variant.id, link)) !== by.id) {
    throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  }
  await requireLinkLevel(rc, by, row, asset);
  return { asset: await downloadedFile(rc, asset), row };
}

/**
 * `GET /content/download-variant/{variantId}` (bearer or signed download link) and `GET /content/stream/{variantId}`
 * (signed play link; inline unless `disposition` says attachment).
 */
export async function variantContent(
  rc: RequestContext,
  credential: ContentCredential,
  variantId: string,
  req: ContentRequest,
): Promise<Response> {
  if ("actor" in credential) {
    const { row, asset } = await requireVariantAccess(rc, credential.actor, variantId);
    return serveCounted(rc, credential.actor.id, asset, row, { ...req, disposition: req.disposition ?? "attachment" });
  }
  const by = await linkActor(rc, credential.purpose, variantId, credential.link);
  return serveLinked(rc, by.id, await linkedVariant(rc, by, variantId, credential.purpose), credential.purpose, req);
}

/** What a signed link's variant resolves to: a ready variant of a file, or its maker's own pending proxy. */
export type LinkedVariant = { kind: "ready"; download: Download } | { kind: "pending"; row: ReadyVariant };

/**
 * The variant a link signed for `by` names, checked now (any failure is the same 403): a ready variant of a live file
 * `by` may still fetch, or — for a play link — his own pending proxy while he may read the file. `assetId`: the file
 * the link says it is of (which routes it to the file's library); a variant of another file is refused. Read where the
 * file's library lives (a routed read); `serveLinked` serves it.
 */
export async function linkedVariant(
  rc: RequestContext,
  by: Actor,
  variantId: string,
  purpose: "download" | "play",
  assetId?: string,
): Promise<LinkedVariant> {
  const row = await findReadyVariant(rc.db, variantId);
  if (!row && purpose === "play") {
    const pending = await pendingProxyOf(rc, by, variantId);
    if (pending && (assetId === undefined || pending.variant.assetId === assetId)) return { kind: "pending", row: pending };
  }
  const mine = row && (assetId === undefined || row.variant.assetId === assetId);
  const asset = mine ? await findAsset(rc.db, row.variant.assetId) : undefined;
  if (!row || !asset || asset.deletedAt != null) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  await requireLinkLevel(rc, by, row, asset);
  return { kind: "ready", download: { asset: await downloadedFile(rc, asset), row } };
}

/** Serves what a link resolved to, inline for a play link unless asked otherwise; a download is counted. */
export function serveLinked(
  rc: RequestContext,
  byId: string,
  linked: LinkedVariant,
  purpose: "download" | "play",
  req: ContentRequest,
): Promise<Response> {
  const disposition = req.disposition ?? (purpose === "play" ? "inline" : "attachment");
  if (linked.kind === "pending") return serveVariant(rc, linked.row, { ...req, disposition });
  return serveCounted(rc, byId, linked.download.asset, linked.download.row, { ...req, disposition });
}

/**
 * A pending proxy (decision 029, «Who sees a heal») shaped as a ready variant so it streams like one. Only its maker
 * is ever handed it: by `play` when nothing is shared yet, and through a play link signed for him.
 */
function candidateAsVariant(c: CandidateSqlRow & { version: number }, asset: AssetRow): ReadyVariant {
  const fileName = ru.videoProxy.fileName(asset.name.replace(/\.[^.]*$/, ""), c.mime_type === "video/mp4" ? "mp4" : "webm");
  return {
    variant: {
      id: c.id,
      assetId: c.asset_id,
      versionId: c.version_id,
      variantType: "proxy_lowres",
      status: "ready",
      name: fileName,
      mimeType: c.mime_type,
      format: null,
      fileName,
      contentSize: c.content_size,
      sha256: c.sha256,
      storageId: c.storage_id,
      storageKey: c.storage_key,
      previewStorageId: null,
      metadataStorageId: null,
      techFields: null,
      techProps: { maker: "browser-heal", pending: true },
      toGroup: null,
      userId: c.made_by,
      ctime: c.ctime,
      uploadId: null,
      partSize: null,
      hashState: null,
      hashOffset: null,
      progressAt: null,
      reservedVersion: null,
      madeBy: c.made_by,
      acceptedBy: null,
    },
    versionId: c.version_id,
    version: c.version,
    versionDesc: null,
    versionUser: c.made_by,
    versionCtime: c.ctime,
  };
}

/** A play link's pending proxy: only for the user the link was signed for, its maker, while he may still read the file. */
async function pendingProxyOf(rc: RequestContext, actor: Actor, candidateId: string): Promise<ReadyVariant | null> {
  const candidate = await findCandidateById(rc.db, candidateId);
  if (!candidate || candidate.kind !== "proxy") return null;
  const asset = await findAsset(rc.db, candidate.asset_id);
  if (!asset || asset.deletedAt != null || actor.id !== candidate.made_by) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  if (!(await canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read"))) {
    throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  }
  return candidateAsVariant(candidate, asset);
}

/** A play link to the maker's own pending proxy (answered by `upload-proxy?heal=true` to a caller without update). */
export async function pendingProxyPlayLink(rc: RequestContext, actor: Actor, assetId: string, candidateId: string): Promise<PlayResult> {
  return signPlay(rc, actor, assetId, candidateId);
}

// ---------------------------------------------------------------------------------------------------------------
// Signed links

/** SPEC §3 Play result. */
export interface PlayResult {
  /** root-relative unless the caller resolves it against its origin */
  link: string;
  expire: string;
  range: true;
}

/**
 * A play link to a variant of file `assetId`. The file's id rides along unsigned (`a`): it says which library the link
 * is read in, and a link naming another file than its variant's is refused.
 */
async function signPlay(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  variantId: string,
  disposition?: "attachment" | "inline",
): Promise<PlayResult> {
  const { params, expire } = await signedQuery(rc, "play", variantId, actor.id, PLAY_LINK_TTL_SECONDS);
  params.set("a", assetId);
  if (disposition === "attachment") params.set("disposition", "attachment");
  return { link: `/api/asset/content/stream/${variantId}?${params}`, expire, range: true };
}

/**
 * A signed, expiring link (6 hours) to a variant's bytes for players (`<video src>`, seeking with Range) or, with
 * `disposition: "attachment"`, for download buttons. Needs download on the asset.
 * @example const { link } = await playLink(rc, actor, variantId) // "/api/asset/content/stream/…?u=…&exp=…&sig=…"
 */
export async function playLink(
  rc: RequestContext,
  actor: Actor,
  variantId: string,
  disposition?: "attachment" | "inline",
  /** the file the caller says it is of (which placed the read): a variant of another file is not found */
  assetId?: string,
): Promise<PlayResult> {
  const { asset } = await requireVariantAccess(rc, actor, variantId, assetId);
  return signPlay(rc, actor, asset.id, variantId, disposition);
}

/** A signed download link (1 hour) to `GET /content/download-variant/{variantId}`. Needs download on the asset. */
export async function downloadLink(rc: RequestContext, actor: Actor, variantId: string): Promise<{ link: string; expire: string }> {
  const { asset } = await requireVariantAccess(rc, actor, variantId);
  const { params, expire } = await signedQuery(rc, "download", variantId, actor.id, DOWNLOAD_LINK_TTL_SECONDS);
  params.set("a", asset.id);
  return { link: `/api/asset/content/download-variant/${variantId}?${params}`, expire };
}

/**
 * The variant to show of one version: of the type asked for, else the most viewable one the actor may fetch (a
 * caller with only `read` gets a screen rendition; none is a 403 naming the download level).
 */
async function pickVariant(
  rc: RequestContext,
  actor: Actor,
  asset: AssetRow,
  version: VersionSelector | undefined,
  type: VariantType | undefined,
) {
  const number = version === undefined || version === "latest" ? asset.latestVersion : version;
  if (number === 0) throw new AppError("NOT_FOUND", ru.assets.noContent);
  const rows = await selectReadyVariants(rc.db, asset.id, number);
  if (rows.length === 0) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  const original = await mayDownload(rc, actor, asset);
  const order = original ? VIEWABLE_ORDER : SCREEN_VARIANT_TYPES;
  // Nothing shared to play yet: the caller's own pending proxy, which only he is shown (decision 029).
  const ownProxy =
    (type === undefined || type === "proxy_lowres") && !rows.some((r) => r.variant.variantType === "proxy_lowres")
      ? await ownCandidateOfVersion(rc.db, asset.id, number, "proxy", actor.id)
      : undefined;
  if (ownProxy) return candidateAsVariant({ ...ownProxy, version: number }, asset);
  const pick = type
    ? rows.find((r) => r.variant.variantType === type)
    : order.map((t) => rows.find((r) => r.variant.variantType === t)).find(Boolean);
  if (!pick) {
    if (!type && !original) throw new AppError("FORBIDDEN", ru.assets.screenCopyMissing);
    throw new AppError("NOT_FOUND", type ? ru.assets.variantNotFound : ru.assets.noViewable);
  }
  if (!original && variantLevel(pick.variant.variantType) === "download") await requireOnAsset(rc, actor, asset, "download");
  return pick;
}

/** `POST /content/play/{id}`: a play link to a version (latest by default) and variant type (most viewable by default). */
export async function playAsset(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  opts: { version?: VersionSelector; variant_type?: VariantType; disposition?: "attachment" | "inline" } = {},
): Promise<PlayResult> {
  const asset = await requireSeenAsset(rc, actor, assetId);
  const pick = await pickVariant(rc, actor, asset, opts.version, opts.variant_type);
  return signPlay(rc, actor, asset.id, pick.variant.id, opts.disposition);
}

export interface ProxyDoc {
  variant_id: string;
  mime_type: string;
  variant_type: VariantType;
  link: string;
  expire: string;
}

/** The best viewable rendition of a version (proxy_lowres, proxy_highres, master, initial …) with a play link. */
export async function proxyDoc(rc: RequestContext, actor: Actor, assetId: string, version: VersionSelector): Promise<ProxyDoc> {
  const asset = await requireSeenAsset(rc, actor, assetId);
  const pick = await pickVariant(rc, actor, asset, version, undefined);
  const { link, expire } = await signPlay(rc, actor, asset.id, pick.variant.id);
  return { variant_id: pick.variant.id, mime_type: pick.variant.mimeType, variant_type: pick.variant.variantType, link, expire };
}

// ---------------------------------------------------------------------------------------------------------------
// Deleting bytes

/**
 * Deletes the objects of these (storage, key) pairs that no variant or preview references any more, leaving out the
 * rows of `exceptAssets` (assets being purged, whose rows go after their bytes). Copies share objects (copy-on-write),
 * so this check is what keeps a purge of one asset from destroying another's bytes. Each storage is reached through
 * its own backend (R2, or an external S3 bucket); a backend that fails throws, so the caller keeps its rows.
 */
export async function deleteUnreferencedObjects(
  rc: RequestContext,
  objects: readonly { storageId: string; storageKey: string }[],
  exceptAssets: readonly string[] = [],
): Promise<number> {
  const byStorage = new Map<string, string[]>();
  for (const o of objects) byStorage.set(o.storageId, [...(byStorage.get(o.storageId) ?? []), o.storageKey]);
  let deleted = 0;
  for (const [storageId, keys] of byStorage) {
    const orphans = await unreferencedAnywhere(rc, storageId, [...new Set(keys)], exceptAssets);
    if (orphans.length === 0) continue;
    await (await backendFor(rc, storageId)).delete(orphans);
    deleted += orphans.length;
  }
  return deleted;
}

/**
 * Which of these keys of a storage no file in any library references, leaving out `exceptAssets`: the rows where the
 * work runs first, then — over a library's shard — the catalog's for other libraries' files, then every other library
 * that lives in its shard, asked side by side: a copy made into any library shares the bytes (copy-on-write), and its
 * own rows are in its shard, whatever the catalog's copy of them says (decision 051, step 2.4). A shard that does not
 * answer throws: the bytes and the rows stay for a later try.
 */
async function unreferencedAnywhere(rc: RequestContext, storageId: string, keys: string[], exceptAssets: readonly string[]) {
  let orphans = await unreferencedKeys(rc.db, storageId, keys, exceptAssets);
  if (rc.library && orphans.length > 0)
    orphans = await unreferencedKeys(rc.dbSession.db, storageId, orphans, exceptAssets, { outside: rc.library });
  if (orphans.length === 0 || (!rc.library && noLibrarySwitched())) return orphans;
  const others = (await switchedLibraries(rc.env.DB)).filter((place) => place.library !== rc.library);
  const referenced = await Promise.all(
    others.map(async (place) => {
      const shard = await openLibraryShard(rc.env, place);
      const value = () => shard.referencedKeys(storageId, orphans, [...exceptAssets]);
      return callShard(place.name, async () => ({ ok: true as const, value: await value() }), rc.dbSession?.meter);
    }),
  );
  const still = new Set(referenced.flat());
  return orphans.filter((key) => !still.has(key));
}

/** Assets purged per D1 batch. */
const PURGE_BATCH = 500;

/**
 * Deletes assets for good: first the bytes of their variants and previews that no other asset references (on every
 * storage they are on), then in one batch per 500 assets the rows (assets, versions, variants, previews, tag links,
 * memberships). Bytes go first so a failure leaves rows a retry finds again, never bytes nobody can find. No access
 * check: for the purge of trashed assets and of group subtrees, whose callers have decided. Each batch carries the
 * files' `asset.purge` audit entries (by `actorId`, null for the retention purge), written before the rows go so
 * they keep each file's name and folder.
 * @example const { assets, objects } = await purgeAssets(rc, expiredIds)
 */
export async function purgeAssets(
  rc: RequestContext,
  assetIds: readonly string[],
  actorId: string | null = null,
): Promise<{ assets: number; objects: number }> {
  let assets = 0;
  let objects = 0;
  for (let i = 0; i < assetIds.length; i += PURGE_BATCH) {
    const ids = assetIds.slice(i, i + PURGE_BATCH);
    objects += await deleteUnreferencedObjects(rc, await selectAssetObjects(rc.db, ids), ids);
    const audit = fileAuditStatement(rc, {
      actorId,
      verb: "purge",
      targets: ids.map((id) => ({ type: "asset" as const, id })),
      when: sql`exists (select 1 from assets where id = json_extract(value, '$.e'))`,
    });
    const results = await runBatch(rc.db, [audit, ...purgeAssetsStatements(rc.db, ids)]);
    assets += returnedRows(results[results.length - 1]);
  }
  return { assets, objects };
}

/**
 * `GET /asset-proxy-doc/{id}/{version}?as=text`: a document's text rendition — the text the extractor read from that
 * version (the one kept for search), named after the file. A screen rendition: `read` suffices (decision 007). 404 when
 * the version is unknown or its text was not extracted (or belongs to another version). Read where the file's library
 * lives (a routed read); `textRenditionResponse` makes it the answer.
 */
export async function textRendition(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  version: VersionSelector,
): Promise<{ name: string; text: string }> {
  const asset = await requireSeenAsset(rc, actor, assetId);
  const number = version === "latest" ? asset.latestVersion : version;
  if (number < 1 || number > asset.latestVersion) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  const [row] = await contentsOf(rc.db, [assetId]);
  if (!row || row.version !== number) throw new AppError("NOT_FOUND", ru.assets.noTextRendition);
  return { name: `${asset.name.replace(/\.[^./]{1,16}$/, "") || asset.name}.txt`, text: row.text };
}

/** A text rendition as UTF-8 plain text, shown inline. */
export function textRenditionResponse(rendition: { name: string; text: string }): Response {
  return new Response(rendition.text, {
    status: 200,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": contentDisposition(rendition.name, "inline"),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-cache",
    },
  });
}
