import { sql } from "drizzle-orm";
import { ru } from "../../app/i18n/ru";
import {
  changesOf,
  returnedRows,
  commitUploadStatements,
  deletePendingVariantsStatement,
  findAsset,
  findReadyVariant,
  findReadyVariantOfType,
  findVariant,
  insertVariantStatement,
  purgeAssetsStatements,
  runBatch,
  selectAssetObjects,
  type Statement,
  selectReadyVariants,
  selectStalePending,
  unreferencedKeys,
  type ReadyVariant,
} from "../db/repositories/asset.repository";
import { findUserById } from "../db/repositories/user.repository";
import type { AssetRow, VariantRow, VariantType } from "../db/schema";
import { VARIANT_TYPES } from "../db/schema";
import { contentDisposition } from "../lib/content-disposition";
import { AppError } from "../lib/errors";
import { contentRange, ifNoneMatch, ifRangeAllows, parseRange, unsatisfiedRange } from "../lib/http-range";
import { newId, toHex } from "../lib/ids";
import { signLink, verifyLink, type SignedPurpose } from "../lib/signed-url";
import { canAccess } from "./access.service";
import {
  MAX_SINGLE_UPLOAD_BYTES,
  MULTIPART_THRESHOLD_BYTES,
  STALE_UPLOAD_MS,
  TECHNICAL_MAX_UPLOAD_BYTES,
  partSizeFor,
} from "./multipart-plan";
import { requireAsset, requireReadyVariant, requireTargetGroup } from "./asset.service";
import type { Actor, RequestContext } from "./context";
import { sortKeyOf } from "./group-tree";
import type { StorageBackend } from "./storage-backend";
import type { TaskMessageInput } from "../queue/messages";
import { eventStatement } from "./events.service";
import { getStorageBackend, resolveEntityStorage } from "./storage.service";
import { checksumTap, type ChecksumHeaders } from "./upload-checksum";

/**
 * The bytes of assets: single-PUT uploads with commit-after-upload, downloads and media streaming with ranges,
 * signed links, and deleting objects nobody references any more. Storage is reached only through `backendFor`.
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
async function linkActor(rc: RequestContext, purpose: SignedPurpose, id: string, params: SignedParams): Promise<Actor> {
  const userId = await verifyLink(rc.config.JWT_SECRET, purpose, id, params);
  const user = userId ? await findUserById(rc.db, userId) : undefined;
  if (!user || !user.enabled) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
}

async function signedQuery(rc: RequestContext, purpose: SignedPurpose, id: string, userId: string, ttlSeconds: number) {
  const exp = nowSeconds() + ttlSeconds;
  const params = new URLSearchParams(await signLink(rc.config.JWT_SECRET, { purpose, id, userId, exp }));
  return { params, expire: new Date(exp * 1000).toISOString() };
}

// ---------------------------------------------------------------------------------------------------------------
// Upload: create-version → PUT → commit

export interface CreateVersionInput {
  to_group?: string | null;
  variant_type?: VariantType;
  /** the asset's name when absent (SPEC §7 create-version sends only to_group and variant_type) */
  file_name?: string;
  /** the asset's mimetype when absent */
  mime_type?: string;
  /** bytes the upload will send (0 for an empty file); absent: unknown until the PUT's Content-Length */
  size?: number;
  /** variant name; the file name by default */
  name?: string;
  /** ask for the multipart form even below 95 MiB (ignored for an empty file) */
  multipart?: boolean;
}

/** Where and how to send the bytes of a new version in one request. */
export interface UploadInfo {
  mode: "single";
  variant_id: string;
  /** the object key the bytes are stored under (server-generated; Uppy's `generateObjectKey` should answer it) */
  key: string;
  /** root-relative unless the caller resolves it against its origin */
  upload_url: string;
  method: "PUT";
  expire: string;
  /** the PUT must send exactly this many bytes, or (size unknown) at most this many */
  max_size: number;
  /** false when create-version got no size: the PUT's Content-Length is the size */
  size_known: boolean;
  headers: { "content-type": string };
}

/**
 * `content_size` of a pending variant whose size the client did not declare (SPEC §7 create-version sends none): the
 * single PUT then takes its Content-Length as the size, up to `MAX_SINGLE_UPLOAD_BYTES`. Only pending rows carry it;
 * the commit writes the stored size, and every reader of sizes looks at ready variants only.
 */
export const SIZE_UNKNOWN = -1;

/**
 * The multipart form of create-version: the client signs each S3 call at `sign_url` (POST /api/upload/sign) and sends
 * it to our S3-compatible endpoints, in parts of `part_size` bytes (the last one may be shorter).
 */
export interface MultipartUploadInfo {
  mode: "multipart";
  variant_id: string;
  /** the object key: what Uppy's `generateObjectKey` should answer, and what every signed call is for */
  key: string;
  part_size: number;
  /** the upload is aborted if no part arrives for a day; each part moves this forward */
  expire: string;
  /** the parts must add up to exactly this many bytes */
  max_size: number;
  sign_url: "/api/upload/sign";
}

/** SPEC §3 Worker upload-complete. */
export interface UploadComplete {
  asset_id: string;
  asset_version: number;
  asset_variant_id: string;
  storage_id: string;
  storage_path: string;
  mime_type: string;
  checksum: string;
  checksum_alg: "sha256";
  file_name: string;
  file_size: number;
}

function formatOf(fileName: string): string | null {
  return /\.([A-Za-z0-9]{1,10})$/.exec(fileName)?.[1].toLowerCase() ?? null;
}

/** The largest file an upload may declare: `UPLOAD_MAX_BYTES` (default 50 GiB), never above 5 TiB. */
export function maxUploadBytes(rc: RequestContext): number {
  return Math.min(rc.config.UPLOAD_MAX_BYTES, TECHNICAL_MAX_UPLOAD_BYTES);
}

/**
 * Starts a new version of an asset: a PENDING variant (invisible everywhere). Files up to 95 MiB (empty ones
 * included) get a signed single-PUT link valid for an hour (`receiveUpload`); larger files, or any non-empty file
 * when `multipart` is asked for, get the multipart form (multipart.service: signed S3 calls, parts, completion with
 * SHA-256). Either way the version exists only once every byte is stored and hashed. Above `maxUploadBytes` → 413.
 * @example const info = await createVersionUpload(rc, actor, assetId, { file_name: "clip.mp4", mime_type: "video/mp4", size: 1024 })
 */
export async function createVersionUpload(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  input: CreateVersionInput,
): Promise<UploadInfo | MultipartUploadInfo> {
  const max = maxUploadBytes(rc);
  const size = input.size;
  if (size !== undefined && size > max) throw new AppError("PAYLOAD_TOO_LARGE", ru.s3.tooLarge(formatGiB(max)));
  // Without a declared size only the single form can work: multipart parts must add up to a size known up front.
  const multipart = size !== undefined && (size > MULTIPART_THRESHOLD_BYTES || (input.multipart === true && size > 0));
  const partSize = multipart ? partSizeFor(size) : null;
  if (multipart && partSize === null) throw new AppError("PAYLOAD_TOO_LARGE", ru.s3.tooManyParts);
  const asset = await requireAsset(rc, actor, assetId, "create");
  const fileName = input.file_name ?? asset.name;
  const mimeType = input.mime_type ?? asset.mime;
  if (input.to_group) await requireTargetGroup(rc, actor, input.to_group);
  const { id: storageId } = await resolveEntityStorage(rc, { type: "asset", id: assetId });
  // Opening the backend now answers 503 for a storage whose credentials cannot be read, before anything is written.
  await backendFor(rc, storageId);
  const now = Date.now();
  const variantId = newId(now);
  const key = `assets/${assetId}/${variantId}`;
  await insertVariantStatement(rc.db, {
    id: variantId,
    assetId,
    versionId: null,
    variantType: input.variant_type ?? "initial",
    status: "pending",
    name: input.name ?? fileName,
    mimeType,
    format: formatOf(fileName),
    fileName,
    contentSize: size ?? SIZE_UNKNOWN,
    storageId,
    storageKey: key,
    toGroup: input.to_group ?? null,
    userId: actor.id,
    ctime: now,
    partSize,
    progressAt: multipart ? now : null,
  }).run();
  if (partSize !== null) {
    return {
      mode: "multipart",
      variant_id: variantId,
      key,
      part_size: partSize,
      expire: new Date(now + STALE_UPLOAD_MS).toISOString(),
      max_size: size ?? 0,
      sign_url: "/api/upload/sign",
    };
  }
  const { params, expire } = await signedQuery(rc, "upload", variantId, actor.id, UPLOAD_LINK_TTL_SECONDS);
  return {
    mode: "single",
    variant_id: variantId,
    key,
    upload_url: `/api/asset/content/upload/${variantId}?${params}`,
    method: "PUT",
    expire,
    max_size: size ?? Math.min(MAX_SINGLE_UPLOAD_BYTES, max),
    size_known: size !== undefined,
    headers: { "content-type": mimeType },
  };
}

/** "50" for 50 GiB, "1.5" for 1.5 GiB: for messages. */
function formatGiB(bytes: number): string {
  return String(Math.round((bytes / 1024 ** 3) * 10) / 10);
}

/**
 * A pass-through stream that feeds every chunk to a SHA-256 DigestStream and counts bytes. Unlike `tee()`, it keeps
 * the storage write's backpressure, so memory stays flat whatever the file size.
 */
export function hashingStream() {
  // workerd's crypto.DigestStream (the DOM lib's Crypto type, also in scope, does not declare it).
  const { DigestStream: Digest } = crypto as unknown as { DigestStream: typeof DigestStream };
  const digest = new Digest("SHA-256");
  const writer = digest.getWriter();
  let bytes = 0;
  let ended = false;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      bytes += chunk.byteLength;
      await writer.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      ended = true;
      await writer.close();
    },
  });
  return { stream, bytes: () => bytes, ended: () => ended, sha256: async () => toHex(new Uint8Array(await digest.digest)) };
}

/**
 * The pending variant an upload call is for (as read by the caller), with its live asset, checked for the actor: only the user who started
 * the upload may send its bytes (the server never signs anyone else's link for it), the variant must still be
 * pending (409 once committed), and the actor must still hold create on the asset and on the target group.
 */
export async function requirePendingUpload(
  rc: RequestContext,
  actor: Actor,
  variant: VariantRow | undefined,
): Promise<{ variant: VariantRow; asset: AssetRow }> {
  if (!variant) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  if (variant.userId !== actor.id) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  if (variant.status === "ready" || variant.status === "saving") throw new AppError("CONFLICT", ru.assets.alreadyUploaded);
  if (variant.status !== "pending") throw new AppError("NOT_FOUND", ru.s3.aborted);
  const asset = await requireAsset(rc, actor, variant.assetId, "create");
  if (variant.toGroup) await requireTargetGroup(rc, actor, variant.toGroup);
  return { variant, asset };
}

/**
 * Receives the bytes of a pending variant (PUT with a signed upload link, no bearer). The link is re-checked against
 * the user's current state and rights; then `storeSingleUpload`.
 */
export async function receiveUpload(
  rc: RequestContext,
  variantId: string,
  link: SignedParams,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | undefined; checksums?: ChecksumHeaders },
): Promise<UploadComplete> {
  const [actor, found] = await Promise.all([linkActor(rc, "upload", variantId, link), findVariant(rc.db, variantId)]);
  const { variant, asset } = await requirePendingUpload(rc, actor, found);
  return storeSingleUpload(rc, variant, asset, upload);
}

/**
 * The single-request upload of a checked pending variant (`PUT /content/upload/{variantId}`, and S3 PutObject).
 * Content-Length must be present (411) and equal the declared size (400); an empty file sends no body. The body
 * streams to storage under the variant's key while SHA-256 is computed on the fly; a short, long or failed body
 * deletes the object and changes nothing. Then `commitUpload` makes the version visible in one batch.
 */
export async function storeSingleUpload(
  rc: RequestContext,
  variant: VariantRow,
  asset: AssetRow,
  upload: { body: ReadableStream<Uint8Array> | null; contentLength: string | undefined; checksums?: ChecksumHeaders },
): Promise<UploadComplete> {
  if (variant.partSize != null) throw new AppError("CONFLICT", ru.s3.isMultipart);
  if (upload.contentLength === undefined) throw new AppError("LENGTH_REQUIRED", ru.assets.lengthRequired);
  const length = /^\d{1,16}$/.test(upload.contentLength.trim()) ? Number(upload.contentLength.trim()) : Number.NaN;
  if (variant.contentSize === SIZE_UNKNOWN && !Number.isNaN(length)) {
    const limit = Math.min(MAX_SINGLE_UPLOAD_BYTES, maxUploadBytes(rc));
    if (length > limit) throw new AppError("PAYLOAD_TOO_LARGE", ru.apiContract.undeclaredTooLarge(limit));
  }
  // An undeclared size is the Content-Length the PUT sends (checked against the bytes that actually arrive).
  const declared = variant.contentSize === SIZE_UNKNOWN && !Number.isNaN(length) ? length : variant.contentSize;
  if (length !== declared) throw new AppError("BAD_REQUEST", ru.assets.sizeMismatch(declared, Number.isNaN(length) ? 0 : length));
  if (!upload.body && declared > 0) throw new AppError("BAD_REQUEST", ru.assets.bodyMissing);

  const sha256 = await storeStream(rc, variant, declared, upload.body, upload.checksums);
  const committed = await commitUpload(rc, { variant, asset, sha256, size: declared, from: "pending" });
  if (committed.outcome === "already") throw new AppError("CONFLICT", ru.assets.alreadyUploaded);
  await queueProcessing(rc, variant, committed.version);
  return uploadCompleteOf(asset, variant, committed.version, sha256, declared);
}

/**
 * Streams exactly `declared` bytes to the variant's key while hashing them, and answers their SHA-256. A body shorter
 * or longer than declared, a checksum the client sent that the bytes do not match, or a failed write deletes the
 * object (400 / 503): nothing is left behind.
 */
export async function storeStream(
  rc: RequestContext,
  variant: Pick<VariantRow, "storageId" | "storageKey" | "mimeType">,
  declared: number,
  source: ReadableStream<Uint8Array> | null,
  checksums: ChecksumHeaders = {},
): Promise<string> {
  const backend = await backendFor(rc, variant.storageId);
  const hashing = hashingStream();
  const tap = checksumTap((source ?? new Blob([]).stream()).pipeThrough(hashing.stream), checksums);
  let stored: { size: number };
  try {
    stored = await backend.put(variant.storageKey, tap.body, {
      contentType: variant.mimeType,
      size: declared,
    });
  } catch (error) {
    // A body shorter or longer than declared fails the fixed-length write; so does a client that went away.
    await backend.delete([variant.storageKey]).catch(() => undefined);
    // Too many bytes, or a body that ended short, is the client's mistake; a write that failed before the body was
    // read to its end is the storage's.
    const got = hashing.bytes();
    if (got > declared || (hashing.ended() && got !== declared)) throw new AppError("BAD_REQUEST", ru.assets.sizeMismatch(declared, got));
    console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "upload write failed", error: String(error) }));
    throw new AppError("SERVICE_UNAVAILABLE", ru.assets.uploadFailed);
  }
  if (stored.size !== declared || hashing.bytes() !== declared) {
    await backend.delete([variant.storageKey]);
    throw new AppError("BAD_REQUEST", ru.assets.sizeMismatch(declared, stored.size));
  }
  // A checksum the client sent (Content-MD5, x-amz-checksum-sha256) must match the bytes that arrived.
  await tap.verify().catch(async (error: unknown) => {
    await backend.delete([variant.storageKey]);
    throw error;
  });
  return hashing.sha256();
}

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
    ...(c.extra ?? []),
    eventStatement(rc, {
      type: "asset.uploaded",
      entityType: "asset",
      entityId: c.asset.id,
      ownerId: c.asset.ownerId,
      actorId: c.variant.userId,
      data: { group_id: landedIn, variant_id: c.variant.id, mime_type: c.variant.mimeType, size: c.size },
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
 * Drops the asset's pending variants whose upload links have expired, with any object a failed upload left
 * behind. Answers how many were dropped.
 */
export async function dropEmptyVersions(rc: RequestContext, actor: Actor, assetId: string): Promise<{ dropped: number }> {
  await requireAsset(rc, actor, assetId, "update");
  const stale = await selectStalePending(rc.db, assetId, Date.now() - UPLOAD_LINK_TTL_SECONDS * 1000);
  if (stale.length === 0) return { dropped: 0 };
  const [deleted] = await runBatch(rc.db, [
    deletePendingVariantsStatement(
      rc.db,
      stale.map((v) => v.id),
    ),
  ]);
  await deleteUnreferencedObjects(rc, stale);
  return { dropped: returnedRows(deleted) };
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

/** Checks a link credential for a resolved variant: valid signature for its id, enabled user, download right. */
async function requireLinkAccess(rc: RequestContext, link: SignedParams, purpose: SignedPurpose, variantId: string, asset: AssetRow) {
  const actor = await linkActor(rc, purpose, variantId, link);
  if (!(await canAccess(rc, actor, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "download"))) {
    throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  }
}

function isVariantType(value: string): value is VariantType {
  return (VARIANT_TYPES as readonly string[]).includes(value);
}

/**
 * `GET /content/download/{id}/{version}/{variant}`: `variant` is a variant type (the newest ready variant of that
 * type in the version) or a variant id. Bearer callers need download on the asset (404 when they cannot read it);
 * a signed download link must be for the resolved variant (403 otherwise).
 */
export async function downloadAssetContent(
  rc: RequestContext,
  credential: ContentCredential,
  assetId: string,
  version: VersionSelector,
  selector: string,
  req: ContentRequest,
): Promise<Response> {
  let asset: AssetRow | undefined;
  if ("actor" in credential) asset = await requireAsset(rc, credential.actor, assetId, "download");
  else {
    asset = await findAsset(rc.db, assetId);
    if (asset?.deletedAt != null) asset = undefined;
  }
  const number = version === "latest" ? asset?.latestVersion ?? 0 : version;
  let row: ReadyVariant | undefined;
  if (asset && number > 0) {
    if (isVariantType(selector)) row = await findReadyVariantOfType(rc.db, assetId, number, selector);
    else {
      row = await findReadyVariant(rc.db, selector);
      if (row && (row.variant.assetId !== assetId || row.version !== number)) row = undefined;
    }
  }
  if ("link" in credential) {
    if (!row || !asset) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
    await requireLinkAccess(rc, credential.link, credential.purpose, row.variant.id, asset);
  }
  if (!row) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  return serveVariant(rc, row, { ...req, disposition: req.disposition ?? "attachment" });
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
    const { row } = await requireReadyVariant(rc, credential.actor, variantId, "download");
    return serveVariant(rc, row, { ...req, disposition: req.disposition ?? "attachment" });
  }
  const row = await findReadyVariant(rc.db, variantId);
  const asset = row ? await findAsset(rc.db, row.variant.assetId) : undefined;
  if (!row || !asset || asset.deletedAt != null) throw new AppError("FORBIDDEN", ru.assets.linkInvalid);
  await requireLinkAccess(rc, credential.link, credential.purpose, variantId, asset);
  const fallback = credential.purpose === "play" ? "inline" : "attachment";
  return serveVariant(rc, row, { ...req, disposition: req.disposition ?? fallback });
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

async function signPlay(rc: RequestContext, actor: Actor, variantId: string, disposition?: "attachment" | "inline"): Promise<PlayResult> {
  const { params, expire } = await signedQuery(rc, "play", variantId, actor.id, PLAY_LINK_TTL_SECONDS);
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
): Promise<PlayResult> {
  await requireReadyVariant(rc, actor, variantId, "download");
  return signPlay(rc, actor, variantId, disposition);
}

/** A signed download link (1 hour) to `GET /content/download-variant/{variantId}`. Needs download on the asset. */
export async function downloadLink(rc: RequestContext, actor: Actor, variantId: string): Promise<{ link: string; expire: string }> {
  await requireReadyVariant(rc, actor, variantId, "download");
  const { params, expire } = await signedQuery(rc, "download", variantId, actor.id, DOWNLOAD_LINK_TTL_SECONDS);
  return { link: `/api/asset/content/download-variant/${variantId}?${params}`, expire };
}

/** The variant to show of one version: of the type asked for, else the most viewable one. */
async function pickVariant(rc: RequestContext, asset: AssetRow, version: VersionSelector | undefined, type: VariantType | undefined) {
  const number = version === undefined || version === "latest" ? asset.latestVersion : version;
  if (number === 0) throw new AppError("NOT_FOUND", ru.assets.noContent);
  const rows = await selectReadyVariants(rc.db, asset.id, number);
  if (rows.length === 0) throw new AppError("NOT_FOUND", ru.assets.versionNotFound);
  const pick = type
    ? rows.find((r) => r.variant.variantType === type)
    : VIEWABLE_ORDER.map((t) => rows.find((r) => r.variant.variantType === t)).find(Boolean);
  if (!pick) throw new AppError("NOT_FOUND", type ? ru.assets.variantNotFound : ru.assets.noViewable);
  return pick;
}

/** `POST /content/play/{id}`: a play link to a version (latest by default) and variant type (most viewable by default). */
export async function playAsset(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  opts: { version?: VersionSelector; variant_type?: VariantType; disposition?: "attachment" | "inline" } = {},
): Promise<PlayResult> {
  const asset = await requireAsset(rc, actor, assetId, "download");
  const pick = await pickVariant(rc, asset, opts.version, opts.variant_type);
  return signPlay(rc, actor, pick.variant.id, opts.disposition);
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
  const asset = await requireAsset(rc, actor, assetId, "download");
  const pick = await pickVariant(rc, asset, version, undefined);
  const { link, expire } = await signPlay(rc, actor, pick.variant.id);
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
    const orphans = await unreferencedKeys(rc.db, storageId, [...new Set(keys)], exceptAssets);
    if (orphans.length === 0) continue;
    await (await backendFor(rc, storageId)).delete(orphans);
    deleted += orphans.length;
  }
  return deleted;
}

/** Assets purged per D1 batch. */
const PURGE_BATCH = 500;

/**
 * Deletes assets for good: first the bytes of their variants and previews that no other asset references (on every
 * storage they are on), then in one batch per 500 assets the rows (assets, versions, variants, previews, tag links,
 * memberships). Bytes go first so a failure leaves rows a retry finds again, never bytes nobody can find. No access
 * check: for the purge of trashed assets and of group subtrees, whose callers have decided.
 * @example const { assets, objects } = await purgeAssets(rc, expiredIds)
 */
export async function purgeAssets(rc: RequestContext, assetIds: readonly string[]): Promise<{ assets: number; objects: number }> {
  let assets = 0;
  let objects = 0;
  for (let i = 0; i < assetIds.length; i += PURGE_BATCH) {
    const ids = assetIds.slice(i, i + PURGE_BATCH);
    objects += await deleteUnreferencedObjects(rc, await selectAssetObjects(rc.db, ids), ids);
    const results = await runBatch(rc.db, purgeAssetsStatements(rc.db, ids));
    assets += returnedRows(results[results.length - 1]);
  }
  return { assets, objects };
}
