/** The WOPI calls that write: PutFile, PutRelativeFile and RenameFile (each under the file's lock). */
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { invisibleCharIn } from "../../../shared/visible-name";
import { findAsset } from "../../db/repositories/asset.repository";
import { findVariant, insertVariantStatement } from "../../db/repositories/asset-versions.repository";
import type { AssetRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { signWopiToken } from "../../lib/wopi-token";
import { WOPI_LOCK_MAX_LENGTH } from "../../../durable-objects/wopi-lock.do";
import {
  backendFor,
  storeSingleUpload,
  type UploadComplete,
  createAsset,
  requireAsset,
  requireTargetGroup,
  trashAsset,
  updateAsset,
} from "../library";
import type { Actor, RequestContext } from "../access";
import { sortKeyOf } from "../library/pure";
import { resolveEntityStorage } from "../storage";
import { encodeUtf7 } from "./utf7";
import {
  WOPI_TOKEN_TTL_MS,
  wopiMaxBytes,
  type WopiCaller,
  lockStub,
  extOf,
  currentVariant,
  fileNameOf,
  homeGroup,
  requireWrite,
  conflict,
} from "./wopi.service";

// ---------------------------------------------------------------------------------------------------------------
// PutFile, PutRelativeFile, RenameFile

interface Upload {
  body: ReadableStream<Uint8Array> | null;
  contentLength: string | undefined;
}

function declaredSize(rc: RequestContext, upload: Upload): number {
  if (upload.contentLength === undefined) throw new AppError("LENGTH_REQUIRED", ru.assets.lengthRequired);
  const trimmed = upload.contentLength.trim();
  if (!/^\d{1,16}$/.test(trimmed)) throw new AppError("BAD_REQUEST", ru.assets.sizeMismatch(0, 0));
  const size = Number(trimmed);
  const max = wopiMaxBytes(rc);
  if (size > max) throw new AppError("PAYLOAD_TOO_LARGE", ru.wopi.tooLarge(Math.floor(max / 1024 / 1024)));
  return size;
}

/**
 * A new version of `asset` with the request's bytes, through the uploads' own path: a pending variant, then
 * `storeSingleUpload` (stream to storage with SHA-256, commit-after-upload in one batch, processing queued).
 */
async function writeVersion(
  rc: RequestContext,
  actor: Actor,
  asset: AssetRow,
  file: { fileName: string; mime: string },
  upload: Upload,
  size: number,
): Promise<UploadComplete> {
  const { id: storageId } = await resolveEntityStorage(rc, { type: "asset", id: asset.id });
  await backendFor(rc, storageId);
  const now = Date.now();
  const variantId = newId(now);
  await insertVariantStatement(rc.db, {
    id: variantId,
    assetId: asset.id,
    versionId: null,
    variantType: "initial",
    status: "pending",
    name: file.fileName,
    mimeType: file.mime,
    format: extOf(file.fileName) || null,
    fileName: file.fileName,
    contentSize: size,
    storageId,
    storageKey: `assets/${asset.id}/${variantId}`,
    toGroup: null,
    userId: actor.id,
    ctime: now,
    partSize: null,
    progressAt: null,
  }).run();
  const variant = await findVariant(rc.db, variantId);
  if (!variant) throw new AppError("NOT_FOUND", ru.assets.variantNotFound);
  return storeSingleUpload(rc, variant, asset, { body: upload.body, contentLength: String(size) });
}

/**
 * `POST /files/{id}/contents`: saves a new version. The file's lock must match X-WOPI-Lock (409 with the current
 * lock otherwise); an unlocked file may be written only while it is empty (the protocol's rule for new files).
 */
export async function putFile(
  rc: RequestContext,
  caller: WopiCaller,
  lockHeader: string | undefined,
  upload: Upload,
): Promise<{ version: number; modified: string }> {
  requireWrite(caller);
  if (lockHeader !== undefined && lockHeader.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  const [lock, variant] = await Promise.all([lockStub(rc, caller.asset.id).get(), currentVariant(rc, caller.asset)]);
  if (lock && lock.lockId !== lockHeader) throw conflict(lock.lockId);
  if (!lock && (variant?.variant.contentSize ?? 0) > 0) throw conflict("", ru.wopi.notLocked);
  const size = declaredSize(rc, upload);
  const name = fileNameOf(caller.asset, variant);
  const done = await writeVersion(
    rc,
    caller.actor,
    caller.asset,
    { fileName: variant?.variant.fileName ?? name, mime: variant?.variant.mimeType ?? caller.asset.mime },
    upload,
    size,
  );
  return { version: done.asset_version, modified: new Date().toISOString() };
}

const BAD_NAME = /[\\/:*?"<>|\u0000-\u001f]/;

/** Why a file name an editor sent is refused (a 400 with X-WOPI-InvalidFileNameError), or null when it is fine. */
function nameProblem(name: string): string | null {
  if (name.trim().length === 0 || name.length > 255 || BAD_NAME.test(name) || name === "." || name === "..") return ru.wopi.badName;
  const invisible = invisibleCharIn(name);
  return invisible ? `${ru.wopi.badName}: ${ru.errors.invisibleChars(invisible)}` : null;
}

function requireGoodName(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw new AppError("BAD_REQUEST", problem, { "X-WOPI-InvalidFileNameError": "Invalid file name" });
}

const MIME_BY_EXT: Record<string, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  rtf: "application/rtf",
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
};

/** Names of live assets in a folder, compared the way folders sort them. */
async function takenNames(rc: RequestContext, groupId: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const keys = names.map(sortKeyOf);
  const rows = await rc.db.all<{ sort_name: string }>(
    sql`select gm.sort_name from group_members gm join assets a on a.id = gm.el_id
        where gm.group_id = ${groupId} and gm.el_type = 'asset' and gm.trashed_at is null and a.deleted_at is null
        and gm.sort_name in (${sql.join(
          keys.map((k) => sql`${k}`),
          sql`, `,
        )})`,
  );
  return new Set(rows.map((r) => r.sort_name));
}

/** The first of "name.ext", "name (2).ext", "name (3).ext" … that the folder does not hold. */
async function freeName(rc: RequestContext, groupId: string, name: string): Promise<string> {
  const ext = extOf(name);
  const base = ext ? name.slice(0, -(ext.length + 1)) : name;
  for (let start = 1; start < 200; start += 20) {
    const candidates = Array.from({ length: 20 }, (_, i) => (start + i === 1 ? name : `${base} (${start + i})${ext ? `.${ext}` : ""}`));
    const taken = await takenNames(rc, groupId, candidates);
    const free = candidates.find((c) => !taken.has(sortKeyOf(c)));
    if (free) return free;
  }
  return `${base} (${newId().slice(-6)})${ext ? `.${ext}` : ""}`;
}

async function assetNamed(rc: RequestContext, groupId: string, name: string): Promise<string | undefined> {
  const row = await rc.db.get<{ id: string } | undefined>(
    sql`select a.id from group_members gm join assets a on a.id = gm.el_id
        where gm.group_id = ${groupId} and gm.el_type = 'asset' and gm.trashed_at is null and a.deleted_at is null
        and gm.sort_name = ${sortKeyOf(name)} order by a.ctime limit 1`,
  );
  return row?.id;
}

export interface RelativeTarget {
  /** X-WOPI-SuggestedTarget, decoded: a name or just ".ext"; the host may change it to make it unique */
  suggested?: string;
  /** X-WOPI-RelativeTarget, decoded: the exact name */
  relative?: string;
  overwrite: boolean;
}

export interface RelativeResult {
  Name: string;
  Url: string;
  HostViewUrl: string;
  HostEditUrl: string;
}

/**
 * `POST /files/{id}` PUT_RELATIVE ("save as a copy"): a new asset beside the original (in its first folder; create on
 * that folder needed) holding the request's bytes as version 1, answered with a WOPISrc and a token of its own. An
 * exact target name that exists answers 409 with a free name in X-WOPI-ValidRelativeTarget, unless overwriting is
 * asked for: then the existing file gets a new version (409 with X-WOPI-Lock while it is locked).
 */
export async function putRelative(
  rc: RequestContext,
  caller: WopiCaller,
  target: RelativeTarget,
  upload: Upload,
  origin: string,
): Promise<RelativeResult> {
  if (target.suggested !== undefined && target.relative !== undefined) throw new AppError("BAD_REQUEST", ru.wopi.targetBoth);
  if (target.suggested === undefined && target.relative === undefined) throw new AppError("BAD_REQUEST", ru.wopi.targetMissing);
  const group = await homeGroup(rc, caller.asset.id);
  if (!group) throw new AppError("BAD_REQUEST", ru.wopi.noFolder);
  await requireTargetGroup(rc, caller.actor, group.id);
  const size = declaredSize(rc, upload);
  const original = fileNameOf(caller.asset, await currentVariant(rc, caller.asset));

  let name: string;
  let existing: string | undefined;
  if (target.suggested !== undefined) {
    const s = target.suggested.trim();
    const originalExt = extOf(original);
    const base = originalExt ? original.slice(0, -(originalExt.length + 1)) : original;
    const wanted = s.startsWith(".") ? `${base}${s}` : s;
    requireGoodName(wanted);
    name = await freeName(rc, group.id, wanted);
  } else {
    name = target.relative!.trim();
    requireGoodName(name);
    existing = await assetNamed(rc, group.id, name);
    if (existing && !target.overwrite) {
      throw new AppError("CONFLICT", ru.wopi.nameExists(name), {
        "X-WOPI-ValidRelativeTarget": encodeUtf7(await freeName(rc, group.id, name)),
      });
    }
  }
  const ext = extOf(name);
  const mime = ext === extOf(original) ? caller.asset.mime : MIME_BY_EXT[ext] ?? "application/octet-stream";

  let targetId: string;
  if (existing) {
    const lock = await lockStub(rc, existing).get();
    if (lock) throw conflict(lock.lockId);
    const asset = await requireAsset(rc, caller.actor, existing, "update");
    await writeVersion(rc, caller.actor, asset, { fileName: name, mime }, upload, size);
    targetId = existing;
  } else {
    const { asset_id } = await createAsset(rc, caller.actor, { asset_name: name, asset_mime: mime, in_group: group.id });
    const asset = await findAsset(rc.db, asset_id);
    if (!asset) throw new AppError("NOT_FOUND", ru.assets.notFound);
    try {
      await writeVersion(rc, caller.actor, asset, { fileName: name, mime }, upload, size);
    } catch (error) {
      // A copy without bytes is of no use to anyone: it goes to the trash with the failed save.
      await trashAsset(rc, caller.actor, asset_id).catch(() => undefined);
      throw error;
    }
    targetId = asset_id;
  }
  const exp = Date.now() + WOPI_TOKEN_TTL_MS;
  const token = await signWopiToken(rc.config.JWT_SECRET, {
    userId: caller.actor.id,
    assetId: targetId,
    right: "edit",
    client: caller.claims.client,
    exp,
    via: caller.claims.via,
    sid: caller.claims.sid,
  });
  return {
    Name: name,
    Url: `${origin}/api/wopi/files/${targetId}?access_token=${encodeURIComponent(token)}`,
    HostViewUrl: `${origin}/editor/${targetId}?action=view`,
    HostEditUrl: `${origin}/editor/${targetId}?action=edit`,
  };
}

/**
 * `POST /files/{id}` RENAME_FILE: X-WOPI-RequestedName is the new name without the extension, which is kept. 409 with
 * X-WOPI-Lock when the file is locked by another lock; 400 with X-WOPI-InvalidFileNameError for a bad name.
 */
export async function renameFile(
  rc: RequestContext,
  caller: WopiCaller,
  requested: string | null,
  lockHeader: string | undefined,
): Promise<{ Name: string }> {
  requireWrite(caller);
  if (lockHeader !== undefined && lockHeader.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  const lock = await lockStub(rc, caller.asset.id).get();
  if (lock && lock.lockId !== lockHeader) throw conflict(lock.lockId);
  const ext = extOf(fileNameOf(caller.asset, await currentVariant(rc, caller.asset)));
  const base = requested?.trim() ?? "";
  const name = ext ? `${base}.${ext}` : base;
  if (!base) throw new AppError("BAD_REQUEST", ru.wopi.badName, { "X-WOPI-InvalidFileNameError": "Invalid file name" });
  requireGoodName(name);
  await updateAsset(rc, caller.actor, caller.asset.id, { asset_name: name });
  return { Name: base };
}
