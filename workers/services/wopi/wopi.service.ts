// Over 400 lines on purpose: tokens, file info, locks and the editor URL share one token-and-lock flow; writes: wopi-write.service.ts.
import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { findAsset, firstFolderOf } from "../../db/repositories/asset.repository";
import { selectReadyVariants, type ReadyVariant } from "../../db/repositories/asset-versions.repository";
import type { AssetRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { signWopiToken, verifyWopiToken, type WopiClient, type WopiRight, type WopiTokenClaims, type WopiVia } from "../../lib/wopi-token";
import { WOPI_LOCK_MAX_LENGTH, type WopiLockResult, type WopiLockState } from "../../../durable-objects/wopi-lock.do";
import { readCallerCopyAhead } from "../../db/repositories/caller-copy.repository";
import { actorOfRobotToken, actorOfSession, auditDownloadStatement, canAccess, onShard } from "../access";
import { backendFor, maxUploadBytes, mainVariant, requireAsset } from "../library";
import type { Actor, RequestContext } from "../access";
import { MAX_SINGLE_UPLOAD_BYTES } from "../storage/pure";
import type { ExtractedText } from "../media";
import { decode } from "../../lib/decoder";
import { actionUrl, findAction, loadDiscovery, type Discovery } from "./discovery";
import { verifyProof, type ProofHeaders } from "./proof";

/**
 * The WOPI host: access tokens, CheckFileInfo, GetFile/PutFile, locks (one WopiLockDO per file), PutRelativeFile,
 * RenameFile, the plain text of a document and the editor URL from discovery. Every call re-checks the token's
 * user against the access model, so a right taken away ends editing at the next request.
 */

/**
 * Lifetime of a WOPI access token: 4 hours, an afternoon of editing. Shorter than the protocol's suggested 10 hours
 * because the token travels in URLs (editor logs, proxies); it also ends with the session that minted it.
 */
export const WOPI_TOKEN_TTL_MS = 4 * 3600 * 1000;
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
  /**
   * The current version's ready variants, when the route asked for them (GetFile): read beside the token's session
   * and the asset, so serving the bytes adds no round trip after the check.
   */
  variants?: ReadyVariant[];
}

export function lockStub(rc: RequestContext, assetId: string) {
  return rc.env.WOPI_LOCKS.get(rc.env.WOPI_LOCKS.idFromName(assetId));
}

/** The lock a file holds now (for the editor's top bar and the app), or null. */
export async function currentLock(rc: RequestContext, assetId: string): Promise<WopiLockState | null> {
  return lockStub(rc, assetId).get();
}

export function extOf(name: string): string {
  return /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1].toLowerCase() ?? "";
}

/** The version's main variant (master, initial, untyped), else any ready one. */
export async function currentVariant(rc: RequestContext, asset: AssetRow, prefetched?: ReadyVariant[]): Promise<ReadyVariant | undefined> {
  if (asset.latestVersion === 0) return undefined;
  // Rows read beside the asset belong to the version it names unless a new version landed in between (or none were
  // ready): read again by the number the asset row names.
  const rows =
    prefetched?.length && prefetched.every((row) => row.version === asset.latestVersion)
      ? prefetched
      : await selectReadyVariants(rc.db, asset.id, asset.latestVersion);
  return mainVariant(rows) ?? rows[0];
}

/** The file name an editor sees: the asset's name, with the bytes' extension added when the name lacks one. */
export function fileNameOf(asset: AssetRow, variant: ReadyVariant | undefined): string {
  const ext = extOf(variant?.variant.fileName ?? "");
  return ext && extOf(asset.name) !== ext ? `${asset.name}.${ext}` : asset.name;
}

/** The folder the asset is listed in first (where copies go, and where "back" leads). */
export async function homeGroup(rc: RequestContext, assetId: string) {
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
 * The credential a WOPI token is bound to: the caller's session family, or the robot token it called with. Actors
 * with neither (none reach the token routes) get no token.
 */
export function credentialOf(actor: Actor): { via: WopiVia; sid: string } {
  if (actor.sessionFamily) return { via: "session", sid: actor.sessionFamily };
  if (actor.robotTokenId) return { via: "robot", sid: actor.robotTokenId };
  throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
}

/**
 * Issues a WOPI access token for one asset: `view` needs read and download (the editor receives the bytes), `edit`
 * also update. Asking for edit without update answers a view token, so read-only users can still open documents.
 */
export async function issueToken(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  wanted: WopiRight,
  client: WopiClient,
): Promise<IssuedToken & { asset: AssetRow }> {
  const asset = await requireAsset(rc, actor, assetId, "read");
  const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
  const [download, update] = await Promise.all([
    canAccess(rc, actor, entity, "download"),
    wanted === "edit" ? canAccess(rc, actor, entity, "update") : false,
  ]);
  if (!download) throw new AppError("FORBIDDEN", ru.errors.forbidden);
  const right: WopiRight = update ? "edit" : "view";
  const exp = Date.now() + WOPI_TOKEN_TTL_MS;
  const access_token = await signWopiToken(rc.config.JWT_SECRET, { userId: actor.id, assetId, right, client, exp, ...credentialOf(actor) });
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

/** The file as the editor screen and the editor's URL need it, with a token for the caller (`editorFile`). */
export interface EditorFile {
  token: IssuedToken;
  file: EditorSession["file"];
  /** the file's own type, which picks the editor's action */
  assetMime: string;
}

/**
 * A token for the caller on file `assetId` and what the editor shows of the file (name, type, size, version, folder):
 * read where the file's library lives (a routed read). The lock and the editor's discovery are global: the Worker
 * adds them (`editorSession`, `appUrl`).
 */
export async function editorFile(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  wanted: WopiRight,
  client: WopiClient,
): Promise<EditorFile> {
  const { asset, ...token } = await issueToken(rc, actor, assetId, wanted, client);
  const [variant, group] = await Promise.all([currentVariant(rc, asset), homeGroup(rc, asset.id)]);
  const name = fileNameOf(asset, variant);
  return {
    token,
    assetMime: asset.mime,
    file: {
      asset_id: asset.id,
      name,
      mime_type: variant?.variant.mimeType ?? asset.mime,
      size: variant?.variant.contentSize ?? 0,
      version: asset.latestVersion,
      group_id: group?.id ?? null,
      extension: extOf(name),
    },
  };
}

/** `POST /api/wopi/token`: the token plus what the editor screen shows (the file, its version and folder, the lock). */
export async function editorSession(rc: RequestContext, { token, file }: EditorFile, origin: string): Promise<EditorSession> {
  const [office_editor, lock] = await Promise.all([officeEditorFor(rc, file.extension, file.mime_type), currentLock(rc, file.asset_id)]);
  return { ...token, office_editor, wopi_src: `${origin}/api/wopi/files/${file.asset_id}`, file, lock: lockView(lock) };
}

/** `GET /api/wopi/lock/{id}`: who holds the file's lock, once the caller was found to read the file. */
export async function lockInfo(rc: RequestContext, assetId: string): Promise<{ lock: EditorSession["lock"] }> {
  return { lock: lockView(await currentLock(rc, assetId)) };
}

/** A WOPI token's claims and the actor of the credential it was minted under: global rows only. */
export type WopiCredential = Pick<WopiCaller, "token" | "claims" | "actor">;

/** The token's claims, checked for the file in the path: forged, expired or missing → 401, another file's → 401. */
async function wopiClaims(rc: RequestContext, token: string | undefined, assetId: string): Promise<WopiTokenClaims> {
  if (!token) throw new AppError("UNAUTHORIZED", ru.wopi.tokenInvalid);
  const claims = await verifyWopiToken(rc.config.JWT_SECRET, token);
  if (!claims) throw new AppError("UNAUTHORIZED", ru.wopi.tokenInvalid);
  if (claims.assetId !== assetId) throw new AppError("UNAUTHORIZED", ru.wopi.tokenOtherFile);
  return claims;
}

/**
 * The actor rebuilt from the credential the token was minted under, which must still be live: the session (logout, a
 * new password, a disabled account and reuse detection end it) or the robot token (revocation, expiry), with the
 * same administrator flag and robot scope the minting request had; 401 otherwise.
 */
function credentialActor(rc: RequestContext, claims: WopiTokenClaims): Promise<Actor> {
  const actor = claims.via === "session" ? actorOfSession(rc, claims.userId, claims.sid) : actorOfRobotToken(rc, claims.userId, claims.sid);
  return actor.catch((error: unknown) => {
    if (error instanceof AppError && error.status === 401) throw new AppError("UNAUTHORIZED", ru.wopi.sessionEnded);
    throw error;
  });
}

/** The file, live and still readable and downloadable by the token's user (404 otherwise), and whether he may write it. */
async function fileAccess(
  rc: RequestContext,
  credential: WopiCredential,
  asset: AssetRow | undefined,
): Promise<Pick<WopiCaller, "asset" | "canWrite">> {
  if (!asset || asset.deletedAt != null) throw new AppError("NOT_FOUND", ru.assets.notFound);
  const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
  const { actor, claims } = credential;
  const [read, download, update] = await Promise.all([
    canAccess(rc, actor, entity, "read"),
    canAccess(rc, actor, entity, "download"),
    claims.right === "edit" ? canAccess(rc, actor, entity, "update") : false,
  ]);
  if (!read || !download) throw new AppError("NOT_FOUND", ru.assets.notFound);
  return { asset, canWrite: update };
}

/**
 * Checks a WOPI request's token for the file in the path (`wopiClaims`, `credentialActor`, `fileAccess`) over the
 * catalog: the credential and the file's rows in one round trip, the variants too when asked (GetFile); nothing of
 * them is answered before the checks pass.
 */
export async function resolveCaller(
  rc: RequestContext,
  token: string | undefined,
  assetId: string,
  options: { variants?: boolean } = {},
): Promise<WopiCaller> {
  const claims = await wopiClaims(rc, token, assetId);
  const [actor, asset, variants] = await Promise.all([
    credentialActor(rc, claims),
    findAsset(rc.db, assetId),
    options.variants ? selectReadyVariants(rc.db, assetId, "latest") : undefined,
  ]);
  const credential = { token: token!, claims, actor };
  return { ...credential, ...(await fileAccess(rc, credential, asset)), ...(variants ? { variants } : {}) };
}

/**
 * The token's credential alone, for a file whose library lives in a shard, which then checks the file
 * (`fileInfoOf`, `fileToServe`); the caller's copy the call carries is read beside the credential.
 */
export async function wopiCredential(rc: RequestContext, token: string | undefined, assetId: string): Promise<WopiCredential> {
  const claims = await wopiClaims(rc, token, assetId);
  readCallerCopyAhead(rc, rc.db, claims.userId);
  return { token: token!, claims, actor: await credentialActor(rc, claims) };
}

/** The caller completed with the file, where its library lives. */
export async function callerOnFile(rc: RequestContext, credential: WopiCredential, assetId: string): Promise<WopiCaller> {
  return { ...credential, ...(await fileAccess(rc, credential, await findAsset(rc.db, assetId))) };
}

/** CheckFileInfo where the file's library lives (a routed read). */
export async function fileInfoOf(rc: RequestContext, credential: WopiCredential, assetId: string, origin: string) {
  return checkFileInfo(rc, await callerOnFile(rc, credential, assetId), origin);
}

/** The file and its current variant, what GetFile and the text call read, for a caller who may (a routed read). */
export async function fileToServe(rc: RequestContext, credential: WopiCredential, assetId: string): Promise<WopiFile> {
  const { asset } = await callerOnFile(rc, credential, assetId);
  // Read in a shard, with the folder its download's audit entry names (the catalog's lookup reads its copy).
  const [variant, folderId] = await Promise.all([currentVariant(rc, asset), onShard(rc) ? firstFolderOf(rc.db, asset.id) : undefined]);
  return { asset, variant, folderId };
}

/** A checked caller's file and its current version's main variant (none before the first version). */
export interface WopiFile {
  asset: AssetRow;
  variant: ReadyVariant | undefined;
  /** the folder its audit entries are filed under, when read in a shard */
  folderId?: string;
}

/**
 * Proof-key check of a request from the office editor, when the configured editor publishes proof keys. Browser
 * tokens (the built-in viewer and text editor) are never sent to an editor, so their requests carry no proof.
 */
export async function requireProof(rc: RequestContext, caller: WopiCredential, url: string, headers: ProofHeaders): Promise<void> {
  if (caller.claims.client !== "editor") return;
  const discovery = await loadDiscovery(rc.config.WOPI_DISCOVERY_URL);
  if (!discovery?.proofKeys.current) return;
  const outcome = await verifyProof(discovery.proofKeys, caller.token, url, headers);
  if (outcome === "missing") throw new AppError("UNAUTHORIZED", ru.wopi.proofMissing);
  if (outcome === "expired") throw new AppError("UNAUTHORIZED", ru.wopi.proofExpired);
  if (outcome === "invalid") throw new AppError("UNAUTHORIZED", ru.wopi.proofInvalid);
}

export function requireWrite(caller: WopiCaller): void {
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
    ...(variant?.variant.sha256
      ? { SHA256: btoa(String.fromCharCode(...(variant.variant.sha256.match(/../g) ?? []).map((h) => parseInt(h, 16)))) }
      : {}),
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

/** The file a caller checked over the catalog may be served (the variants read beside the check when asked). */
export async function fileOf(rc: RequestContext, caller: WopiCaller): Promise<WopiFile> {
  return { asset: caller.asset, variant: await currentVariant(rc, caller.asset, caller.variants) };
}

/**
 * `GET /files/{id}/contents`: the current version's bytes, streamed from storage, for `actorId`. `maxExpected`
 * (X-WOPI-MaxExpectedSize) answers 412 when the file is larger.
 */
export async function getFile(rc: RequestContext, actorId: string, file: WopiFile, maxExpected: string | undefined): Promise<Response> {
  const { asset, variant } = file;
  const headers = new Headers({
    "X-WOPI-ItemVersion": String(asset.latestVersion),
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
  // An editor opening the file takes its bytes: a download by the token's user, through WOPI. Written once the
  // answer is on its way (a timer turn after it), so the editor, which opens files often, waits for no write.
  const audit = auditDownloadStatement(rc, {
    actorId,
    channel: "wopi",
    files: [{ id: asset.id, name: asset.name, folderId: file.folderId }],
    details: { version: asset.latestVersion },
  });
  rc.waitUntil(
    scheduler
      .wait(0)
      .then(() => rc.db.run(audit))
      .catch((error) =>
        console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "GetFile audit lost", error: String(error) })),
      ),
  );
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
export function conflict(current: string, reason: string = ru.wopi.lockConflict): AppError {
  return new AppError("CONFLICT", reason, {
    "X-WOPI-Lock": current,
    "X-WOPI-LockFailureReason": current ? "Locked by another client" : "Not locked",
  });
}

function outcome(result: WopiLockResult): void {
  if (!result.ok) throw conflict(result.current, result.current ? ru.wopi.lockConflict : ru.wopi.notLocked);
}

export type LockOperation = "LOCK" | "UNLOCK" | "REFRESH_LOCK" | "GET_LOCK";

/**
 * Lock, UnlockAndRelock (LOCK with X-WOPI-OldLock), Unlock, RefreshLock and GetLock. Answers the headers of the
 * 200; refusals are 409 with X-WOPI-Lock. Every lock operation, GetLock included, needs an edit token.
 */
export async function lockOperation(
  rc: RequestContext,
  caller: WopiCaller,
  op: LockOperation,
  h: { lock?: string; oldLock?: string },
): Promise<Record<string, string>> {
  const stub = lockStub(rc, caller.asset.id);
  const version = { "X-WOPI-ItemVersion": String(caller.asset.latestVersion) };
  // The lock id is what lets a client write: only a writer may read it (a viewer could otherwise take over an
  // editor's session). A view token gets the protocol's refusal for an operation it may not do: 401.
  if (op === "GET_LOCK") {
    requireWrite(caller);
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
// Text data and the editor URL

export interface TextData extends ExtractedText {
  asset_id: string;
  version: number;
  file_name: string;
  mime_type: string;
}

/** `GET /files/{id}/text`: the plain text of the current version (documents up to 20 MiB), for search, RAG and viewing. */
export async function textData(rc: RequestContext, file: WopiFile): Promise<TextData> {
  const { asset, variant } = file;
  const file_name = fileNameOf(asset, variant);
  const base = {
    asset_id: asset.id,
    version: asset.latestVersion,
    file_name,
    mime_type: variant?.variant.mimeType ?? asset.mime,
  };
  if (!variant) return { ...base, kind: null, text: "", blocks: [], truncated: false };
  if (variant.variant.contentSize > TEXT_MAX_BYTES)
    throw new AppError("PAYLOAD_TOO_LARGE", ru.wopi.textTooLarge(TEXT_MAX_BYTES / 1024 / 1024));
  // The media Worker reads the stored file itself and extracts its text (decision 032): only ids cross, and a hostile
  // document answers 413/422 at its first crossed limit instead of working for minutes (issue 25).
  const extracted = await decode(rc.env, (decoder) =>
    decoder.documentText({
      storageId: variant.variant.storageId,
      storageKey: variant.variant.storageKey,
      mimeType: variant.variant.mimeType,
      fileName: variant.variant.fileName || file_name,
      maxBytes: TEXT_MAX_BYTES,
    }),
  );
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
export function appUrl(discovery: Discovery | null, { token, file, assetMime }: EditorFile, origin: string): AppUrl {
  if (!discovery) throw new AppError("NOT_FOUND", ru.wopi.notConfigured);
  const ext = file.extension;
  const action =
    findAction(discovery, ext, assetMime, token.right) ?? (token.right === "edit" ? findAction(discovery, ext, assetMime, "view") : null);
  if (!action) throw new AppError("NOT_FOUND", ru.wopi.noAction(ext || "?"));
  return {
    ...token,
    url: actionUrl(action.urlsrc, `${origin}/api/wopi/files/${file.asset_id}`),
    action: action.name,
    app: action.app,
    favicon: action.favIconUrl,
  };
}
