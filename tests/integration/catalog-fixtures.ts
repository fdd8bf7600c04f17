import { env } from "cloudflare:workers";
import { createRequestContext, type Actor, type RequestContext } from "../../workers/services/access/context";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { ensureBootstrapped, type TestUser } from "./factories";
import { createDb } from "../../workers/db/client";
import { feedIndex } from "../../workers/services/search";
import { searchShardBindings } from "../../workers/db/search-shards";
import { throughShards } from "./through-shards";

/**
 * Test data for the catalog (tags, storages, classes, previews): assets, versions, variants and groups written
 * straight into D1 with SQL, so these tests do not depend on the asset and group APIs. Plus a fake S3 server and
 * tiny valid images.
 */

/** Runs one SQL statement against the test D1 database (and, for a library in its shard, there too: `throughShards`). */
export function exec(query: string, ...binds: unknown[]) {
  return throughShards(() =>
    env.DB.prepare(query)
      .bind(...binds)
      .run(),
  );
}

/** All rows of a query. */
export async function rows<T = Record<string, unknown>>(query: string, ...binds: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(query)
      .bind(...binds)
      .all<T>()
  ).results;
}

/** Feeds the search index everything pending (decision 040), for tests that read `search_index` itself. */
export async function indexed(): Promise<void> {
  const { behind } = await feedIndex(createDb(env.DB), searchShards(), { deadline: Date.now() + 60_000 });
  if (behind) throw new Error("the search index is still behind after a minute of feeding");
}

/** Drizzle over each shard of the search index (decision 042). */
export const searchShards = () => searchShardBindings(env).map((d1) => createDb(d1));

/** Runs a statement on every shard of the search index. */
export async function execOnSearch(query: string, ...binds: unknown[]): Promise<void> {
  await Promise.all(
    searchShardBindings(env).map((d1) =>
      d1
        .prepare(query)
        .bind(...binds)
        .run(),
    ),
  );
}

/** The rows a query finds on the search index's shards, one shard's after another's (so no aggregates). */
export async function searchRows<T = Record<string, unknown>>(query: string, ...binds: unknown[]): Promise<T[]> {
  const answers = await Promise.all(
    searchShardBindings(env).map((d1) =>
      d1
        .prepare(query)
        .bind(...binds)
        .all<T>(),
    ),
  );
  return answers.flatMap((a) => a.results);
}

/** The index rows of the given entities as the shards hold them (their document ids from the catalog's `search_docs`). */
export async function indexRowsOf(
  ids: readonly string[],
): Promise<{ id: string; doc_id: number; name: string; meta: string; content: string; acl: string }[]> {
  const docs = await rows<{ doc_id: number; entity_id: string }>(
    "select doc_id, entity_id from search_docs where entity_id in (select value from json_each(?))",
    JSON.stringify(ids),
  );
  const entity = new Map(docs.map((d) => [d.doc_id, d.entity_id]));
  const found = await searchRows<{ doc_id: number; name: string; meta: string; content: string; acl: string }>(
    "select rowid as doc_id, name, meta, content, acl from search_index where rowid in (select value from json_each(?))",
    JSON.stringify(docs.map((d) => d.doc_id)),
  );
  return found.map((r) => ({ ...r, id: entity.get(r.doc_id)! })).sort((a, b) => a.id.localeCompare(b.id));
}

/** A request context like the API middleware builds, for calling services directly. */
export function testContext(): RequestContext {
  return createRequestContext(env, () => {}, newId());
}

/** The actor a test user stands for, for calling services directly. */
export function actorOf(user: Pick<TestUser, "id" | "login" | "name" | "isAdmin">): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: false, sessionFamily: null };
}

export interface AssetFixture {
  ownerId: string;
  name?: string;
  classId?: string | null;
  defaultStorage?: string | null;
  /** number of committed versions to create (rows in asset_versions); latest_version follows */
  versions?: number;
  deletedAt?: number | null;
}

/** Inserts an asset (and `versions` versions); answers its id and the version ids, oldest first. */
export async function insertAsset(f: AssetFixture): Promise<{ id: string; versionIds: string[] }> {
  await ensureBootstrapped();
  const id = newId();
  const now = Date.now();
  const versions = f.versions ?? 0;
  await exec(
    `insert into assets (id, name, mime, owner_id, creator_id, class_id, default_storage, latest_version, ctime, mtime, atime, deleted_at)
     values (?, ?, 'video/mp4', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    f.name ?? `Файл ${id.slice(-6)}`,
    f.ownerId,
    f.ownerId,
    f.classId ?? null,
    f.defaultStorage ?? null,
    versions,
    now,
    now,
    now,
    f.deletedAt ?? null,
  );
  const versionIds: string[] = [];
  for (let v = 1; v <= versions; v++) {
    const versionId = newId();
    versionIds.push(versionId);
    await exec(
      `insert into asset_versions (id, asset_id, version, user_id, ctime) values (?, ?, ?, ?, ?)`,
      versionId,
      id,
      v,
      f.ownerId,
      now,
    );
  }
  return { id, versionIds };
}

/** Inserts a variant of an asset version; answers its id. */
export async function insertVariant(f: {
  assetId: string;
  versionId: string | null;
  ownerId: string;
  storageId?: string;
  contentSize?: number;
  status?: "pending" | "ready";
}): Promise<string> {
  const id = newId();
  await exec(
    `insert into variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, storage_id, storage_key, user_id, ctime)
     values (?, ?, ?, 'initial', ?, 'original', 'video/mp4', 'clip.mp4', ?, ?, ?, ?, ?)`,
    id,
    f.assetId,
    f.versionId,
    f.status ?? "ready",
    f.contentSize ?? 1000,
    f.storageId ?? "0".repeat(32),
    `variants/${f.assetId}/${id}`,
    f.ownerId,
    Date.now(),
  );
  return id;
}

/** Inserts a group under `parentId` (the virtual root by default) with its closure rows; answers its id. */
export async function insertGroup(f: {
  ownerId: string | null;
  parentId?: string;
  name?: string;
  defaultStorage?: string | null;
  defaultClass?: string | null;
  deletedAt?: number | null;
}): Promise<string> {
  await ensureBootstrapped();
  const id = newId();
  const parentId = f.parentId ?? ROOT_GROUP_ID;
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare(
      `insert into groups (id, name, parent_id, owner_id, default_storage, default_class, ctime, mtime, deleted_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).bind(
      id,
      f.name ?? `Папка ${id.slice(-6)}`,
      parentId,
      f.ownerId,
      f.defaultStorage ?? null,
      f.defaultClass ?? null,
      now,
      now,
      f.deletedAt ?? null,
    ),
    env.DB.prepare(
      `insert into group_closure (ancestor, descendant, depth) select ancestor, ?, depth + 1 from group_closure where descendant = ?`,
    ).bind(id, parentId),
    env.DB.prepare(`insert into group_closure (ancestor, descendant, depth) values (?, ?, 0)`).bind(id, id),
    env.DB.prepare(`insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'group', ?, ?)`).bind(
      parentId,
      id,
      now,
      (f.name ?? "").toLowerCase(),
    ),
  ]);
  return id;
}

/** Lists an asset in a group. */
export async function addMember(groupId: string, assetId: string, ctime = Date.now()) {
  await exec(`insert into group_members (group_id, el_id, el_type, ctime) values (?, ?, 'asset', ?)`, groupId, assetId, ctime);
}

/** Inserts a tag directly; answers its id. */
export async function insertTag(name: string): Promise<string> {
  const id = newId();
  await exec(`insert into tags (id, name, ctime) values (?, ?, ?)`, id, name, Date.now());
  return id;
}

/** Tags an entity directly. */
export async function tagEntity(tagId: string, entityId: string, type: "asset" | "group") {
  await exec(`insert into entity_tags (tag_id, entity_id, entity_type) values (?, ?, ?)`, tagId, entityId, type);
}

/** Inserts an asset class directly; answers its id. */
export async function insertClass(name: string, defFields: string[] = []): Promise<string> {
  const id = newId();
  await exec(
    `insert into asset_classes (id, name, def_fields, ctime, mtime) values (?, ?, ?, ?, ?)`,
    id,
    name,
    JSON.stringify(defFields),
    1,
    1,
  );
  return id;
}

/** A unique name for tests sharing one database file. */
export function uniqueName(prefix: string): string {
  return `${prefix} ${newId().slice(-10)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Images

/** A minimal PNG header (signature + IHDR) of the given size; enough for the header parser and the magic check. */
export function pngBytes(width: number, height: number, padding = 0): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(33 + padding);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(b.buffer).setUint32(16, width);
  new DataView(b.buffer).setUint32(20, height);
  b.set([8, 6, 0, 0, 0], 24);
  return b;
}

/** A JPEG start: SOI, an APP0 segment, then a baseline SOF0 frame header with the size. */
export function jpegBytes(width: number, height: number, sof = 0xc0): Uint8Array<ArrayBuffer> {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const sofSeg = [
    0xff,
    sof,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sofSeg, 0xff, 0xd9]);
}

/** A GIF89a logical screen descriptor of the given size. */
export function gifBytes(width: number, height: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0, 0x3b]);
}

function riff(chunk: string, payload: number[]): Uint8Array<ArrayBuffer> {
  const enc = (s: string) => [...s].map((c) => c.charCodeAt(0));
  const size = 4 + 8 + payload.length;
  const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >> 24) & 0xff];
  return new Uint8Array([...enc("RIFF"), ...le32(size), ...enc("WEBP"), ...enc(chunk), ...le32(payload.length), ...payload]);
}

/** A WebP of each flavour: lossy (VP8), lossless (VP8L) or extended (VP8X), declaring the given size. */
export function webpBytes(width: number, height: number, flavour: "VP8 " | "VP8L" | "VP8X" = "VP8 "): Uint8Array<ArrayBuffer> {
  if (flavour === "VP8 ") {
    return riff("VP8 ", [0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, width & 0xff, (width >> 8) & 0x3f, height & 0xff, (height >> 8) & 0x3f, 0, 0]);
  }
  if (flavour === "VP8L") {
    const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
    return riff("VP8L", [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >> 24) & 0xff, 0, 0, 0, 0, 0]);
  }
  const w = width - 1;
  const h = height - 1;
  return riff("VP8X", [0, 0, 0, 0, w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]);
}

// ---------------------------------------------------------------------------------------------------------------
// Fake S3

const encoder = new TextEncoder();

async function hmac(key: ArrayBuffer | Uint8Array<ArrayBuffer>, message: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, encoder.encode(message));
}

const strictEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

export interface FakeS3Options {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface SeenRequest {
  method: string;
  url: string;
  range: string | null;
  authorization: string | null;
  /** null when the signature checked out, else why it did not */
  authError: string | null;
}

/**
 * An in-memory S3 (path-style: `${endpoint}/${bucket}/${key}`) that verifies every request's SigV4 signature
 * itself (canonical request from the signed headers, HMAC chain from the secret) and answers PUT, GET (with
 * Range), HEAD and DELETE like S3 does. Pass `fake.fetch` as the backend's fetcher, or stub the global fetch.
 */
export class FakeS3 {
  readonly objects = new Map<string, { body: Uint8Array<ArrayBuffer>; contentType: string; etag: string }>();
  readonly requests: SeenRequest[] = [];
  /** answer the next N requests with this status instead (e.g. 500 to test retries) */
  failNext: { count: number; status: number } | null = null;
  /** answer ranged GETs with the whole object and 200, like servers that ignore Range */
  ignoreRange = false;
  /** open multipart uploads by upload id */
  readonly uploads = new Map<string, { key: string; contentType: string; parts: Map<number, { body: Uint8Array; etag: string }> }>();

  constructor(readonly opts: FakeS3Options) {}

  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const seen: SeenRequest = {
      method: request.method,
      url: request.url,
      range: request.headers.get("range"),
      authorization: request.headers.get("authorization"),
      authError: null,
    };
    this.requests.push(seen);
    if (!url.href.startsWith(`${this.opts.endpoint}/${this.opts.bucket}/`)) return this.error(404, "NoSuchBucket");
    seen.authError = await this.checkSignature(request, url);
    if (seen.authError) {
      await request.body?.cancel();
      return this.error(403, "SignatureDoesNotMatch");
    }
    if (this.failNext && this.failNext.count > 0) {
      this.failNext.count--;
      await request.body?.cancel();
      return this.error(this.failNext.status, "InternalError");
    }
    const key = decodeURIComponent(url.pathname.slice(`/${this.opts.bucket}/`.length));
    if (url.searchParams.has("uploads") || url.searchParams.has("uploadId")) return this.multipart(request, url, key);
    switch (request.method) {
      case "PUT": {
        const body = new Uint8Array(await request.arrayBuffer());
        const etag = `"${hex(await crypto.subtle.digest("SHA-256", body)).slice(0, 32)}"`;
        this.objects.set(key, { body, contentType: request.headers.get("content-type") ?? "application/octet-stream", etag });
        return new Response(null, { status: 200, headers: { etag } });
      }
      case "GET":
      case "HEAD": {
        const object = this.objects.get(key);
        if (!object) return this.error(404, "NoSuchKey", request.method === "HEAD");
        const headers = { etag: object.etag, "content-type": object.contentType };
        const total = object.body.length;
        if (request.method === "HEAD") return new Response(null, { status: 200, headers: { ...headers, "content-length": String(total) } });
        const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.get("range") ?? "");
        if (!range || this.ignoreRange)
          return new Response(object.body, { status: 200, headers: { ...headers, "content-length": String(total) } });
        const start = Number(range[1]);
        if (start >= total) return this.error(416, "InvalidRange");
        const end = Math.min(range[2] ? Number(range[2]) : total - 1, total - 1);
        return new Response(object.body.slice(start, end + 1), {
          status: 206,
          headers: { ...headers, "content-range": `bytes ${start}-${end}/${total}`, "content-length": String(end + 1 - start) },
        });
      }
      case "DELETE":
        this.objects.delete(key);
        return new Response(null, { status: 204 });
      default:
        return this.error(405, "MethodNotAllowed");
    }
  };

  /** S3's multipart calls: create (POST ?uploads), UploadPart (PUT), Complete (POST ?uploadId), Abort (DELETE). */
  private async multipart(request: Request, url: URL, key: string): Promise<Response> {
    const xml = (body: string) =>
      new Response(`<?xml version="1.0" encoding="UTF-8"?>${body}`, { headers: { "content-type": "application/xml" } });
    if (request.method === "POST" && url.searchParams.has("uploads")) {
      const uploadId = `fake-${hex(crypto.getRandomValues(new Uint8Array(8)).buffer)}`;
      this.uploads.set(uploadId, { key, contentType: request.headers.get("content-type") ?? "application/octet-stream", parts: new Map() });
      return xml(`<InitiateMultipartUploadResult><Key>${key}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`);
    }
    const upload = this.uploads.get(url.searchParams.get("uploadId") ?? "");
    if (!upload || upload.key !== key) {
      await request.body?.cancel();
      return this.error(404, "NoSuchUpload", request.method === "DELETE");
    }
    if (request.method === "PUT") {
      const body = new Uint8Array(await request.arrayBuffer());
      const etag = `"${hex(await crypto.subtle.digest("SHA-256", body)).slice(0, 32)}"`;
      upload.parts.set(Number(url.searchParams.get("partNumber")), { body, etag });
      return new Response(null, { status: 200, headers: { etag } });
    }
    if (request.method === "DELETE") {
      this.uploads.delete(url.searchParams.get("uploadId")!);
      return new Response(null, { status: 204 });
    }
    const listed = [...(await request.text()).matchAll(/<PartNumber>(\d+)<\/PartNumber><ETag>([^<]+)<\/ETag>/g)];
    const chunks: Uint8Array[] = [];
    for (const [, n, etag] of listed) {
      const part = upload.parts.get(Number(n));
      if (!part || part.etag !== etag.replaceAll("&quot;", '"'))
        return xml(`<Error><Code>InvalidPart</Code><Message>fake</Message></Error>`);
      chunks.push(part.body);
    }
    const body = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
    chunks.reduce((offset, c) => (body.set(c, offset), offset + c.length), 0);
    const etag = `"${hex(await crypto.subtle.digest("SHA-256", body)).slice(0, 32)}-${listed.length}"`;
    this.objects.set(key, { body, contentType: upload.contentType, etag });
    this.uploads.delete(url.searchParams.get("uploadId")!);
    return xml(
      `<CompleteMultipartUploadResult><Key>${key}</Key><ETag>${etag.replaceAll('"', "&quot;")}</ETag></CompleteMultipartUploadResult>`,
    );
  }

  private error(status: number, code: string, headOnly = false): Response {
    const body = headOnly ? null : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>fake</Message></Error>`;
    return new Response(body, { status, headers: { "content-type": "application/xml" } });
  }

  /** Recomputes the SigV4 signature from what arrived; answers null when it matches, else the reason. */
  private async checkSignature(request: Request, url: URL): Promise<string | null> {
    const auth = request.headers.get("authorization");
    const match = auth
      ? /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
          auth,
        )
      : null;
    if (!match) return `malformed Authorization: ${auth}`;
    const [, accessKey, date, region, signedHeaders, signature] = match;
    if (accessKey !== this.opts.accessKeyId) return "unknown access key";
    if (region !== this.opts.region) return `wrong region ${region}`;
    const amzDate = request.headers.get("x-amz-date") ?? "";
    if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(date)) return "bad x-amz-date";
    const payloadHash = request.headers.get("x-amz-content-sha256");
    if (!payloadHash) return "missing x-amz-content-sha256";
    const names = signedHeaders.split(";");
    for (const required of ["host", "x-amz-content-sha256", "x-amz-date"]) if (!names.includes(required)) return `${required} not signed`;
    const canonicalHeaders = names
      .map((n) => `${n}:${n === "host" ? url.host : (request.headers.get(n) ?? "").trim().replace(/\s+/g, " ")}\n`)
      .join("");
    const query = [...url.searchParams]
      .map(([k, v]) => [strictEncode(k), strictEncode(v)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
    // S3's canonical URI: every byte but A–Z a–z 0–9 - _ . ~ percent-encoded, '/' kept.
    const path = url.pathname
      .split("/")
      .map((seg) => strictEncode(decodeURIComponent(seg)))
      .join("/");
    const canonical = [request.method, path, query, canonicalHeaders, signedHeaders, payloadHash].join("\n");
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, hex(await crypto.subtle.digest("SHA-256", encoder.encode(canonical)))].join(
      "\n",
    );
    let key = await hmac(encoder.encode(`AWS4${this.opts.secretAccessKey}`), date);
    for (const part of [region, "s3", "aws4_request"]) key = await hmac(key, part);
    const expected = hex(await hmac(key, stringToSign));
    return expected === signature ? null : "signature mismatch";
  }
}

/** A stream of the given bytes in chunks, like a request body arriving. */
export function streamOf(bytes: Uint8Array<ArrayBuffer>, chunk = 7): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  });
}

/** Reads a stream to bytes. */
export async function bytesOf(stream: ReadableStream<Uint8Array> | null): Promise<Uint8Array<ArrayBuffer>> {
  return stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : new Uint8Array(0);
}
