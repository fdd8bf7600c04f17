import { outboundUrlProblem } from "../../lib/outbound-url";
import { ru } from "../../../shared/i18n/ru";
import {
  DEFAULT_STORAGE_ID,
  findStorage,
  defaultStorageId,
  findStorageEntity,
  foldersUsingStorage,
  insertStorageIfNameFree,
  listStorages,
  resolveStorageRow,
  setDefaultStorage,
  storageUsage,
  updateStorageIfNameFree,
} from "../../db/repositories/storage.repository";
import type { StorageRow } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { open, seal } from "../../lib/secret-box";
import { requireEntityAccess, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { checkConnection } from "./connection-check";
import { type Fetcher, s3Backend } from "./s3-backend";
import { r2Backend, type StorageBackend } from "./storage-backend";

export { DEFAULT_STORAGE_ID };

/** Where an S3-compatible bucket is (SPEC §3 storage_setup). */
export interface StorageSetup {
  url: string;
  bucket: string;
  region?: string | null;
}

/** Access keys of an S3-compatible bucket (SPEC §3 creds): user = access key id, passwd = secret, token = session token. */
export interface StorageCreds {
  user: string;
  passwd: string;
  token?: string | null;
}

/** A storage as the API lists it: never its credentials, only whether it has them. */
export interface StorageInfo {
  storage_id: string;
  storage_name: string;
  storage_setup: { url: string | null; bucket: string | null; region: string | null };
  kind: "r2" | "s3";
  has_creds: boolean;
  /** new files go here unless a folder or file on their way chooses another */
  is_default: boolean;
}

/**
 * Whether storage endpoints may be on loopback addresses: only when `STORAGE_ALLOW_LOOPBACK` is "true", which the
 * local end-to-end run sets for its fake S3 server; private and metadata addresses are refused regardless.
 */
function allowsLoopback(rc: RequestContext): boolean {
  return (rc.env as unknown as { STORAGE_ALLOW_LOOPBACK?: string }).STORAGE_ALLOW_LOOPBACK === "true";
}

/** 400 (as a validation error of `setup.url`) unless the endpoint may be called under this deployment's rules. */
function requireCallableEndpoint(rc: RequestContext, url: string): void {
  const problem = outboundUrlProblem(url, { allowLoopback: allowsLoopback(rc) });
  if (problem) throw new AppError("BAD_REQUEST", ru.errors.invalidField("setup.url", problem));
}

/** Tries the endpoint with the keys; 400 with the reason when it fails, so nothing is saved. */
async function requireConnection(setup: StorageSetup, creds: StorageCreds): Promise<void> {
  const problem = await checkConnection(setup, {
    accessKeyId: creds.user,
    secretAccessKey: creds.passwd,
    sessionToken: creds.token ?? undefined,
  });
  if (problem) throw new AppError("BAD_REQUEST", ru.catalog.storageCheck.failed(problem));
}

/** The stored keys of a storage, decrypted (never answered; for the connection check and the backend). */
async function openCreds(rc: RequestContext, row: StorageRow): Promise<StorageCreds> {
  if (!row.credsEncrypted) throw new AppError("SERVICE_UNAVAILABLE", ru.catalog.storageCredsUnreadable);
  try {
    return JSON.parse(await open(rc.config.JWT_SECRET, row.credsEncrypted, { context: row.id })) as StorageCreds;
  } catch {
    // The secret changed since the credentials were stored, or the row was altered: an admin must set them again.
    throw new AppError("SERVICE_UNAVAILABLE", ru.catalog.storageCredsUnreadable);
  }
}

function requireAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", ru.catalog.adminOnly);
}

/** Administrators see where a storage is; others only its name and kind. */
function toInfo(row: StorageRow, actor: Actor, defaultId: string): StorageInfo {
  const showSetup = actor.isAdmin;
  return {
    storage_id: row.id,
    storage_name: row.name,
    storage_setup: {
      url: showSetup ? row.url : null,
      bucket: showSetup ? row.bucket : null,
      region: showSetup ? row.region : null,
    },
    kind: row.kind,
    has_creds: row.credsEncrypted != null,
    is_default: row.id === defaultId,
  };
}

/** Credentials are sealed with AES-GCM, bound to the storage id, under a key derived from the server secret. */
function sealCreds(rc: RequestContext, storageId: string, creds: StorageCreds): Promise<string> {
  const payload: StorageCreds = { user: creds.user, passwd: creds.passwd, ...(creds.token ? { token: creds.token } : {}) };
  return seal(rc.config.JWT_SECRET, JSON.stringify(payload), { context: storageId });
}

/** Every storage, the default R2 first. Any signed-in user may list them (to choose one); setup is for admins. */
export async function listStorageInfos(rc: RequestContext, actor: Actor): Promise<StorageInfo[]> {
  const [rows, defaultId] = await Promise.all([listStorages(rc.db), defaultStorageId(rc.db, ROOT_GROUP_ID)]);
  return rows.map((row) => toInfo(row, actor, defaultId));
}

/** One storage; 404 when unknown. */
export async function getStorageInfo(rc: RequestContext, actor: Actor, id: string): Promise<StorageInfo> {
  const [row, defaultId] = await Promise.all([findStorage(rc.db, id), defaultStorageId(rc.db, ROOT_GROUP_ID)]);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.storageNotFound);
  return toInfo(row, actor, defaultId);
}

/**
 * Adds an external S3-compatible storage (administrators only). The credentials are encrypted before they reach
 * D1 and never leave the server again. 409 when the name is taken (case-insensitively).
 */
export async function createStorage(
  rc: RequestContext,
  actor: Actor,
  input: { name: string; setup: StorageSetup; creds: StorageCreds; verify?: boolean },
): Promise<StorageInfo> {
  requireAdmin(actor);
  requireCallableEndpoint(rc, input.setup.url);
  if (input.verify) await requireConnection(input.setup, input.creds);
  const now = Date.now();
  const id = newId(now);
  const inserted = await insertStorageIfNameFree(rc.db, {
    id,
    name: input.name,
    kind: "s3",
    url: input.setup.url,
    bucket: input.setup.bucket,
    region: input.setup.region ?? null,
    credsEncrypted: await sealCreds(rc, id, input.creds),
    ctime: now,
    mtime: now,
  });
  if (!inserted) throw new AppError("CONFLICT", ru.catalog.storageExists(input.name));
  // The whole storage, as SPEC §3 names it (storage_id, storage_name, storage_setup): a client needs no second call.
  return getStorageInfo(rc, actor, id);
}

/**
 * Renames a storage, moves it (setup) or replaces its credentials (administrators only). The default R2 storage can
 * only be renamed. 404 unknown, 409 name taken or default storage reconfigured.
 */
export async function updateStorage(
  rc: RequestContext,
  actor: Actor,
  id: string,
  change: { name?: string; setup?: StorageSetup; creds?: StorageCreds; verify?: boolean; default?: boolean },
): Promise<StorageInfo> {
  requireAdmin(actor);
  const row = await findStorage(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.storageNotFound);
  if (row.kind === "r2" && (change.setup !== undefined || change.creds !== undefined)) {
    throw new AppError("CONFLICT", ru.catalog.defaultStorageLocked);
  }
  if (change.setup) requireCallableEndpoint(rc, change.setup.url);
  if (change.verify && row.kind === "s3") {
    // The storage as it would be after the change: new address or keys where given, the stored ones otherwise.
    const setup = change.setup ?? { url: row.url ?? "", bucket: row.bucket ?? "", region: row.region };
    requireCallableEndpoint(rc, setup.url);
    await requireConnection(setup, change.creds ?? (await openCreds(rc, row)));
  }
  if (change.name === undefined && change.setup === undefined && change.creds === undefined) {
    // Only «make it the default» (the schema refuses an empty change).
    if (change.default) await setDefaultStorage(rc.db, ROOT_GROUP_ID, id === DEFAULT_STORAGE_ID ? null : id);
    return getStorageInfo(rc, actor, id);
  }
  const updated = await updateStorageIfNameFree(rc.db, id, {
    name: change.name,
    url: change.setup?.url,
    bucket: change.setup?.bucket,
    region: change.setup ? (change.setup.region ?? null) : undefined,
    credsEncrypted: change.creds ? await sealCreds(rc, id, change.creds) : undefined,
    mtime: Date.now(),
  });
  if (!updated) {
    if (!(await findStorage(rc.db, id))) throw new AppError("NOT_FOUND", ru.catalog.storageNotFound);
    throw new AppError("CONFLICT", ru.catalog.storageExists(change.name ?? row.name));
  }
  // After the change was checked and saved: a storage that failed its check never becomes the default.
  if (change.default) await setDefaultStorage(rc.db, ROOT_GROUP_ID, id === DEFAULT_STORAGE_ID ? null : id);
  return getStorageInfo(rc, actor, id);
}

/** How many of the folders using a storage the usage answer names. */
const FOLDERS_SHOWN = 50;

/**
 * What a storage holds: bytes, variants and assets over ready variants (one aggregate query). Administrators see
 * the whole storage, others the part their own assets use.
 */
export async function getStorageUsage(rc: RequestContext, actor: Actor, id: string) {
  const row = await findStorage(rc.db, id);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.storageNotFound);
  const [usage, folders] = await Promise.all([
    storageUsage(rc.db, id, await visibility(rc, actor)),
    // Which folders send their files here: administrators only (the names of others' folders are not for everyone).
    actor.isAdmin ? foldersUsingStorage(rc.db, id, FOLDERS_SHOWN) : Promise.resolve([]),
  ]);
  return { storage_id: id, ...usage, folders };
}

/**
 * The storage an asset's or group's new bytes go to, without an access check (for services that already checked):
 * own default, else inherited from groups (see `resolveStorageRow`), else the default R2 storage.
 * @example const { id } = await resolveEntityStorage(rc, { type: "asset", id: assetId }); const backend = await getStorageBackend(rc, id)
 */
export async function resolveEntityStorage(rc: RequestContext, entity: { type: "asset" | "group"; id: string }) {
  const row = await resolveStorageRow(rc.db, entity);
  return row ?? { id: DEFAULT_STORAGE_ID, name: "R2" };
}

/**
 * GET /api/storage/for-entity/{id}: the storage an asset or group uses, for a caller who may read it (404
 * otherwise, so existence does not leak), as SPEC §3 Storage (storage_setup for administrators, like the list).
 * The virtual root uses the default storage.
 */
export async function storageForEntity(rc: RequestContext, actor: Actor, id: string): Promise<StorageInfo> {
  if (id === ROOT_GROUP_ID) return getStorageInfo(rc, actor, (await resolveEntityStorage(rc, { type: "group", id })).id);
  const entity = await findStorageEntity(rc.db, id);
  if (!entity) throw new AppError("NOT_FOUND", ru.catalog.entityNotFound);
  await requireEntityAccess(rc, actor, { id, type: entity.type, ownerId: entity.owner_id }, "read", ru.catalog.entityNotFound);
  return getStorageInfo(rc, actor, (await resolveEntityStorage(rc, { type: entity.type, id })).id);
}

const backends = new WeakMap<RequestContext, Map<string, Promise<StorageBackend>>>();

async function openBackend(rc: RequestContext, storageId: string, fetcher?: Fetcher): Promise<StorageBackend> {
  if (storageId === DEFAULT_STORAGE_ID) return r2Backend(rc.env.MEDIA);
  // A global row: read from the global database even when the operation runs over a library shard's (decision 043).
  const row = await findStorage(rc.dbSession.db, storageId);
  if (!row) throw new AppError("NOT_FOUND", ru.catalog.storageNotFound);
  if (row.kind === "r2") return r2Backend(rc.env.MEDIA);
  if (!row.url || !row.bucket || !row.credsEncrypted) throw new AppError("SERVICE_UNAVAILABLE", ru.catalog.storageCredsUnreadable);
  // A row written before endpoints were filtered (or by hand) is never called on an internal address either.
  const problem = outboundUrlProblem(row.url, { allowLoopback: allowsLoopback(rc) });
  if (problem) throw new AppError("SERVICE_UNAVAILABLE", ru.catalog.storageUrlRefused(problem));
  const creds = await openCreds(rc, row);
  return s3Backend(
    { url: row.url, bucket: row.bucket, region: row.region },
    { accessKeyId: creds.user, secretAccessKey: creds.passwd, sessionToken: creds.token ?? undefined },
    fetcher,
  );
}

/**
 * The backend that reads and writes a storage's bytes: the R2 binding for the default storage, a SigV4-signing S3
 * client (credentials decrypted here, never returned) for external ones. Memoised per request. 404 when the storage
 * does not exist, 503 when its credentials cannot be opened.
 * @example const backend = await getStorageBackend(rc, variant.storageId); const object = await backend.get(variant.storageKey)
 */
export function getStorageBackend(rc: RequestContext, storageId: string, fetcher?: Fetcher): Promise<StorageBackend> {
  if (fetcher) return openBackend(rc, storageId, fetcher);
  let perRequest = backends.get(rc);
  if (!perRequest) backends.set(rc, (perRequest = new Map()));
  let backend = perRequest.get(storageId);
  if (!backend) {
    backend = openBackend(rc, storageId);
    perRequest.set(storageId, backend);
    backend.catch(() => perRequest.delete(storageId));
  }
  return backend;
}
