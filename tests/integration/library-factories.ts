import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { libraryShard } from "../../workers/db/library-directory";
import { closureOf, sortKeyOf } from "../../workers/services/library/group-tree";
import { FakeS3 } from "./catalog-fixtures";
import { throughShards } from "./through-shards";
import { call, signIn, signInAdmin, type Session, type TestUser } from "./factories";

/** Id of the default storage row (the R2 binding MEDIA). */
export const DEFAULT_STORAGE = "0".repeat(32);
export { ROOT_GROUP_ID, throughShards };

let adminSession: Promise<Session & { id: string }> | undefined;

/** The bootstrapped administrator, signed in once per test file. */
export function admin(): Promise<Session & { id: string }> {
  adminSession ??= signInAdmin().then(async (s) => {
    const me = (await (await call("/api/auth/whoami", { bearer: s.bearer })).json()) as { id: string };
    return { ...s, id: me.id };
  });
  return adminSession;
}

export type Caller = { bearer: string; id: string };

/** A fresh ordinary user, signed in. */
export function ordinaryUser(name?: string): Promise<TestUser & Session> {
  return signIn(name ? { name } : {});
}

/** Creates a group through the API and returns its id (fails the test unless the answer is 200). */
export async function createGroup(who: Caller, name: string, parent = ROOT_GROUP_ID, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call("/api/group/create", { method: "POST", bearer: who.bearer, json: { parent, group_name: name, ...extra } });
  const body = (await res.json()) as { group_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.group_id;
}

/** A unique name for a top-level group (tests in one file share the database). */
export function uniqueName(prefix = "Папка"): string {
  return `${prefix} ${newId().slice(-10)}`;
}

export interface AssetSpec {
  ownerId: string;
  name?: string;
  mime?: string;
  /** groups the asset is listed in */
  groups?: string[];
  /** size of the main variant; no version is created when null */
  size?: number | null;
  variantType?: "master" | "initial" | "untyped" | "proxy_lowres";
  /** also adds an 'initial' variant next to a 'master' one */
  withInitial?: boolean;
  preview?: boolean;
  mtime?: number;
  /** storage key of the main variant (shared keys test the purge) */
  storageKey?: string;
  /** bytes written to R2 under the storage keys */
  putBytes?: boolean;
}

export interface CreatedAsset {
  id: string;
  name: string;
  versionId: string | null;
  variantId: string | null;
  initialVariantId: string | null;
  storageKeys: string[];
  previewKey: string | null;
  sha256: string | null;
}

/**
 * Inserts an asset straight into D1 (the asset API is another capability): row, version 1 with a ready main
 * variant, optional preview, and membership rows with the sort keys the group calls keep.
 */
export async function insertAsset(spec: AssetSpec): Promise<CreatedAsset> {
  const now = spec.mtime ?? Date.now();
  const id = newId();
  const name = spec.name ?? `clip-${id.slice(-8)}.mp4`;
  const mime = spec.mime ?? "video/mp4";
  const size = spec.size === undefined ? 1000 : spec.size;
  const statements: D1PreparedStatement[] = [];
  let versionId: string | null = null;
  let variantId: string | null = null;
  let initialVariantId: string | null = null;
  let previewKey: string | null = null;
  const sha256 = size == null ? null : "ab".repeat(32);
  const storageKeys: string[] = [];
  statements.push(
    env.DB.prepare(
      "INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).bind(id, name, mime, spec.ownerId, spec.ownerId, size == null ? 0 : 1, now, now, now),
  );
  if (size != null) {
    versionId = newId();
    variantId = newId();
    const key = spec.storageKey ?? `assets/${id}/${variantId}`;
    storageKeys.push(key);
    statements.push(
      env.DB.prepare("INSERT INTO asset_versions (id, asset_id, version, user_id, ctime) VALUES (?, ?, 1, ?, ?)").bind(
        versionId,
        id,
        spec.ownerId,
        now,
      ),
      env.DB.prepare(
        `INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
         VALUES (?, ?, ?, ?, 'ready', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        variantId,
        id,
        versionId,
        spec.variantType ?? "master",
        name,
        mime,
        name,
        size,
        sha256,
        DEFAULT_STORAGE,
        key,
        spec.ownerId,
        now,
      ),
    );
    if (spec.withInitial) {
      initialVariantId = newId();
      const initialKey = `assets/${id}/${initialVariantId}`;
      storageKeys.push(initialKey);
      statements.push(
        env.DB.prepare(
          `INSERT INTO variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, sha256, storage_id, storage_key, user_id, ctime)
           VALUES (?, ?, ?, 'initial', 'ready', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).bind(
          initialVariantId,
          id,
          versionId,
          name,
          mime,
          name,
          size + 1,
          "cd".repeat(32),
          DEFAULT_STORAGE,
          initialKey,
          spec.ownerId,
          now,
        ),
      );
    }
    if (spec.preview) {
      previewKey = `previews/${id}/thumb`;
      statements.push(
        env.DB.prepare(
          "INSERT INTO previews (id, asset_id, version_id, size, mime_type, content_size, storage_key, ctime) VALUES (?, ?, ?, 'thumb', 'image/jpeg', 10, ?, ?)",
        ).bind(newId(), id, versionId, previewKey, now),
      );
    }
  }
  for (const groupId of spec.groups ?? []) {
    statements.push(
      env.DB.prepare(
        "INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES (?, ?, 'asset', ?, ?, ?, ?)",
      ).bind(groupId, id, now, sortKeyOf(name), now, size ?? 0),
    );
  }
  await throughShards(() => env.DB.batch(statements));
  if (spec.putBytes) {
    for (const key of [...storageKeys, ...(previewKey ? [previewKey] : [])]) await env.MEDIA.put(key, "bytes");
  }
  return { id, name, versionId, variantId, initialVariantId, storageKeys, previewKey, sha256 };
}

/** Inserts a tag row and returns its id. */
export async function insertTag(name = `тег-${newId().slice(-8)}`): Promise<string> {
  const id = newId();
  await env.DB.prepare("INSERT INTO tags (id, name, ctime) VALUES (?, ?, ?)").bind(id, name, Date.now()).run();
  return id;
}

/** Inserts a storage row (an external bucket) and returns its id. */
export async function insertStorage(name = `S3 ${newId().slice(-6)}`): Promise<string> {
  const id = newId();
  await env.DB.prepare("INSERT INTO storages (id, name, kind, url, bucket, ctime, mtime) VALUES (?, ?, 's3', 'https://s3.test', 'b', 0, 0)")
    .bind(id, name)
    .run();
  return id;
}

/**
 * An external S3 storage made through the API (credentials sealed as in production) and a fake S3 answering for it
 * through the global `fetch`, the way the storage backend reaches it. Undo with `vi.unstubAllGlobals()`.
 */
export async function externalStorage(): Promise<{ id: string; fake: FakeS3 }> {
  const setup = { url: "https://s3.library.test", bucket: "archive", region: "eu-central-1" };
  const creds = { user: "AKIALIBRARYTEST01", passwd: "library/secret+0123456789" };
  const res = await call("/api/storage/create", {
    method: "POST",
    bearer: (await admin()).bearer,
    json: { name: uniqueName("S3"), setup, creds },
  });
  const body = (await res.json()) as { storage_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  const fake = new FakeS3({
    endpoint: setup.url,
    bucket: setup.bucket,
    accessKeyId: creds.user,
    secretAccessKey: creds.passwd,
    region: setup.region,
  });
  vi.stubGlobal("fetch", fake.fetch);
  return { id: body.storage_id, fake };
}

/** Inserts an asset class row and returns its id. */
export async function insertAssetClass(name = `Класс ${newId().slice(-6)}`): Promise<string> {
  const id = newId();
  await env.DB.prepare("INSERT INTO asset_classes (id, name, ctime, mtime) VALUES (?, ?, 0, 0)").bind(id, name).run();
  return id;
}

async function rows(query: string): Promise<unknown[]> {
  return (await env.DB.prepare(query).all()).results;
}

/**
 * Everything the group calls can change, for "nothing changed" assertions in security and error cases.
 * @example const before = await librarySnapshot(); …; expect(await librarySnapshot()).toEqual(before)
 */
export async function librarySnapshot() {
  return {
    groups: await rows("SELECT * FROM groups ORDER BY id"),
    closure: await rows("SELECT * FROM group_closure ORDER BY ancestor, descendant"),
    members: await rows("SELECT * FROM group_members ORDER BY group_id, el_id"),
    userMembers: await rows("SELECT * FROM user_group_members ORDER BY group_id, user_id"),
    tags: await rows("SELECT * FROM entity_tags ORDER BY tag_id, entity_id"),
    assets: await rows("SELECT id, deleted_at FROM assets ORDER BY id"),
    variants: await rows("SELECT id FROM variants ORDER BY id"),
  };
}

/** Memberships of a group as `el_id → el_type`. */
export async function membersOf(groupId: string): Promise<Record<string, string>> {
  // Users belong to groups through user_group_members (groups of users); they count as members of type 'user'.
  const { results } = await env.DB.prepare(
    "SELECT el_id, el_type FROM group_members WHERE group_id = ? AND trashed_at IS NULL UNION ALL SELECT user_id, 'user' FROM user_group_members WHERE group_id = ?",
  )
    .bind(groupId, groupId)
    .all<{ el_id: string; el_type: string }>();
  return Object.fromEntries(results.map((r) => [r.el_id, r.el_type]));
}

/** A group row (any state). */
export function groupRow(id: string) {
  return env.DB.prepare("SELECT * FROM groups WHERE id = ?")
    .bind(id)
    .first<{ id: string; name: string; parent_id: string | null; owner_id: string | null; deleted_at: number | null; mtime: number }>();
}

/** GET with a bearer and JSON answer; fails the test unless the status matches. */
export async function getJson<T>(path: string, bearer: string, status = 200): Promise<T> {
  const res = await call(path, { bearer });
  const body = (await res.json()) as T;
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** A request with a JSON body; answers status and parsed body (null for 204). */
export async function send<T = { message?: string }>(
  method: string,
  path: string,
  bearer: string,
  json?: unknown,
): Promise<{ status: number; body: T; res: Response }> {
  const res = await call(path, { method, bearer, json });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, res };
}

/**
 * The tree invariants of the whole database: `group_closure` equals the transitive closure of `groups.parent_id`
 * (so there is no cycle), and every group except the virtual root has exactly one group membership: in its parent
 * (a trashed group being purged may have none). In `DB`, or in a library shard's database (decision 043).
 */
export async function expectTreeConsistent(catalog: Pick<D1Database, "prepare"> = env.DB): Promise<void> {
  const { results: groups } = await catalog.prepare("SELECT id, parent_id, deleted_at FROM groups").all<{
    id: string;
    parent_id: string | null;
    deleted_at: number | null;
  }>();
  const parents = new Map(groups.map((g) => [g.id, g.parent_id]));
  const expected = [...closureOf(parents)].sort();
  const { results: closure } = await catalog.prepare("SELECT ancestor, descendant, depth FROM group_closure").all<{
    ancestor: string;
    descendant: string;
    depth: number;
  }>();
  expect(closure.map((r) => `${r.ancestor}>${r.descendant}>${r.depth}`).sort()).toEqual(expected);
  const { results: memberships } = await catalog.prepare("SELECT group_id, el_id FROM group_members WHERE el_type = 'group'").all<{
    group_id: string;
    el_id: string;
  }>();
  const byChild = new Map<string, string[]>();
  for (const m of memberships) byChild.set(m.el_id, [...(byChild.get(m.el_id) ?? []), m.group_id]);
  for (const g of groups) {
    if (g.id === ROOT_GROUP_ID) continue;
    // A purge detaches its trashed group from the parent before the background work deletes it.
    if (g.deleted_at != null && !byChild.has(g.id)) continue;
    expect(byChild.get(g.id), `membership of ${g.id}`).toEqual([g.parent_id]);
  }
}

/**
 * Takes libraries out of the directory again after a test moved them into shards: the files of a group share one
 * database, and no library in it may stay refusing writes or journaling them for the files that follow.
 */
export async function releaseMovedLibraries(ids: string[]): Promise<void> {
  const json = JSON.stringify(ids);
  // Their shard numbers are free again: the next move into one must find it empty.
  const { results } = await env.DB.prepare("SELECT shard FROM library_directory WHERE library_id IN (SELECT value FROM json_each(?))")
    .bind(json)
    .all<{ shard: number }>();
  // A few at a time: the permission matrix moves hundreds, and one by one they outlast a hook's 20 s.
  for (let i = 0; i < results.length; i += 16)
    await Promise.all(results.slice(i, i + 16).map(({ shard }) => libraryShard(env, shard).clearLibrary()));
  await env.DB.batch([
    env.DB.prepare("DELETE FROM library_directory WHERE library_id IN (SELECT value FROM json_each(?))").bind(json),
    env.DB.prepare("DELETE FROM id_directory WHERE library_id IN (SELECT value FROM json_each(?))").bind(json),
    env.DB.prepare("DELETE FROM library_move_journal WHERE NOT EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying')"),
  ]);
}

/** A one-request upload (`POST /api/asset/upload`) of a small text file into `folder` (in a shard, an id minted there); its id. */
export async function uploadText(bearer: string, folder: string, name: string): Promise<string> {
  const res = await call(`/api/asset/upload?${new URLSearchParams({ in_group: folder, name })}`, {
    method: "POST",
    bearer,
    body: "строка текста\n",
    headers: { "content-type": "text/plain" },
  });
  const body = (await res.json()) as { asset_id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.asset_id;
}
