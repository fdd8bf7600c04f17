import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { findAsset, findVariant, insertVariantStatement, selectReadyVariants, type ReadyVariant } from "../../db/repositories/asset.repository";
import { findUserById } from "../../db/repositories/user.repository";
import type { AssetRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { signWopiToken, verifyWopiToken, type WopiClient, type WopiRight, type WopiTokenClaims } from "../../lib/wopi-token";
import { WOPI_LOCK_MAX_LENGTH, type WopiLockResult, type WopiLockState } from "../../../durable-objects/wopi-lock.do";
import { canAccess } from "../access";
import { backendFor, maxUploadBytes, storeSingleUpload, type UploadComplete } from "../library";
import { createAsset, mainVariant, requireAsset, requireTargetGroup, trashAsset, updateAsset } from "../library";
import type { Actor, RequestContext } from "../access";
import { sortKeyOf } from "../library/pure";
import { MAX_SINGLE_UPLOAD_BYTES } from "../storage/pure";
import { resolveEntityStorage } from "../storage";
import { extractText, type ExtractedText } from "../media";
import { actionUrl, findAction, loadDiscovery } from "./discovery";
import { verifyProof, type ProofHeaders } from "./proof";
import { encodeUtf7 } from "./utf7";

/**
 * The WOPI host: access tokens, CheckFileInfo, GetFile/PutFile, locks (one WopiLockDO per file), PutRelativeFile,
 * RenameFile, the plain text of a document and the editor URL from discovery. Every call re-checks the token's
 * user against the access model, so a right taken away ends editing at the next request.
 */

/** Lifetime of a WOPI access token: the protocol's recommended 10 hours (an editing session must outlive it). */
export const WOPI_TOKEN_TTL_MS = 10 * 3600 * 1000;
/** Largest file PutFile and PutRelativeFile accept: one request body, at most the upload limit. */
export function wopiMaxBytes(rc: RequestContext): number {
  return Math.min(maxUploadBytes(rc), MAX_SINGLE_UPLOAD_BYTES);
}
/** Largest file the text call reads. */
export const TEXT_MAX_BYTES = 20 * 1024 * 1024;

/** A checked WOPI request: the token's user, the live asset, and what the user may do with it now. */
export interface WopiCaller {
  token: string;
  claims: WopiTokenClaims;
  actor: Actor;
  asset: AssetRow;
  /** an edit token and `update` on the asset right now */
  canWrite: boolean;
}

function lockStub(rc: RequestContext, assetId: string) {
  return rc.env.WOPI_LOCKS.get(rc.env.WOPI_LOCKS.idFromName(assetId));
}

/** The lock a file holds now (for the editor's top bar and the app), or null. */
export async function currentLock(rc: RequestContext, assetId: string): Promise<WopiLockState | null> {
  return lockStub(rc, assetId).get();
}

function extOf(name: string): string {
  return /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1].toLowerCase() ?? "";
}

/** The version's main variant (master, initial, untyped), else any ready one. */
async function currentVariant(rc: RequestContext, asset: AssetRow): Promise<ReadyVariant | undefined> {
  if (asset.latestVersion === 0) return undefined;
  const rows = await selectReadyVariants(rc.db, asset.id, asset.latestVersion);
  return mainVariant(rows) ?? rows[0];
}

/** The file name an editor sees: the asset's name, with the bytes' extension added when the name lacks one. */
function fileNameOf(asset: AssetRow, variant: ReadyVariant | undefined): string {
  const ext = extOf(variant?.variant.fileName ?? "");
  return ext && extOf(asset.name) !== ext ? `${asset.name}.${ext}` : asset.name;
}

/** The folder the asset is listed in first (where copies go, and where "back" leads). */
async function homeGroup(rc: RequestContext, assetId: string) {
  return rc.db.get<{ id: string; name: string; owner_id: string | null } | undefined>(
    sql`select g.id, g.name, g.owner_id from group_members gm join groups g on g.id = gm.group_id
        where gm.el_id = ${assetId} and gm.el_type = 'asset' and gm.trashed_at is null and g.deleted_at is null
        order by gm.ctime, gm.group_id limit 1`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Tokens

export interface IssuedToken {
  access_token: string;
  /** expiry in epoch milliseconds, as WOPI's access_token_ttl */
  access_token_ttl: number;
  right: WopiRight;
}

/**
 * Issues a WOPI access token for one asset: `view` needs read and download (the editor receives the bytes), `edit`
 * also update. Asking for edit without update answers a view token, so read-only users can still open documents.
 */
export async function issueToken(rc: RequestContext, actor: Actor, assetId: string, wanted: WopiRight, client: WopiClient): Promise<IssuedToken & { asset: AssetRow }> {
  const asset = await requireAsset(rc, actor, assetId, "read");
  const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
  const [download, update] = await Promise.all([canAccess(rc, actor, entity, "download"), wanted === "edit" ? canAccess(rc, actor, entity, "update") : false]);
  if (!download) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  const right: WopiRight = update ? "edit" : "view";
  const exp = Date.now() + WOPI_TOKEN_TTL_MS;
  const access_token = await signWopiToken(rc.config.JWT_SECRET, { userId: actor.id, assetId, right, client, exp });
  return { access_token, access_token_ttl: exp, right, asset };
}

export interface EditorSession extends IssuedToken {
  wopi_src: string;
  file: { asset_id: string; name: string; mime_type: string; size: number; version: number; group_id: string | null; extension: string };
  lock: { holder_id: string; holder_name: string; expires_at: string } | null;
  /**
   * Whether the configured office editor opens this file: "none" (no editor configured), "available",
   * "unsupported" (not this type) or "unreachable" (discovery could not be read). The page asks app-url only when
   * "available".
   */
  office_editor: "none" | "available" | "unsupported" | "unreachable";
}

async function officeEditorFor(rc: RequestContext, ext: string, mime: string): Promise<EditorSession["office_editor"]> {
  if (!rc.config.WOPI_DISCOVERY_URL) return "none";
  try {
    const discovery = await loadDiscovery(rc.config.WOPI_DISCOVERY_URL);
    return discovery && findAction(discovery, ext, mime, "view") ? "available" : "unsupported";
  } catch {
    return "unreachable";
  }
}

function lockView(lock: WopiLockState | null): EditorSession["lock"] {
  return lock ? { holder_id: lock.holder.userId, holder_name: lock.holder.name, expires_at: new Date(lock.expiresAt).toISOString() } : null;
}

/** `POST /api/wopi/token`: a token plus what the editor screen shows (file, version, folder, lock holder). */
export async function editorSession(rc: RequestContext, actor: Actor, assetId: string, wanted: WopiRight, client: WopiClient, origin: string): Promise<EditorSession> {
  const { asset, ...token } = await issueToken(rc, actor, assetId, wanted, client);
  const [variant, group, lock] = await Promise.all([currentVariant(rc, asset), homeGroup(rc, asset.id), currentLock(rc, asset.id)]);
  const name = fileNameOf(asset, variant);
  const mime = variant?.variant.mimeType ?? asset.mime;
  return {
    ...token,
    office_editor: await officeEditorFor(rc, extOf(name), mime),
    wopi_src: `${origin}/api/wopi/files/${asset.id}`,
    file: {
      asset_id: asset.id,
      name,
      mime_type: mime,
      size: variant?.variant.contentSize ?? 0,
      version: asset.latestVersion,
      group_id: group?.id ?? null,
      extension: extOf(name),
    },
    lock: lockView(lock),
  };
}

/** `GET /api/wopi/lock/{id}`: who holds the file's lock (needs read). */
export async function lockInfo(rc: RequestContext, actor: Actor, assetId: string): Promise<{ lock: EditorSession["lock"] }> {
  await requireAsset(rc, actor, assetId, "read");
  return { lock: lockView(await currentLock(rc, assetId)) };
}

/**
 * Checks a WOPI request's token for the file in the path: forged, expired or missing → 401, a token for another file
 * → 401, a user disabled since → 401; the asset must be live and still readable and downloadable by the user (404).
 */
export async function resolveCaller(rc: RequestContext, token: string | undefined, assetId: string): Promise<WopiCaller> {
  if (!token) throw new AppError("UNAUTHORIZED", ru.wopi.tokenInvalid);
  const claims = await verifyWopiToken(rc.config.JWT_SECRET, token);
  if (!claims) throw new AppError("UNAUTHORIZED", ru.wopi.tokenInvalid);
  if (claims.assetId !== assetId) throw new AppError("UNAUTHORIZED", ru.wopi.tokenOtherFile);
  const [user, asset] = await Promise.all([findUserById(rc.db, claims.userId), findAsset(rc.db, assetId)]);
  if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.wopi.tokenInvalid);
  if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const actor: Actor = { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
  const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
  const [read, download, update] = await Promise.all([
    canAccess(rc, actor, entity, "read"),
    canAccess(rc, actor, entity, "download"),
    claims.right === "edit" ? canAccess(rc, actor, entity, "update") : false,
  ]);
  if (!read || !download) throw new AppError("NOT_FOUND", ru.assets.notFound);
  return { token, claims, actor, asset, canWrite: update };
}

/**
 * Proof-key check of a request from the office editor, when the configured editor publishes proof keys. Browser
 * tokens (the built-in viewer and text editor) are never sent to an editor, so their requests carry no proof.
 */
export async function requireProof(rc: RequestContext, caller: WopiCaller, url: string, headers: ProofHeaders): Promise<void> {
  if (caller.claims.client !== "editor") return;
  const discovery = await loadDiscovery(rc.config.WOPI_DISCOVERY_URL);
  if (!discovery?.proofKeys.current) return;
  const outcome = await verifyProof(discovery.proofKeys, caller.token, url, headers);
  if (outcome === "missing") throw new AppError("UNAUTHORIZED", ru.wopi.proofMissing);
  if (outcome === "expired") throw new AppError("UNAUTHORIZED", ru.wopi.proofExpired);
  if (outcome === "invalid") throw new AppError("UNAUTHORIZED", ru.wopi.proofInvalid);
}

function requireWrite(caller: WopiCaller): void {
  if (!caller.canWrite) throw new AppError("UNAUTHORIZED", ru.wopi.readOnly);
}

// ---------------------------------------------------------------------------------------------------------------
// CheckFileInfo, GetFile

/** `GET /files/{id}`: the properties Collabora Online, OnlyOffice and Microsoft 365 read. */
export async function checkFileInfo(rc: RequestContext, caller: WopiCaller, origin: string): Promise<Record<string, unknown>> {
  const { asset, actor, canWrite } = caller;
  const [variant, group] = await Promise.all([currentVariant(rc, asset), homeGroup(rc, asset.id)]);
  const canWriteRelative =
    canWrite && group ? await canAccess(rc, actor, { id: group.id, type: "group", ownerId: group.owner_id }, "create") : false;
  const name = fileNameOf(asset, variant);
  const modified = variant?.versionCtime ?? asset.mtime;
  const editorUrl = `${origin}/editor/${asset.id}`;
  return {
    BaseFileName: name,
    FileExtension: extOf(name) ? `.${extOf(name)}` : "",
    Size: variant?.variant.contentSize ?? 0,
    Version: String(asset.latestVersion),
    OwnerId: asset.ownerId,
    UserId: actor.id,
    UserFriendlyName: actor.name,
    UserPrincipalName: actor.login,
    IsAnonymousUser: false,
    LastModifiedTime: new Date(modified).toISOString(),
    ...(variant?.variant.sha256 ? { SHA256: btoa(String.fromCharCode(...(variant.variant.sha256.match(/../g) ?? []).map((h) => parseInt(h, 16)))) } : {}),
    UserCanWrite: canWrite,
    ReadOnly: !canWrite,
    UserCanNotWriteRelative: !canWriteRelative,
    UserCanRename: canWrite,
    SupportsLocks: true,
    SupportsGetLock: true,
    SupportsExtendedLockLength: true,
    SupportsUpdate: true,
    SupportsRename: true,
    SupportsDeleteFile: false,
    SupportsCobalt: false,
    SupportsContainers: false,
    SupportsUserInfo: false,
    // Collabora and OnlyOffice post messages to the page that framed them: ours.
    PostMessageOrigin: origin,
    HostEditUrl: `${editorUrl}?action=edit`,
    HostViewUrl: `${editorUrl}?action=view`,
    CloseUrl: group ? `${origin}/mam/${group.id}/asset/${asset.id}` : `${origin}/asset/${asset.id}`,
    // The editor's header links back to the app and the folder (Microsoft 365 and OnlyOffice show them).
    BreadcrumbBrandName: ru.app.name,
    BreadcrumbBrandUrl: `${origin}/`,
    BreadcrumbDocName: name,
    ...(group ? { BreadcrumbFolderName: group.name, BreadcrumbFolderUrl: `${origin}/mam/${group.id}` } : {}),
    // Names are at most 255 characters with the extension; editors count without it.
    FileNameMaxLength: 255 - (extOf(name) ? extOf(name).length + 1 : 0),
    EnableOwnerTermination: false,
    DisablePrint: false,
    HidePrintOption: false,
    HideSaveOption: false,
    HideExportOption: false,
    DisableExport: false,
    DisableCopy: false,
    EnableShare: false,
  };
}

/**
 * `GET /files/{id}/contents`: the current version's bytes, streamed from storage. `maxExpected` (X-WOPI-MaxExpectedSize)
 * answers 412 when the file is larger.
 */
export async function getFile(rc: RequestContext, caller: WopiCaller, maxExpected: string | undefined): Promise<Response> {
  const variant = await currentVariant(rc, caller.asset);
  const headers = new Headers({
    "X-WOPI-ItemVersion": String(caller.asset.latestVersion),
    "Cache-Control": "private, no-cache",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Content-Type": "application/octet-stream",
  });
  if (!variant) {
    headers.set("Content-Length", "0");
    return new Response(null, { status: 200, headers });
  }
  const size = variant.variant.contentSize;
  if (maxExpected !== undefined && /^\d{1,16}$/.test(maxExpected) && size > Number(maxExpected)) {
    return new Response(null, { status: 412, headers });
  }
  const object = await (await backendFor(rc, variant.variant.storageId)).get(variant.variant.storageKey);
  if (!object?.body) throw new AppError("NOT_FOUND", ru.assets.contentMissing);
  headers.set("Content-Length", String(size));
  return new Response(object.body, { status: 200, headers });
}

// ---------------------------------------------------------------------------------------------------------------
// Locks

function requireLockId(value: string | undefined): string {
  if (value === undefined || value === "") throw new AppError("BAD_REQUEST", ru.wopi.lockMissing);
  if (value.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  return value;
}

/** A refused lock operation: 409 with the lock the file holds now ("" when none), as the protocol requires. */
function conflict(current: string, reason: string = ru.wopi.lockConflict): AppError {
  return new AppError("CONFLICT", reason, { "X-WOPI-Lock": current, "X-WOPI-LockFailureReason": current ? "Locked by another client" : "Not locked" });
}

function outcome(result: WopiLockResult): void {
  if (!result.ok) throw conflict(result.current, result.current ? ru.wopi.lockConflict : ru.wopi.notLocked);
}

export type LockOperation = "LOCK" | "UNLOCK" | "REFRESH_LOCK" | "GET_LOCK";

/**
 * Lock, UnlockAndRelock (LOCK with X-WOPI-OldLock), Unlock, RefreshLock and GetLock. Answers the headers of the
 * 200; refusals are 409 with X-WOPI-Lock. Changing a lock needs an edit token; GetLock only a valid one.
 */
export async function lockOperation(
  rc: RequestContext,
  caller: WopiCaller,
  op: LockOperation,
  h: { lock?: string; oldLock?: string },
): Promise<Record<string, string>> {
  const stub = lockStub(rc, caller.asset.id);
  const version = { "X-WOPI-ItemVersion": String(caller.asset.latestVersion) };
  if (op === "GET_LOCK") {
    const lock = await stub.get();
    return { "X-WOPI-Lock": lock?.lockId ?? "", ...version };
  }
  const lockId = requireLockId(h.lock);
  if (h.oldLock !== undefined && h.oldLock.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  requireWrite(caller);
  const holder = { userId: caller.actor.id, name: caller.actor.name };
  if (op === "LOCK") outcome(await stub.lock({ lockId, oldLockId: h.oldLock || undefined, holder }));
  else if (op === "REFRESH_LOCK") outcome(await stub.refresh(lockId));
  else outcome(await stub.unlock(lockId));
  return version;
}

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
async function writeVersion(rc: RequestContext, actor: Actor, asset: AssetRow, file: { fileName: string; mime: string }, upload: Upload, size: number): Promise<UploadComplete> {
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
export async function putFile(rc: RequestContext, caller: WopiCaller, lockHeader: string | undefined, upload: Upload): Promise<{ version: number; modified: string }> {
  requireWrite(caller);
  if (lockHeader !== undefined && lockHeader.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  const [lock, variant] = await Promise.all([lockStub(rc, caller.asset.id).get(), currentVariant(rc, caller.asset)]);
  if (lock && lock.lockId !== lockHeader) throw conflict(lock.lockId);
  if (!lock && (variant?.variant.contentSize ?? 0) > 0) throw conflict("", ru.wopi.notLocked);
  const size = declaredSize(rc, upload);
  const name = fileNameOf(caller.asset, variant);
  const done = await writeVersion(rc, caller.actor, caller.asset, { fileName: variant?.variant.fileName ?? name, mime: variant?.variant.mimeType ?? caller.asset.mime }, upload, size);
  return { version: done.asset_version, modified: new Date().toISOString() };
}

const BAD_NAME = /[\\/:*?"<>|\u0000-\u001f]/;

function validName(name: string): boolean {
  return name.trim().length > 0 && name.length <= 255 && !BAD_NAME.test(name) && name !== "." && name !== "..";
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
export async function putRelative(rc: RequestContext, caller: WopiCaller, target: RelativeTarget, upload: Upload, origin: string): Promise<RelativeResult> {
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
    if (!validName(wanted)) throw new AppError("BAD_REQUEST", ru.wopi.badName);
    name = await freeName(rc, group.id, wanted);
  } else {
    name = target.relative!.trim();
    if (!validName(name)) throw new AppError("BAD_REQUEST", ru.wopi.badName);
    existing = await assetNamed(rc, group.id, name);
    if (existing && !target.overwrite) {
      throw new AppError("CONFLICT", ru.wopi.nameExists(name), { "X-WOPI-ValidRelativeTarget": encodeUtf7(await freeName(rc, group.id, name)) });
    }
  }
  const ext = extOf(name);
  const mime = ext === extOf(original) ? caller.asset.mime : (MIME_BY_EXT[ext] ?? "application/octet-stream");

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
  const token = await signWopiToken(rc.config.JWT_SECRET, { userId: caller.actor.id, assetId: targetId, right: "edit", client: caller.claims.client, exp });
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
export async function renameFile(rc: RequestContext, caller: WopiCaller, requested: string | null, lockHeader: string | undefined): Promise<{ Name: string }> {
  requireWrite(caller);
  if (lockHeader !== undefined && lockHeader.length > WOPI_LOCK_MAX_LENGTH) throw new AppError("BAD_REQUEST", ru.wopi.lockTooLong);
  const lock = await lockStub(rc, caller.asset.id).get();
  if (lock && lock.lockId !== lockHeader) throw conflict(lock.lockId);
  const ext = extOf(fileNameOf(caller.asset, await currentVariant(rc, caller.asset)));
  const base = requested?.trim() ?? "";
  const name = ext ? `${base}.${ext}` : base;
  if (!base || !validName(name)) throw new AppError("BAD_REQUEST", ru.wopi.badName, { "X-WOPI-InvalidFileNameError": "Invalid file name" });
  await updateAsset(rc, caller.actor, caller.asset.id, { asset_name: name });
  return { Name: base };
}

// ---------------------------------------------------------------------------------------------------------------
// Text data and the editor URL

export interface TextData extends ExtractedText {
  asset_id: string;
  version: number;
  file_name: string;
  mime_type: string;
}

/** `GET /files/{id}/text`: the plain text of the current version (documents up to 20 MiB), for search, RAG and viewing. */
export async function textData(rc: RequestContext, caller: WopiCaller): Promise<TextData> {
  const variant = await currentVariant(rc, caller.asset);
  const file_name = fileNameOf(caller.asset, variant);
  const base = { asset_id: caller.asset.id, version: caller.asset.latestVersion, file_name, mime_type: variant?.variant.mimeType ?? caller.asset.mime };
  if (!variant) return { ...base, kind: null, text: "", blocks: [], truncated: false };
  if (variant.variant.contentSize > TEXT_MAX_BYTES) throw new AppError("PAYLOAD_TOO_LARGE", ru.wopi.textTooLarge(TEXT_MAX_BYTES / 1024 / 1024));
  const object = await (await backendFor(rc, variant.variant.storageId)).get(variant.variant.storageKey);
  if (!object?.body) throw new AppError("NOT_FOUND", ru.assets.contentMissing);
  const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
  const extracted = await extractText(bytes, variant.variant.mimeType, variant.variant.fileName || file_name);
  if (extracted.kind === null) throw new AppError("UNSUPPORTED_MEDIA_TYPE", ru.wopi.textUnsupported);
  return { ...base, ...extracted };
}

export interface AppUrl extends IssuedToken {
  /** the editor's URL for the file; the page POSTs access_token and access_token_ttl to it in a frame */
  url: string;
  action: string;
  app: string;
  favicon: string | null;
}

/**
 * `GET /app-url/{id}`: the configured editor's URL for this file's extension and the action (edit falls back to view
 * for users without update), with WOPISrc filled in, and a fresh editor token. 404 when no editor is configured or
 * it does not open this type.
 */
export async function appUrl(rc: RequestContext, actor: Actor, assetId: string, wanted: WopiRight, origin: string): Promise<AppUrl> {
  const discovery = await loadDiscovery(rc.config.WOPI_DISCOVERY_URL);
  if (!discovery) throw new AppError("NOT_FOUND", ru.wopi.notConfigured);
  const { asset, ...token } = await issueToken(rc, actor, assetId, wanted, "editor");
  const name = fileNameOf(asset, await currentVariant(rc, asset));
  const ext = extOf(name);
  const action = findAction(discovery, ext, asset.mime, token.right) ?? (token.right === "edit" ? findAction(discovery, ext, asset.mime, "view") : null);
  if (!action) throw new AppError("NOT_FOUND", ru.wopi.noAction(ext || "?"));
  return { ...token, url: actionUrl(action.urlsrc, `${origin}/api/wopi/files/${asset.id}`), action: action.name, app: action.app, favicon: action.favIconUrl };
}
