/**
 * Taking bytes in: create-version (the single-PUT or multipart form of an upload), receiving a PUT, storing a stream
 * with its SHA-256. Committing the version is asset-commit.service.ts.
 */
import { ru } from "../../../shared/i18n/ru";
import { findVariant, insertReservingVariant, markSingleUploadStatement } from "../../db/repositories/asset-versions.repository";
import type { AssetRow, VariantRow, VariantType } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId, toHex } from "../../lib/ids";
import {
  MAX_SINGLE_UPLOAD_BYTES,
  MULTIPART_THRESHOLD_BYTES,
  STALE_UPLOAD_MS,
  TECHNICAL_MAX_UPLOAD_BYTES,
  partSizeFor,
} from "../storage/pure";
import { requireAsset, requireVersionTarget } from "./asset.service";
import { outsideHold, type Actor, type RequestContext } from "../access";
import { resolveEntityStorage, checksumTap, type ChecksumHeaders } from "../storage";
import { UPLOAD_LINK_TTL_SECONDS, backendFor, type SignedParams, linkActor, signedQuery } from "./asset-content.service";
import { queueProcessing, uploadCompleteOf, commitUpload } from "./asset-commit.service";

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
  /** the version create-version made (empty until the bytes are committed) */
  version: number;
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
  /** the version create-version made (empty until the bytes are committed) */
  version: number;
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

/** A file's format as the variant records it: its extension, lower-case (null without one). */
export function fileFormatOf(fileName: string): string | null {
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
  if (input.to_group) await requireVersionTarget(rc, actor, asset, input.to_group);
  const { id: storageId } = await resolveEntityStorage(rc, { type: "asset", id: assetId });
  // Opening the backend now answers 503 for a storage whose credentials cannot be read, before anything is written.
  await backendFor(rc, storageId);
  const now = Date.now();
  const variantId = newId(now);
  const key = `assets/${assetId}/${variantId}`;
  // SPEC: create-version makes the next numbered version; it stays empty (listed, never current) until its bytes
  // are committed. Each call makes its own number, so two uploads under way never share one.
  const [reserved] = await insertReservingVariant(rc.db, {
    id: variantId,
    assetId,
    versionId: null,
    variantType: input.variant_type ?? "initial",
    status: "pending",
    name: input.name ?? fileName,
    mimeType,
    format: fileFormatOf(fileName),
    fileName,
    contentSize: size ?? SIZE_UNKNOWN,
    storageId,
    storageKey: key,
    toGroup: input.to_group ?? null,
    userId: actor.id,
    ctime: now,
    partSize,
    progressAt: multipart ? now : null,
  });
  const version = reserved.reservedVersion!;
  if (partSize !== null) {
    return {
      mode: "multipart",
      variant_id: variantId,
      version,
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
    version,
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
  if (variant.toGroup) await requireVersionTarget(rc, actor, asset, variant.toGroup);
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

  // The version shows as uploading while the bytes stream in; a failed PUT makes it empty again (nothing was kept).
  await markSingleUploadStatement(rc.db, variant.id, Date.now()).run();
  // A mark a library's catalog copy no longer takes (it went into its shard meanwhile) is cleared by the next PUT.
  const unmark = () =>
    markSingleUploadStatement(rc.db, variant.id, null)
      .run()
      .catch(() => undefined);
  const sha256 = await outsideHold(rc, () => storeStream(rc, variant, declared, upload.body, upload.checksums)).catch(
    async (error: unknown) => {
      await unmark();
      throw error;
    },
  );
  const committed = await commitUpload(rc, { variant, asset, sha256, size: declared, from: "pending" }).catch(async (error: unknown) => {
    // Not committed (its library switched into its shard meanwhile: 503, send again): the bytes go unless another
    // PUT of the same version committed them.
    if ((await findVariant(rc.db, variant.id))?.status === "pending")
      await (await backendFor(rc, variant.storageId)).delete([variant.storageKey]).catch(() => undefined);
    await unmark();
    throw error;
  });
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
