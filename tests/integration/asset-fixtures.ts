import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { createDb } from "../../workers/db/client";
import { groupClosure, groupMembers, groups } from "../../workers/db/schema/index";
import { ROOT_GROUP_ID, newId, toHex } from "../../workers/lib/ids";
import { signLink, type SignedPurpose } from "../../workers/lib/signed-url";
import { call } from "./factories";

/** Test data for the asset calls: groups made with SQL (the groups API is not needed), uploads through the API. */

export const db = () => createDb(env.DB);

/**
 * A top-level group owned by `ownerId`, inserted the way the group calls store one: the row, its closure rows
 * (self and root → group) and its membership in the virtual root.
 */
export async function createGroup(ownerId: string | null, name = `Папка ${newId().slice(-6)}`): Promise<string> {
  const id = newId();
  const now = Date.now();
  const d = db();
  await d.batch([
    d.insert(groups).values({ id, name, parentId: ROOT_GROUP_ID, ownerId, ctime: now, mtime: now }),
    d.insert(groupClosure).values([
      { ancestor: id, descendant: id, depth: 0 },
      { ancestor: ROOT_GROUP_ID, descendant: id, depth: 1 },
    ]),
    d.insert(groupMembers).values({ groupId: ROOT_GROUP_ID, elId: id, elType: "group", ctime: now, sortName: name.toLowerCase(), elMtime: now }),
  ]);
  return id;
}

/** Deterministic bytes: every value 0–255 in turn, shifted by `seed`. */
export function bytesOf(size: number, seed = 0): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i + seed) % 256;
  return out;
}

export async function sha256Of(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

export async function json<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : null) as T;
}

/** POST /api/asset/create; answers the id. */
export async function createAsset(bearer: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call("/api/asset/create", {
    method: "POST",
    bearer,
    json: { asset_name: `Клип ${newId().slice(-6)}.mp4`, asset_mime: "video/mp4", ...body },
  });
  return (await json<{ asset_id: string }>(res)).asset_id;
}

export interface UploadInfo {
  variant_id: string;
  /** the version create-version made (issue 29) */
  version: number;
  upload_url: string;
  method: "PUT";
  expire: string;
  max_size: number;
  headers: Record<string, string>;
}

/** POST /api/asset/create-version/{id}; answers the upload info. */
export async function startUpload(bearer: string, assetId: string, body: Record<string, unknown> = {}): Promise<UploadInfo> {
  const res = await call(`/api/asset/create-version/${assetId}`, {
    method: "POST",
    bearer,
    json: { file_name: "clip.mp4", mime_type: "video/mp4", size: 1000, ...body },
  });
  return json<UploadInfo>(res);
}

/** The path and query of an absolute URL the API answered (tests call the Worker directly). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** PUT bytes to an upload URL with a correct Content-Length unless `headers` overrides it. */
export function put(uploadUrl: string, body: BodyInit | null, headers: Record<string, string> = {}): Promise<Response> {
  return call(pathOf(uploadUrl), { method: "PUT", body: body ?? undefined, headers });
}

export interface Uploaded {
  asset_id: string;
  asset_version: number;
  asset_variant_id: string;
  storage_id: string;
  storage_path: string;
  mime_type: string;
  checksum: string;
  file_name: string;
  file_size: number;
}

/** create-version + PUT: a committed version holding `bytes`. */
export async function uploadVersion(
  bearer: string,
  assetId: string,
  bytes: Uint8Array<ArrayBuffer>,
  body: Record<string, unknown> = {},
): Promise<Uploaded> {
  const info = await startUpload(bearer, assetId, { size: bytes.byteLength, ...body });
  return json<Uploaded>(await put(info.upload_url, bytes, { "content-type": info.headers["content-type"] }), 201);
}

/** Signed-link query parameters made with the test secret; `expIn` seconds from now. */
export async function signed(purpose: SignedPurpose, id: string, userId: string, expIn = 600): Promise<URLSearchParams> {
  const exp = Math.floor(Date.now() / 1000) + expIn;
  return new URLSearchParams(await signLink(env.JWT_SECRET, { purpose, id, userId, exp }));
}

/** Everything stored about an asset, to assert that a refused call changed nothing. */
export async function snapshot(assetId: string) {
  const [a, versions, variants, members, tags] = await env.DB.batch([
    env.DB.prepare("select * from assets where id = ?").bind(assetId),
    env.DB.prepare("select * from asset_versions where asset_id = ? order by id").bind(assetId),
    env.DB.prepare("select * from variants where asset_id = ? order by id").bind(assetId),
    env.DB.prepare("select * from group_members where el_id = ? order by group_id").bind(assetId),
    env.DB.prepare("select * from entity_tags where entity_id = ? order by tag_id").bind(assetId),
  ]);
  return { asset: a.results, versions: versions.results, variants: variants.results, members: members.results, tags: tags.results };
}

/** Rows of a query, for direct assertions. */
export async function rows<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]> {
  return (await env.DB.prepare(query).bind(...params).all<T>()).results;
}
