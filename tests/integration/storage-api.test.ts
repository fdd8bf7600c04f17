import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { open } from "../../workers/lib/secret-box";
import { DEFAULT_STORAGE_ID, getStorageBackend, resolveEntityStorage } from "../../workers/services/storage/storage.service";
import {
  addMember,
  bytesOf,
  exec,
  FakeS3,
  insertAsset,
  insertGroup,
  insertVariant,
  rows,
  testContext,
  uniqueName,
} from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

interface StorageJson {
  storage_id: string;
  storage_name: string;
  storage_setup: { url: string | null; bucket: string | null; region: string | null };
  kind: string;
  has_creds: boolean;
}

const SETUP = { url: "https://s3.fake.test", bucket: "media-archive", region: "eu-central-1" };
const CREDS = { user: "AKIAFAKEEXAMPLE01", passwd: "very/secret+passwd-0123456789", token: "session-token-xyz" };

async function createStorage(bearer: string, overrides: Record<string, unknown> = {}) {
  const name = uniqueName("Архив");
  const res = await call("/api/storage/create", { method: "POST", bearer, json: { name, setup: SETUP, creds: CREDS, ...overrides } });
  const body = (await res.json()) as { storage_id: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  // SPEC §3 Storage: create answers the whole storage, never its credentials.
  expect(Object.keys(body).sort()).toEqual(["has_creds", "is_default", "kind", "storage_id", "storage_name", "storage_setup"]);
  return { id: body.storage_id, name: (overrides.name as string) ?? name };
}

const storageRow = (id: string) => rows<Record<string, unknown>>(`select * from storages where id = ?`, id).then((r) => r[0]);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("POST /api/storage/create", () => {
  it("lets an administrator add an S3 storage; credentials are stored encrypted, bound to the row", async () => {
    const admin = await signInAdmin();
    const { id, name } = await createStorage(admin.bearer);
    const row = await storageRow(id);
    expect(row).toMatchObject({ name, kind: "s3", url: SETUP.url, bucket: SETUP.bucket, region: SETUP.region });
    const sealed = String(row.creds_encrypted);
    for (const secret of [CREDS.user, CREDS.passwd, CREDS.token]) expect(sealed).not.toContain(secret);
    expect(JSON.parse(await open(env.JWT_SECRET, sealed, { context: id }))).toEqual(CREDS);
    await expect(open(env.JWT_SECRET, sealed)).rejects.toThrow();
  });

  it("accepts a setup without region and creds without token", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer, { setup: { url: "http://minio.example.net:9000", bucket: "b1" }, creds: { user: "u", passwd: "p" } });
    const row = await storageRow(id);
    expect(row).toMatchObject({ url: "http://minio.example.net:9000", bucket: "b1", region: null });
    expect(JSON.parse(await open(env.JWT_SECRET, String(row.creds_encrypted), { context: id }))).toEqual({ user: "u", passwd: "p" });
  });

  it("refuses a name taken case-insensitively, the built-in one included (409)", async () => {
    const admin = await signInAdmin();
    const { name } = await createStorage(admin.bearer, { name: uniqueName("Съёмки") });
    const before = await rows(`select id from storages`);
    const error = await expectError(
      await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: name.toUpperCase(), setup: SETUP, creds: CREDS } }),
      409,
    );
    expect(error.message).toBe(ru.catalog.storageExists(name.toUpperCase()));
    await expectError(await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: "r2", setup: SETUP, creds: CREDS } }), 409);
    expect(await rows(`select id from storages`)).toEqual(before);
  });

  it.each([
    ["no name", { setup: SETUP, creds: CREDS }, "name"],
    ["an empty name", { name: "", setup: SETUP, creds: CREDS }, "name"],
    ["a 10,000-character name", { name: "x".repeat(10_000), setup: SETUP, creds: CREDS }, "name"],
    ["no setup", { name: "n", creds: CREDS }, "setup"],
    ["no creds", { name: "n", setup: SETUP }, "creds"],
    ["an ftp url", { name: "n", setup: { ...SETUP, url: "ftp://x.test" }, creds: CREDS }, "setup.url"],
    ["a url with a password", { name: "n", setup: { ...SETUP, url: "https://u:p@x.test" }, creds: CREDS }, "setup.url"],
    ["a url with a query", { name: "n", setup: { ...SETUP, url: "https://x.test/?a=1" }, creds: CREDS }, "setup.url"],
    ["not a url", { name: "n", setup: { ...SETUP, url: "s3.amazonaws.com" }, creds: CREDS }, "setup.url"],
    ["a bad bucket", { name: "n", setup: { ...SETUP, bucket: "../etc" }, creds: CREDS }, "setup.bucket"],
    ["a bad region", { name: "n", setup: { ...SETUP, region: "EU WEST" }, creds: CREDS }, "setup.region"],
    ["an empty secret", { name: "n", setup: SETUP, creds: { user: "u", passwd: "" } }, "creds.passwd"],
  ])("refuses %s (400)", async (_label, json, field) => {
    const admin = await signInAdmin();
    const error = await expectError(await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json }), 400);
    expect(error.message).toContain(`«${field}»`);
  });

  it.each([
    "http://127.0.0.1:9000",
    "http://169.254.169.254/latest/meta-data",
    "http://localhost:9000",
    "http://10.0.0.7",
    "http://192.168.1.10:9000",
    "http://[::1]:9000",
    "http://[::ffff:127.0.0.1]",
    "http://[fd00::1]",
    "http://0.0.0.0",
    "http://metadata.google.internal",
    "http://minio:9000",
  ])("refuses an endpoint on a loopback, private, link-local or metadata address %s (400), on create and update; nothing changes", async (url) => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    const before = await rows(`select id, name, url, bucket, region from storages order by id`);
    const created = await expectError(
      await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: `Внутреннее ${Date.now()}`, setup: { url, bucket: "b1" }, creds: CREDS } }),
      400,
    );
    expect(created.message).toContain("«setup.url»");
    expect(created.message).toMatch(/частную или служебную сеть|локальный компьютер/);
    const updated = await expectError(
      await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { setup: { url, bucket: "b1" } } }),
      400,
    );
    expect(updated.message).toContain("«setup.url»");
    expect(await rows(`select id, name, url, bucket, region from storages order by id`)).toEqual(before);
  });

  it("never calls a stored endpoint on an internal address (a row written before the filter): 503", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    await env.DB.prepare(`update storages set url = 'http://169.254.169.254' where id = ?`).bind(id).run();
    await expect(getStorageBackend(testContext(), id)).rejects.toMatchObject({ status: 503, message: expect.stringContaining("частную или служебную сеть") });
  });

  it("security: an ordinary user gets 403 and no storage is added", async () => {
    const user = await signIn();
    const before = await rows(`select id from storages`);
    const error = await expectError(
      await call("/api/storage/create", { method: "POST", bearer: user.bearer, json: { name: uniqueName("x"), setup: SETUP, creds: CREDS } }),
      403,
    );
    expect(error.message).toBe(ru.catalog.adminOnly);
    expect(await rows(`select id from storages`)).toEqual(before);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/storage/create", { method: "POST", json: { name: "x", setup: SETUP, creds: CREDS } }), 401);
  });
});

describe("GET /api/storage/list", () => {
  it("lists the built-in R2 first, then the others, never with credentials", async () => {
    const admin = await signInAdmin();
    const { id, name } = await createStorage(admin.bearer);
    const res = await call("/api/storage/list", { bearer: admin.bearer });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of [CREDS.user, CREDS.passwd, CREDS.token, "creds_encrypted", "v1."]) expect(text).not.toContain(secret);
    const list = JSON.parse(text) as StorageJson[];
    expect(list[0]).toEqual({
      storage_id: DEFAULT_STORAGE_ID,
      storage_name: "R2",
      storage_setup: { url: null, bucket: null, region: null },
      kind: "r2",
      has_creds: false,
      is_default: true,
    });
    expect(list.find((s) => s.storage_id === id)).toEqual({ storage_id: id, storage_name: name, storage_setup: SETUP, kind: "s3", has_creds: true, is_default: false });
  });

  it("shows ordinary users names and kinds but not where the buckets are", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id, name } = await createStorage(admin.bearer);
    const list = (await (await call("/api/storage/list", { bearer: user.bearer })).json()) as StorageJson[];
    expect(list.find((s) => s.storage_id === id)).toEqual({
      storage_id: id,
      storage_name: name,
      storage_setup: { url: null, bucket: null, region: null },
      kind: "s3",
      has_creds: true,
      is_default: false,
    });
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/storage/list"), 401);
  });
});

describe("PATCH /api/storage/update/{id}", () => {
  it("renames, moves and re-keys an S3 storage (new credentials re-encrypted)", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    const sealedBefore = String((await storageRow(id)).creds_encrypted);
    const name = uniqueName("Перенесённый");
    const setup = { url: "https://other.test", bucket: "moved" };
    const creds = { user: "NEWKEY", passwd: "new-secret" };
    const res = await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { name, setup, creds } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      storage_id: id,
      storage_name: name,
      storage_setup: { url: "https://other.test", bucket: "moved", region: null },
      kind: "s3",
      has_creds: true,
      is_default: false,
    });
    const row = await storageRow(id);
    expect(row.creds_encrypted).not.toBe(sealedBefore);
    expect(JSON.parse(await open(env.JWT_SECRET, String(row.creds_encrypted), { context: id }))).toEqual(creds);
  });

  it("changes only what is sent", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    const before = await storageRow(id);
    const name = uniqueName("Только имя");
    await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { name } });
    const after = await storageRow(id);
    expect(after).toMatchObject({ name, url: before.url, bucket: before.bucket, region: before.region, creds_encrypted: before.creds_encrypted });
  });

  it("renames the built-in R2 storage but refuses to reconfigure it (409)", async () => {
    const admin = await signInAdmin();
    const res = await call(`/api/storage/update/${DEFAULT_STORAGE_ID}`, { method: "PATCH", bearer: admin.bearer, json: { name: "Основное R2" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as StorageJson).storage_name).toBe("Основное R2");
    for (const json of [{ setup: SETUP }, { creds: CREDS }, { name: "x", setup: SETUP }]) {
      const error = await expectError(await call(`/api/storage/update/${DEFAULT_STORAGE_ID}`, { method: "PATCH", bearer: admin.bearer, json }), 409);
      expect(error.message).toBe(ru.catalog.defaultStorageLocked);
    }
    expect(await storageRow(DEFAULT_STORAGE_ID)).toMatchObject({ name: "Основное R2", kind: "r2", url: null, bucket: null, creds_encrypted: null });
    await call(`/api/storage/update/${DEFAULT_STORAGE_ID}`, { method: "PATCH", bearer: admin.bearer, json: { name: "R2" } });
  });

  it("refuses another storage's name (409), an unknown id (404), bad input (400)", async () => {
    const admin = await signInAdmin();
    const a = await createStorage(admin.bearer);
    const b = await createStorage(admin.bearer);
    await expectError(await call(`/api/storage/update/${b.id}`, { method: "PATCH", bearer: admin.bearer, json: { name: a.name.toLowerCase() } }), 409);
    expect((await storageRow(b.id)).name).toBe(b.name);
    await expectError(await call(`/api/storage/update/${newId()}`, { method: "PATCH", bearer: admin.bearer, json: { name: "x" } }), 404);
    await expectError(await call(`/api/storage/update/bad`, { method: "PATCH", bearer: admin.bearer, json: { name: "x" } }), 400);
    await expectError(await call(`/api/storage/update/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: {} }), 400);
    await expectError(await call(`/api/storage/update/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { setup: { url: "x" } } }), 400);
  });

  it("security: an ordinary user gets 403 and the storage stays as it was", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id } = await createStorage(admin.bearer);
    const before = await storageRow(id);
    for (const json of [{ name: "Моё" }, { setup: { url: "https://evil.test", bucket: "steal" } }, { creds: { user: "x", passwd: "y" } }]) {
      await expectError(await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: user.bearer, json }), 403);
    }
    await expectError(await call(`/api/storage/update/${DEFAULT_STORAGE_ID}`, { method: "PATCH", bearer: user.bearer, json: { name: "x" } }), 403);
    expect(await storageRow(id)).toEqual(before);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/storage/update/${newId()}`, { method: "PATCH", json: { name: "x" } }), 401);
  });
});

describe("GET /api/storage/usage/{id}", () => {
  it("sums ready variants: the whole storage for administrators, own assets for others", async () => {
    const admin = await signInAdmin();
    const alice = await signIn();
    const bob = await signIn();
    const { id: storageId } = await createStorage(admin.bearer);
    const a1 = await insertAsset({ ownerId: alice.id, versions: 2 });
    const b1 = await insertAsset({ ownerId: bob.id, versions: 1 });
    await insertVariant({ assetId: a1.id, versionId: a1.versionIds[0], ownerId: alice.id, storageId, contentSize: 100 });
    await insertVariant({ assetId: a1.id, versionId: a1.versionIds[1], ownerId: alice.id, storageId, contentSize: 250 });
    await insertVariant({ assetId: a1.id, versionId: null, ownerId: alice.id, storageId, contentSize: 9999, status: "pending" });
    await insertVariant({ assetId: b1.id, versionId: b1.versionIds[0], ownerId: bob.id, storageId, contentSize: 40 });
    await insertVariant({ assetId: b1.id, versionId: b1.versionIds[0], ownerId: bob.id, contentSize: 7 });

    const usage = async (bearer: string) => {
      const res = await call(`/api/storage/usage/${storageId}`, { bearer });
      expect(res.status).toBe(200);
      return res.json();
    };
    expect(await usage(admin.bearer)).toEqual({ storage_id: storageId, bytes: 390, variants: 3, assets: 2, folders: [] });
    expect(await usage(alice.bearer)).toEqual({ storage_id: storageId, bytes: 350, variants: 2, assets: 1, folders: [] });
    expect(await usage(bob.bearer)).toEqual({ storage_id: storageId, bytes: 40, variants: 1, assets: 1, folders: [] });
  });

  it("answers zeros for an empty storage, 404 for an unknown one, 400 for a bad id", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    expect(await (await call(`/api/storage/usage/${id}`, { bearer: admin.bearer })).json()).toEqual({ storage_id: id, bytes: 0, variants: 0, assets: 0, folders: [] });
    await expectError(await call(`/api/storage/usage/${newId()}`, { bearer: admin.bearer }), 404);
    await expectError(await call(`/api/storage/usage/zzz`, { bearer: admin.bearer }), 400);
  });

  it("names the folders that use the storage as their own default, for administrators only; trashed ones are left out", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id } = await createStorage(admin.bearer);
    const kept = await insertGroup({ ownerId: user.id, name: uniqueName("Архивная") });
    const trashed = await insertGroup({ ownerId: user.id, name: uniqueName("Удалённая") });
    await exec("update groups set default_storage = ? where id in (?, ?)", id, kept, trashed);
    await exec("update groups set deleted_at = ? where id = ?", Date.now(), trashed);
    const folders = async (bearer: string) => ((await (await call(`/api/storage/usage/${id}`, { bearer })).json()) as { folders: unknown[] }).folders;
    expect(await folders(admin.bearer)).toEqual([{ id: kept, name: expect.stringContaining("Архивная") }]);
    expect(await folders(user.bearer)).toEqual([]);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/storage/usage/${DEFAULT_STORAGE_ID}`), 401);
  });
});

describe("GET /api/storage/for-entity/{id}", () => {
  async function forEntity(bearer: string, id: string) {
    const res = await call(`/api/storage/for-entity/${id}`, { bearer });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    return body as { storage_id: string; storage_name: string };
  }

  it("resolves groups: own default, else the nearest ancestor's, else the built-in R2", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const far = await createStorage(admin.bearer);
    const near = await createStorage(admin.bearer);
    const top = await insertGroup({ ownerId: user.id, defaultStorage: far.id });
    const middle = await insertGroup({ ownerId: user.id, parentId: top, defaultStorage: near.id });
    const leaf = await insertGroup({ ownerId: user.id, parentId: middle });
    const plain = await insertGroup({ ownerId: user.id });

    expect(await forEntity(user.bearer, top)).toMatchObject({ storage_id: far.id, storage_name: far.name });
    expect(await forEntity(user.bearer, middle)).toMatchObject({ storage_id: near.id, storage_name: near.name });
    expect(await forEntity(user.bearer, leaf)).toMatchObject({ storage_id: near.id, storage_name: near.name });
    expect(await forEntity(user.bearer, plain)).toMatchObject({ storage_id: DEFAULT_STORAGE_ID, storage_name: "R2" });
    expect(await forEntity(user.bearer, ROOT_GROUP_ID)).toMatchObject({ storage_id: DEFAULT_STORAGE_ID, storage_name: "R2" });
    // SPEC §3 Storage: the whole storage as the list answers it, where it is only for administrators.
    expect(await forEntity(user.bearer, top)).toEqual({ storage_id: far.id, storage_name: far.name, storage_setup: { url: null, bucket: null, region: null }, kind: "s3", has_creds: true, is_default: false });
    expect(await forEntity(admin.bearer, top)).toMatchObject({ storage_setup: SETUP });
  });

  it("resolves assets: own default, else the nearest group's, else the built-in R2; dangling ids are skipped", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const own = await createStorage(admin.bearer);
    const inherited = await createStorage(admin.bearer);
    const top = await insertGroup({ ownerId: user.id, defaultStorage: inherited.id });
    const child = await insertGroup({ ownerId: user.id, parentId: top });

    const withOwn = await insertAsset({ ownerId: user.id, defaultStorage: own.id });
    await addMember(child, withOwn.id);
    const inGroup = await insertAsset({ ownerId: user.id });
    await addMember(child, inGroup.id);
    const loose = await insertAsset({ ownerId: user.id });
    const dangling = await insertAsset({ ownerId: user.id, defaultStorage: newId() });

    expect(await forEntity(user.bearer, withOwn.id)).toMatchObject({ storage_id: own.id, storage_name: own.name });
    expect(await forEntity(user.bearer, inGroup.id)).toMatchObject({ storage_id: inherited.id, storage_name: inherited.name });
    expect(await forEntity(user.bearer, loose.id)).toMatchObject({ storage_id: DEFAULT_STORAGE_ID, storage_name: "R2" });
    expect(await forEntity(user.bearer, dangling.id)).toMatchObject({ storage_id: DEFAULT_STORAGE_ID, storage_name: "R2" });
  });

  it("picks the nearest group when an asset is listed in several", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const deep = await createStorage(admin.bearer);
    const direct = await createStorage(admin.bearer);
    const top = await insertGroup({ ownerId: user.id, defaultStorage: deep.id });
    const nested = await insertGroup({ ownerId: user.id, parentId: top });
    const other = await insertGroup({ ownerId: user.id, defaultStorage: direct.id });
    const asset = await insertAsset({ ownerId: user.id });
    await addMember(nested, asset.id, 1);
    await addMember(other, asset.id, 2);
    expect(await forEntity(user.bearer, asset.id)).toMatchObject({ storage_id: direct.id, storage_name: direct.name });
    expect(await resolveEntityStorage(testContext(), { type: "asset", id: asset.id })).toEqual({ id: direct.id, name: direct.name });
  });

  it("answers 404 for unknown ids and entities in the trash, 400 for bad ids", async () => {
    const user = await signIn();
    const trashed = await insertAsset({ ownerId: user.id, deletedAt: Date.now() });
    await expectError(await call(`/api/storage/for-entity/${newId()}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/storage/for-entity/${trashed.id}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/storage/for-entity/ROOT`, { bearer: user.bearer }), 400);
  });

  it("security: another user's asset or group is not found (404)", async () => {
    const owner = await signIn();
    const other = await signIn();
    const group = await insertGroup({ ownerId: owner.id });
    const asset = await insertAsset({ ownerId: owner.id });
    for (const id of [group, asset.id]) {
      const error = await expectError(await call(`/api/storage/for-entity/${id}`, { bearer: other.bearer }), 404);
      expect(error.message).toBe(ru.catalog.entityNotFound);
    }
    const admin = await signInAdmin();
    expect(await forEntity(admin.bearer, asset.id)).toMatchObject({ storage_id: DEFAULT_STORAGE_ID, storage_name: "R2" });
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/storage/for-entity/${newId()}`), 401);
  });
});

describe("getStorageBackend", () => {
  it("answers the R2 binding for the built-in storage", async () => {
    const backend = await getStorageBackend(testContext(), DEFAULT_STORAGE_ID);
    const key = `tests/${newId()}`;
    await backend.put(key, new TextEncoder().encode("r2 bytes"), { contentType: "text/plain", size: 8 });
    expect(await (await env.MEDIA.get(key))?.text()).toBe("r2 bytes");
    expect(new TextDecoder().decode(await bytesOf((await backend.get(key, { offset: 3, length: 5 }))!.body))).toBe("bytes");
    await backend.delete([key]);
    expect(await env.MEDIA.head(key)).toBeNull();
  });

  it("answers a signing S3 client for a storage made through the API, with the credentials decrypted", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    const fake = new FakeS3({ endpoint: SETUP.url, bucket: SETUP.bucket, accessKeyId: CREDS.user, secretAccessKey: CREDS.passwd, region: SETUP.region });
    const backend = await getStorageBackend(testContext(), id, fake.fetch);
    const bytes = new TextEncoder().encode("external bytes, streamed");
    const stream = new Blob([bytes]).stream();
    await backend.put("variants/a/b", stream, { contentType: "video/mp4", size: bytes.length });
    expect(fake.requests.map((r) => r.authError)).toEqual([null]);
    expect(fake.objects.get("variants/a/b")?.body).toEqual(bytes);
    expect(await backend.head("variants/a/b")).toMatchObject({ size: bytes.length, contentType: "video/mp4" });
    expect(new TextDecoder().decode(await bytesOf((await backend.get("variants/a/b", { offset: 9, length: 5 }))!.body))).toBe("bytes");
    await backend.delete(["variants/a/b"]);
    expect(fake.objects.size).toBe(0);
  });

  it("uses the global fetch and follows credential changes made through the API", async () => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { creds: { user: "ROTATED", passwd: "rotated-secret" } } });
    const fake = new FakeS3({ endpoint: SETUP.url, bucket: SETUP.bucket, accessKeyId: "ROTATED", secretAccessKey: "rotated-secret", region: SETUP.region });
    vi.stubGlobal("fetch", fake.fetch);
    const rc = testContext();
    const backend = await getStorageBackend(rc, id);
    expect(await getStorageBackend(rc, id)).toBe(backend);
    await backend.put("k", new Uint8Array([1, 2, 3]), { contentType: "application/octet-stream", size: 3 });
    expect(fake.requests.map((r) => r.authError)).toEqual([null]);
  });

  it("refuses unknown storages (404) and credentials that no longer open (503)", async () => {
    const admin = await signInAdmin();
    await expect(getStorageBackend(testContext(), newId())).rejects.toMatchObject({ status: 404, message: ru.catalog.storageNotFound });
    const { id } = await createStorage(admin.bearer);
    const { id: other } = await createStorage(admin.bearer);
    // Credentials copied from another row do not open: they are bound to their storage id.
    await exec(`update storages set creds_encrypted = (select creds_encrypted from storages where id = ?) where id = ?`, other, id);
    await expect(getStorageBackend(testContext(), id)).rejects.toMatchObject({ status: 503, message: ru.catalog.storageCredsUnreadable });
    await exec(`update storages set creds_encrypted = 'v1.garbage.garbage' where id = ?`, id);
    await expect(getStorageBackend(testContext(), id)).rejects.toMatchObject({ status: 503 });
  });
});

describe("connection check (verify) before a storage is saved", () => {
  afterEach(() => vi.unstubAllGlobals());

  /** The endpoint answers each request with `answer`; the requests it saw are kept. */
  function endpoint(answer: () => Response | Promise<Response>) {
    const seen: Request[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Request(input, init));
      return answer();
    });
    return seen;
  }
  const xml = (status: number, code: string) =>
    new Response(`<?xml version="1.0"?><Error><Code>${code}</Code><Message>x</Message></Error>`, { status });

  it.each([
    ["no answer", () => Promise.reject(new TypeError("connect ECONNREFUSED")), ru.catalog.storageCheck.noAnswer],
    ["wrong keys", () => xml(403, "InvalidAccessKeyId"), ru.catalog.storageCheck.badKeys],
    ["bad signature", () => xml(403, "SignatureDoesNotMatch"), ru.catalog.storageCheck.badKeys],
    ["no such bucket", () => xml(404, "NoSuchBucket"), ru.catalog.storageCheck.noBucket],
    ["keys without access", () => xml(403, "AccessDenied"), ru.catalog.storageCheck.denied],
    ["not S3", () => new Response("<html>hello</html>", { status: 200 }), ru.catalog.storageCheck.notS3],
  ] as const)("%s: 400 with a clear Russian reason, nothing saved (create and update)", async (_, answer, reason) => {
    const admin = await signInAdmin();
    const { id } = await createStorage(admin.bearer);
    const before = await rows(`select id, name, url, bucket, region, creds_encrypted from storages order by id`);
    endpoint(answer);
    const created = await expectError(
      await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: uniqueName("Проверка"), setup: SETUP, creds: CREDS, verify: true } }),
      400,
    );
    expect(created.message).toBe(ru.catalog.storageCheck.failed(reason));
    const updated = await expectError(
      await call(`/api/storage/update/${id}`, {
        method: "PATCH",
        bearer: admin.bearer,
        json: { name: uniqueName("Новое имя"), setup: { ...SETUP, bucket: "other-bucket" }, verify: true },
      }),
      400,
    );
    expect(updated.message).toBe(ru.catalog.storageCheck.failed(reason));
    expect(await rows(`select id, name, url, bucket, region, creds_encrypted from storages order by id`)).toEqual(before);
  });

  it("saves when the bucket answers a signed listing; an update without new keys is checked with the stored ones", async () => {
    const admin = await signInAdmin();
    const seen = endpoint(() => new Response('<?xml version="1.0"?><ListBucketResult><Name>media-archive</Name></ListBucketResult>'));
    const res = await call("/api/storage/create", { method: "POST", bearer: admin.bearer, json: { name: uniqueName("Живое"), setup: SETUP, creds: CREDS, verify: true } });
    const body = (await res.json()) as StorageJson;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe(`${SETUP.url}/${SETUP.bucket}?list-type=2&max-keys=1`);
    expect(seen[0].headers.get("authorization")).toContain(`Credential=${CREDS.user}/`);
    expect(seen[0].headers.get("x-amz-security-token")).toBe(CREDS.token);

    const renamed = await call(`/api/storage/update/${body.storage_id}`, { method: "PATCH", bearer: admin.bearer, json: { setup: { ...SETUP, bucket: "next-bucket" }, verify: true } });
    expect(renamed.status, await renamed.text()).toBe(200);
    expect(seen[1].url).toBe(`${SETUP.url}/next-bucket?list-type=2&max-keys=1`);
    expect(seen[1].headers.get("authorization")).toContain(`Credential=${CREDS.user}/`);
  });

  it("refuses a loopback endpoint unless the deployment allows it (STORAGE_ALLOW_LOOPBACK, local e2e only), before any call", async () => {
    const admin = await signInAdmin();
    const seen = endpoint(() => new Response("<ListBucketResult/>"));
    const error = await expectError(
      await call("/api/storage/create", {
        method: "POST",
        bearer: admin.bearer,
        json: { name: uniqueName("Локальное"), setup: { url: "http://127.0.0.1:9000", bucket: "b1" }, creds: CREDS, verify: true },
      }),
      400,
    );
    expect(error.message).toContain("«setup.url»");
    expect(seen).toHaveLength(0);
  });
});

describe("the default storage (PATCH /api/storage/update/{id} with default: true)", () => {
  it("makes a storage the default for everything without its own choice, and the built-in one the default again", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id } = await createStorage(admin.bearer);
    const own = await createStorage(admin.bearer);
    const top = await insertGroup({ ownerId: user.id, name: uniqueName("Верхняя") });
    const chosen = await insertGroup({ ownerId: user.id, name: uniqueName("Своя"), defaultStorage: own.id });
    try {
      const res = await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { default: true } });
      const body = (await res.json()) as StorageJson & { is_default: boolean };
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.is_default).toBe(true);
      const list = (await (await call("/api/storage/list", { bearer: user.bearer })).json()) as (StorageJson & { is_default: boolean })[];
      expect(list.filter((s) => s.is_default).map((s) => s.storage_id)).toEqual([id]);
      expect((await resolveEntityStorage(testContext(), { type: "group", id: top })).id).toBe(id);
      expect((await resolveEntityStorage(testContext(), { type: "group", id: ROOT_GROUP_ID })).id).toBe(id);
      // A folder's own choice still wins.
      expect((await resolveEntityStorage(testContext(), { type: "group", id: chosen })).id).toBe(own.id);
      // Only administrators choose it.
      await expectError(await call(`/api/storage/update/${own.id}`, { method: "PATCH", bearer: user.bearer, json: { default: true } }), 403);
    } finally {
      const back = await call(`/api/storage/update/${DEFAULT_STORAGE_ID}`, { method: "PATCH", bearer: admin.bearer, json: { default: true } });
      expect(back.status, await back.text()).toBe(200);
    }
    expect((await resolveEntityStorage(testContext(), { type: "group", id: top })).id).toBe(DEFAULT_STORAGE_ID);
    await expectError(await call(`/api/storage/update/${id}`, { method: "PATCH", bearer: admin.bearer, json: { default: false } }), 400);
  });
});
