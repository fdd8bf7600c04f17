import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { ROOT_GROUP_ID, newId } from "../../workers/lib/ids";
import { call, expectError, signIn, tamperedSig } from "./factories";
import {
  bytesOf,
  createAsset,
  createGroup,
  json,
  put,
  rows,
  sha256Of,
  signed,
  snapshot,
  startUpload,
  uploadVersion,
  type UploadInfo,
  type Uploaded,
} from "./asset-fixtures";

/** create-version → PUT → commit-after-upload, the version and variant reads, drop-empty-version and tech fields. */

const MIB = 1024 * 1024;

async function uploadQuery(info: { upload_url: string }) {
  return new URL(info.upload_url).searchParams;
}

describe("POST /api/asset/create-version/{id}", () => {
  it("answers a signed PUT link and inserts an invisible pending variant", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const before = Date.now();
    const info = await startUpload(user.bearer, id, { file_name: "Отпуск.MOV", mime_type: "video/quicktime", size: 1234 });
    expect(info).toMatchObject({ method: "PUT", max_size: 1234, headers: { "content-type": "video/quicktime" } });
    const url = new URL(info.upload_url);
    expect(url.origin).toBe("https://mam.test");
    expect(url.pathname).toBe(`/api/asset/content/upload/${info.variant_id}`);
    expect(url.searchParams.get("u")).toBe(user.id);
    expect(url.searchParams.get("sig")).toMatch(/^[\w-]{40,}$/);
    const lifetime = Date.parse(info.expire) - before;
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3601_000);
    const [variant] = await rows("select * from variants where id = ?", info.variant_id);
    expect(variant).toMatchObject({
      asset_id: id,
      version_id: null,
      status: "pending",
      variant_type: "initial",
      file_name: "Отпуск.MOV",
      format: "mov",
      content_size: 1234,
      storage_key: `assets/${id}/${info.variant_id}`,
      user_id: user.id,
    });
    // create-version made version 1 (issue 29): listed as empty, never current; its variant is nowhere else.
    expect(info.version).toBe(1);
    expect(await json(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }))).toMatchObject([
      { version: 1, state: "empty", version_id: null, variant_id: info.variant_id, content_size: 1234 },
    ]);
    expect(await json(await call(`/api/asset/${id}`, { bearer: user.bearer }))).toMatchObject({
      ver: 0,
      var: null,
      asset_latest_version_variants: [],
    });
    await expectError(await call(`/api/asset/variant-tech-fields/${info.variant_id}`, { bearer: user.bearer }), 404);
  });

  it("takes SPEC's body alone (to_group, variant_type): the asset's name and type, and the PUT's Content-Length as the size", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer, { asset_name: "Интервью.mp4", asset_mime: "video/mp4" });
    const group = await createGroup(user.id);
    const res = await call(`/api/asset/create-version/${id}`, {
      method: "POST",
      bearer: user.bearer,
      json: { to_group: group, variant_type: "initial" },
    });
    const info = await json<UploadInfo & { size_known: boolean }>(res);
    expect(info).toMatchObject({ mode: "single", method: "PUT", max_size: 95 * MIB, size_known: false, headers: { "content-type": "video/mp4" } });
    const bytes = bytesOf(2000, 7);
    const done = await json<Uploaded>(await put(info.upload_url, bytes, { "content-type": "video/mp4" }), 201);
    expect(done).toMatchObject({ asset_id: id, asset_version: 1, file_name: "Интервью.mp4", mime_type: "video/mp4", file_size: bytes.byteLength });
    expect(done.checksum).toBe(await sha256Of(bytes));
    expect(await rows("select content_size, status, format from variants where id = ?", info.variant_id)).toEqual([
      { content_size: bytes.byteLength, status: "ready", format: "mp4" },
    ]);
    expect(await rows("select el_id from group_members where group_id = ? and el_id = ?", group, id)).toHaveLength(1);
    // Without a declared size the PUT still needs Content-Length (411), and no more than the single-request limit (413).
    const again = await json<UploadInfo>(await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: user.bearer, json: {} }));
    await expectError(await put(again.upload_url, bytes, { "content-length": String(95 * MIB + 1) }), 413);
  });

  it("answers the multipart form above 95 MiB, 413 above UPLOAD_MAX_BYTES, 400 for sizes that are not integers ≥ 0", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const start = (size: unknown) =>
      call(`/api/asset/create-version/${id}`, {
        method: "POST",
        bearer: user.bearer,
        json: { file_name: "a.bin", mime_type: "application/octet-stream", size },
      });
    expect((await expectError(await start(50 * 1024 * MIB + 1), 413)).message).toBe(ru.s3.tooLarge("50"));
    await expectError(await start(-1), 400);
    await expectError(await start(1.5), 400);
    await expectError(await start("10"), 400);
    expect(await rows("select id from variants where asset_id = ?", id)).toEqual([]);
    expect((await startUpload(user.bearer, id, { size: 95 * MIB })).max_size).toBe(95 * MIB);
    expect(await json(await start(95 * MIB + 1))).toMatchObject({ mode: "multipart", max_size: 95 * MIB + 1 });
    expect((await startUpload(user.bearer, id, { size: 0 })).max_size).toBe(0);
    expect((await rows("select id from variants where asset_id = ?", id)).length).toBe(3);
  });

  it.each([
    ["an unknown variant type", { variant_type: "thumbnail" }],
    ["a file name with '/'", { file_name: "../../etc/passwd" }],
    ["an empty file name", { file_name: "" }],
    ["a 10,000-character file name", { file_name: "ф".repeat(10_000) }],
    ["a file name with control characters", { file_name: "a\u0007.mp4" }],
    ["a bad MIME type", { mime_type: "video" }],
    ["the virtual root as to_group", { to_group: ROOT_GROUP_ID }],
  ])("answers 400 for %s and inserts nothing", async (_what, body) => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const res = await call(`/api/asset/create-version/${id}`, {
      method: "POST",
      bearer: user.bearer,
      json: { file_name: "a.mp4", mime_type: "video/mp4", size: 10, ...body },
    });
    await expectError(res, 400);
    expect(await rows("select id from variants where asset_id = ?", id)).toEqual([]);
  });

  it("refuses other users' assets and groups (404) and inserts nothing", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const id = await createAsset(owner.bearer);
    const theirGroup = await createGroup(stranger.id);
    const body = { file_name: "a.mp4", mime_type: "video/mp4", size: 10 };
    await expectError(await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: stranger.bearer, json: body }), 404);
    await expectError(
      await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: owner.bearer, json: { ...body, to_group: theirGroup } }),
      404,
    );
    await expectError(await call(`/api/asset/create-version/${newId()}`, { method: "POST", bearer: owner.bearer, json: body }), 404);
    expect(await rows("select id from variants where asset_id = ?", id)).toEqual([]);
  });

  it("answers 503 before any byte moves when the asset's external storage cannot be opened", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const storage = "ab".repeat(16);
    await env.DB.prepare(
      "insert into storages (id, name, kind, url, bucket, creds_encrypted, ctime, mtime) values (?, 'S3', 's3', 'https://s3.example', 'b', 'garbage', 0, 0)",
    )
      .bind(storage)
      .run();
    await env.DB.prepare("update assets set default_storage = ? where id = ?").bind(storage, id).run();
    const res = await call(`/api/asset/create-version/${id}`, {
      method: "POST",
      bearer: user.bearer,
      json: { file_name: "a", mime_type: "a/b", size: 1 },
    });
    expect((await expectError(res, 503)).message).toBe(ru.catalog.storageCredsUnreadable);
    const pending = await env.DB.prepare("select count(*) as n from variants where asset_id = ?").bind(id).first<{ n: number }>();
    expect(pending?.n).toBe(0);
  });
});

describe("PUT /api/asset/content/upload/{variantId}: commit-after-upload", () => {
  it("stores the bytes, hashes them on the fly and commits version, variant, asset and memberships at once", async () => {
    const user = await signIn();
    const [home, target] = [await createGroup(user.id), await createGroup(user.id)];
    const id = await createAsset(user.bearer, { asset_name: "Клип.MP4", in_group: home });
    await env.DB.prepare("update group_members set el_mtime = 1 where el_id = ?").bind(id).run();
    const bytes = bytesOf(64 * 1024 + 17, 3);
    const info = await startUpload(user.bearer, id, { size: bytes.byteLength, file_name: "клип (финал).mp4", to_group: target });
    const done = await json<Uploaded>(await put(info.upload_url, bytes, { "content-type": "video/mp4" }), 201);
    expect(done).toEqual({
      asset_id: id,
      asset_version: 1,
      asset_variant_id: info.variant_id,
      storage_id: "0".repeat(32),
      storage_path: `assets/${id}/${info.variant_id}`,
      mime_type: "video/mp4",
      checksum: await sha256Of(bytes),
      checksum_alg: "sha256",
      file_name: "клип (финал).mp4",
      file_size: bytes.byteLength,
    });
    const stored = await env.MEDIA.get(done.storage_path);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
    const [variant] = await rows("select * from variants where id = ?", info.variant_id);
    const [version] = await rows<{ id: string; version: number; ctime: number }>("select * from asset_versions where asset_id = ?", id);
    expect(variant).toMatchObject({ status: "ready", version_id: version.id, sha256: done.checksum, content_size: bytes.byteLength });
    const [a] = await rows<{ latest_version: number; mtime: number }>("select * from assets where id = ?", id);
    expect(a).toMatchObject({ latest_version: 1, mtime: version.ctime });
    const members = await rows("select group_id, el_size, el_mtime, sort_name from group_members where el_id = ? order by group_id", id);
    expect(members).toEqual(
      [home, target].sort().map((g) => ({ group_id: g, el_size: bytes.byteLength, el_mtime: version.ctime, sort_name: "клип.mp4" })),
    );
  });

  it("numbers versions 1, 2, 3, also when uploads commit concurrently", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    expect((await uploadVersion(user.bearer, id, bytesOf(10))).asset_version).toBe(1);
    const infos = await Promise.all([1, 2, 3].map(() => startUpload(user.bearer, id, { size: 20 })));
    const results = await Promise.all(infos.map(async (info) => json<Uploaded>(await put(info.upload_url, bytesOf(20)), 201)));
    expect(results.map((r) => r.asset_version).sort()).toEqual([2, 3, 4]);
    expect(await rows("select version from asset_versions where asset_id = ? order by version", id)).toEqual(
      [1, 2, 3, 4].map((version) => ({ version })),
    );
    expect((await rows("select latest_version from assets where id = ?", id))[0].latest_version).toBe(4);
  });

  it("refuses a second PUT to a committed variant (409) and keeps the first bytes", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startUpload(user.bearer, id, { size: 10 });
    await json(await put(info.upload_url, bytesOf(10)), 201);
    const before = await snapshot(id);
    expect((await expectError(await put(info.upload_url, bytesOf(10, 99)), 409)).message).toBe(ru.assets.alreadyUploaded);
    expect(await snapshot(id)).toEqual(before);
    const stored = await env.MEDIA.get(`assets/${id}/${info.variant_id}`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytesOf(10));
  });

  it("answers 411 without Content-Length and 400 when it differs from the declared size: nothing becomes visible", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer);
    const info = await startUpload(user.bearer, id, { size: 10, to_group: group });
    const before = await snapshot(id);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytesOf(10));
        c.close();
      },
    });
    expect((await expectError(await put(info.upload_url, stream), 411)).message).toBe(ru.assets.lengthRequired);
    await expectError(await put(info.upload_url, bytesOf(9)), 400);
    await expectError(await put(info.upload_url, bytesOf(11)), 400);
    await expectError(await put(info.upload_url, bytesOf(10), { "content-length": "abc" }), 400);
    expect(await snapshot(id)).toEqual(before);
    expect(await env.MEDIA.head(`assets/${id}/${info.variant_id}`)).toBeNull();
    // The link still works for a correct PUT afterwards.
    expect((await json<Uploaded>(await put(info.upload_url, bytesOf(10)), 201)).asset_version).toBe(1);
  });

  it("deletes the object of a body shorter than its Content-Length and commits nothing", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer, { in_group: group });
    const info = await startUpload(user.bearer, id, { size: 10 });
    const before = await snapshot(id);
    const short = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytesOf(4));
        c.close();
      },
    });
    expect((await expectError(await put(info.upload_url, short, { "content-length": "10" }), 400)).message).toBe(
      ru.assets.sizeMismatch(10, 4),
    );
    expect(await snapshot(id)).toEqual(before);
    expect(await env.MEDIA.head(`assets/${id}/${info.variant_id}`)).toBeNull();
  });

  it("refuses tampered, expired, other-variant, other-purpose and other-user signatures (403), changing nothing", async () => {
    const user = await signIn();
    const other = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startUpload(user.bearer, id, { size: 10 });
    const second = await startUpload(user.bearer, id, { size: 10 });
    const q = await uploadQuery(info);
    const base = `/api/asset/content/upload/${info.variant_id}`;
    const tampered = new URLSearchParams(q);
    tampered.set("sig", tamperedSig(q.get("sig")!));
    const otherExp = new URLSearchParams(q);
    otherExp.set("exp", String(Number(q.get("exp")) + 3600));
    const cases = [
      tampered,
      otherExp,
      await signed("upload", info.variant_id, user.id, -10),
      new URL(second.upload_url).searchParams,
      await signed("play", info.variant_id, user.id),
      await signed("download", info.variant_id, user.id),
      await signed("upload", info.variant_id, other.id),
      new URLSearchParams({ u: user.id, exp: q.get("exp")! }),
      new URLSearchParams(),
    ];
    const before = await snapshot(id);
    for (const params of cases) {
      const res = await call(`${base}?${params}`, { method: "PUT", body: bytesOf(10) });
      expect((await expectError(res, 403)).message, String(params)).toBe(ru.assets.linkInvalid);
    }
    expect(await snapshot(id)).toEqual(before);
    expect(await env.MEDIA.head(`assets/${id}/${info.variant_id}`)).toBeNull();
    await expectError(await call(`/api/asset/content/upload/not-an-id?${q}`, { method: "PUT", body: bytesOf(10) }), 400);
  });

  it("re-checks the user: disabled users (403) and lost rights (404) cannot upload", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startUpload(user.bearer, id, { size: 10 });
    await env.DB.prepare("update users set enabled = 0 where id = ?").bind(user.id).run();
    await expectError(await put(info.upload_url, bytesOf(10)), 403);
    await env.DB.prepare("update users set enabled = 1 where id = ?").bind(user.id).run();
    const otherOwner = await signIn();
    await env.DB.prepare("update assets set owner_id = ? where id = ?").bind(otherOwner.id, id).run();
    await expectError(await put(info.upload_url, bytesOf(10)), 404);
    expect(await rows("select id from asset_versions where asset_id = ?", id)).toEqual([]);
  });

  it("refuses uploads into a trashed asset (404) and stores nothing", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const info = await startUpload(user.bearer, id, { size: 10 });
    await json(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 204);
    await expectError(await put(info.upload_url, bytesOf(10)), 404);
    expect(await env.MEDIA.head(`assets/${id}/${info.variant_id}`)).toBeNull();
    expect(await rows("select id from asset_versions where asset_id = ?", id)).toEqual([]);
  });

  it("streams a multi-megabyte upload and hashes it exactly", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const bytes = bytesOf(6 * MIB + 5, 11);
    const done = await uploadVersion(user.bearer, id, bytes);
    expect(done.checksum).toBe(await sha256Of(bytes));
    expect((await env.MEDIA.head(done.storage_path))?.size).toBe(bytes.byteLength);
  });
});

describe("versions and variants", () => {
  async function threeVersions() {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const uploads = [];
    for (const [i, size] of [10, 20, 30].entries())
      uploads.push(
        await uploadVersion(user.bearer, id, bytesOf(size), { file_name: `v${i + 1}.mp4`, variant_type: i === 1 ? "master" : "initial" }),
      );
    return { user, id, uploads };
  }

  it("GET /versions/{id}: one row per ready variant, newest version first, and create-version's empty version with its state", async () => {
    const { user, id, uploads } = await threeVersions();
    const empty = await startUpload(user.bearer, id, { size: 5 });
    const versions = await json<Record<string, unknown>[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(versions.map((v) => [v.version, v.state, v.variant_id, v.variant_type])).toEqual([
      [4, "empty", empty.variant_id, "initial"],
      [3, "ready", uploads[2].asset_variant_id, "initial"],
      [2, "ready", uploads[1].asset_variant_id, "master"],
      [1, "ready", uploads[0].asset_variant_id, "initial"],
    ]);
    expect(versions[0]).toMatchObject({ version_id: null, desc: null, user_id: user.id, content_size: 5 });
    // The current version is the newest ready one: previews, downloads and `ver` ignore the empty one.
    expect(await json(await call(`/api/asset/${id}`, { bearer: user.bearer }))).toMatchObject({ ver: 3 });
    await expectError(await call(`/api/asset/content/download/${id}/4/initial`, { bearer: user.bearer }), 404);
    expect(versions[1]).toMatchObject({
      desc: null,
      user_id: user.id,
      content_size: 30,
      mime_type: "video/mp4",
      ctime: expect.any(String),
    });
  });

  it("GET /variants/{id}/{version} and POST /version/{id}", async () => {
    const { user, id, uploads } = await threeVersions();
    const variants = await json<Record<string, unknown>[]>(await call(`/api/asset/variants/${id}/2`, { bearer: user.bearer }));
    expect(variants).toEqual([
      {
        variant_id: uploads[1].asset_variant_id,
        storage: "0".repeat(32),
        name: "v2.mp4",
        mime_type: "video/mp4",
        format: "mp4",
        variant_type: "master",
        content_size: 20,
        file_name: "v2.mp4",
        preview_storage_id: null,
        metadata_storage_id: null,
        user_id: user.id,
        sha256: uploads[1].checksum,
        ctime: expect.any(String),
        version: 2,
      },
    ]);
    const version = await json(await call(`/api/asset/version/${id}`, { method: "POST", bearer: user.bearer, json: { version: 3 } }));
    expect(version).toMatchObject({
      asset_id: id,
      version: 3,
      desc: null,
      user_id: user.id,
      variants: [expect.objectContaining({ variant_id: uploads[2].asset_variant_id })],
    });
    expect((await expectError(await call(`/api/asset/variants/${id}/4`, { bearer: user.bearer }), 404)).message).toBe(
      ru.assets.versionNotFound,
    );
    await expectError(await call(`/api/asset/version/${id}`, { method: "POST", bearer: user.bearer, json: { version: 9 } }), 404);
    await expectError(await call(`/api/asset/variants/${id}/0`, { bearer: user.bearer }), 400);
    await expectError(await call(`/api/asset/variants/${id}/abc`, { bearer: user.bearer }), 400);
    await expectError(await call(`/api/asset/version/${id}`, { method: "POST", bearer: user.bearer, json: { version: "1" } }), 400);
  });

  it("hides versions and variants from other users (404)", async () => {
    const { id } = await threeVersions();
    const stranger = await signIn();
    await expectError(await call(`/api/asset/versions/${id}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/variants/${id}/1`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/version/${id}`, { method: "POST", bearer: stranger.bearer, json: { version: 1 } }), 404);
  });
});

describe("POST /api/asset/drop-empty-version/{id}", () => {
  it("drops every empty version (SPEC's call, no body) and what failed uploads left; keeps ready and uploading ones", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const ready = await uploadVersion(user.bearer, id, bytesOf(10));
    const stale = await startUpload(user.bearer, id, { size: 10 });
    const fresh = await startUpload(user.bearer, id, { size: 10 });
    const multipart = await startUpload(user.bearer, id, { size: 10 });
    expect([stale.version, fresh.version, multipart.version]).toEqual([2, 3, 4]);
    // A multipart upload begun at the storage holds stored parts: it is uploading, not empty.
    await env.DB.prepare("update variants set upload_id = 'u-1', part_size = 5 where id = ?").bind(multipart.variant_id).run();
    await env.MEDIA.put(`assets/${id}/${stale.variant_id}`, "left behind");
    const res = await call(`/api/asset/drop-empty-version/${id}`, { method: "POST", bearer: user.bearer });
    expect(await json(res)).toEqual({ dropped: 2, versions: [3, 2] });
    expect((await rows<{ id: string }>("select id from variants where asset_id = ? order by id", id)).map((r) => r.id).sort()).toEqual(
      [ready.asset_variant_id, multipart.variant_id].sort(),
    );
    expect(await env.MEDIA.head(`assets/${id}/${stale.variant_id}`)).toBeNull();
    expect(await env.MEDIA.head(ready.storage_path)).not.toBeNull();
    // The dropped version's link no longer uploads anything.
    await expectError(await put(stale.upload_url, bytesOf(10)), 404);
    expect(await json(await call(`/api/asset/drop-empty-version/${id}`, { method: "POST", bearer: user.bearer }))).toEqual({ dropped: 0, versions: [] });
    const listed = await json<{ version: number; state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(listed.map((v) => [v.version, v.state])).toEqual([
      [4, "uploading"],
      [1, "ready"],
    ]);
  });

  it("drops one named empty version; a version with content or bytes arriving is 409 and nothing goes; an unknown one 404", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    await uploadVersion(user.bearer, id, bytesOf(10));
    const a = await startUpload(user.bearer, id, { size: 10 });
    const b = await startUpload(user.bearer, id, { size: 10 });
    await env.DB.prepare("update variants set status = 'saving', upload_id = 'u-2', part_size = 5 where id = ?").bind(b.variant_id).run();
    const drop = (json: unknown) => call(`/api/asset/drop-empty-version/${id}`, { method: "POST", bearer: user.bearer, json });
    const before = await snapshot(id);
    await expectError(await drop({ version: 1 }), 409);
    await expectError(await drop({ version: b.version }), 409);
    await expectError(await drop({ version: 9 }), 404);
    await expectError(await drop({ version: "2" }), 400);
    expect(await snapshot(id)).toEqual(before);
    await expectError(await drop({ version: a.version, variant_id: a.variant_id }), 400);
    expect(await snapshot(id)).toEqual(before);
    expect(await json(await drop({ version: a.version }))).toEqual({ dropped: 1, versions: [2] });
    expect((await rows("select id from variants where id = ?", a.variant_id)).length).toBe(0);
    // By its upload (what the app's queue does when a new version is cancelled): the variant create-version answered.
    const c = await startUpload(user.bearer, id, { size: 10 });
    expect(await json(await drop({ variant_id: c.variant_id }))).toEqual({ dropped: 1, versions: [c.version] });
    await expectError(await drop({ variant_id: c.variant_id }), 404);
    await expectError(await drop({ variant_id: b.variant_id }), 409);
  });

  it("an upload commits into the number create-version made, even when a later one committed first; the newest stays current", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer, { in_group: await createGroup(user.id) });
    await uploadVersion(user.bearer, id, bytesOf(10));
    const second = await startUpload(user.bearer, id, { size: 20 });
    const third = await startUpload(user.bearer, id, { size: 30 });
    expect(await json(await put(third.upload_url, bytesOf(30)), 201)).toMatchObject({ asset_version: 3 });
    // A one-request upload meanwhile takes the number after every reserved one.
    const direct = await call(`/api/asset/upload?asset_id=${id}&name=v4.bin`, { method: "POST", bearer: user.bearer, body: bytesOf(40), headers: { "content-type": "application/octet-stream" } });
    expect(await json(direct, 201)).toMatchObject({ asset_version: 4 });
    expect(await json(await put(second.upload_url, bytesOf(20)), 201)).toMatchObject({ asset_version: 2 });
    expect(await json(await call(`/api/asset/${id}`, { bearer: user.bearer }))).toMatchObject({ ver: 4 });
    const listed = await json<{ version: number; state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(listed.map((v) => [v.version, v.state])).toEqual([
      [4, "ready"],
      [3, "ready"],
      [2, "ready"],
      [1, "ready"],
    ]);
    // The folder shows the current (newest) version's size, not the one that committed last.
    expect((await rows<{ el_size: number }>("select el_size from group_members where el_id = ?", id)).map((r) => r.el_size)).toEqual([40]);
  });

  it("a failed PUT leaves its version empty again (nothing kept)", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const up = await startUpload(user.bearer, id, { size: 10 });
    await expectError(await put(up.upload_url, bytesOf(9)), 400);
    const listed = await json<{ version: number; state: string }[]>(await call(`/api/asset/versions/${id}`, { bearer: user.bearer }));
    expect(listed.map((v) => [v.version, v.state])).toEqual([[1, "empty"]]);
  });

  it("refuses other users (404) and changes nothing", async () => {
    const user = await signIn();
    const stranger = await signIn();
    const id = await createAsset(user.bearer);
    const stale = await startUpload(user.bearer, id, { size: 10 });
    await env.DB.prepare("update variants set ctime = 0 where id = ?").bind(stale.variant_id).run();
    const before = await snapshot(id);
    await expectError(await call(`/api/asset/drop-empty-version/${id}`, { method: "POST", bearer: stranger.bearer }), 404);
    expect(await snapshot(id)).toEqual(before);
  });
});

describe("technical fields and properties", () => {
  it("answers {} until processing fills them, then the stored JSON", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const up = await uploadVersion(user.bearer, id, bytesOf(10));
    const v = up.asset_variant_id;
    expect(await json(await call(`/api/asset/tech-fields/${id}/${v}`, { bearer: user.bearer }))).toEqual({});
    await env.DB.prepare("update variants set tech_fields = ?, tech_props = ? where id = ?")
      .bind(JSON.stringify({ duration: 12.5, codec: "h264" }), JSON.stringify({ width: 1920, height: 1080 }), v)
      .run();
    expect(await json(await call(`/api/asset/tech-fields/${id}/${v}`, { bearer: user.bearer }))).toEqual({ duration: 12.5, codec: "h264" });
    expect(await json(await call(`/api/asset/variant-tech-fields/${v}`, { bearer: user.bearer }))).toEqual({
      duration: 12.5,
      codec: "h264",
    });
    expect(await json(await call(`/api/asset/variant-tech-props/${v}`, { bearer: user.bearer }))).toEqual({ width: 1920, height: 1080 });
    // By asset id: the main variant of the latest version.
    expect(await json(await call(`/api/asset/variant-tech-props/${id}`, { bearer: user.bearer }))).toEqual({ width: 1920, height: 1080 });
  });

  it("answers 404 for a variant of another asset, unknown ids and other users", async () => {
    const user = await signIn();
    const stranger = await signIn();
    const [a, b] = [await createAsset(user.bearer), await createAsset(user.bearer)];
    const up = await uploadVersion(user.bearer, a, bytesOf(10));
    await expectError(await call(`/api/asset/tech-fields/${b}/${up.asset_variant_id}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/variant-tech-fields/${newId()}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/asset/variant-tech-props/${newId()}`, { bearer: user.bearer }), 404);
    for (const path of [
      `/api/asset/tech-fields/${a}/${up.asset_variant_id}`,
      `/api/asset/variant-tech-fields/${up.asset_variant_id}`,
      `/api/asset/variant-tech-props/${up.asset_variant_id}`,
      `/api/asset/variant-tech-props/${a}`,
    ]) {
      expect((await expectError(await call(path, { bearer: stranger.bearer }), 404)).message).toMatch(/не найден/);
    }
    await expectError(await call(`/api/asset/variant-tech-fields/xyz`, { bearer: user.bearer }), 400);
  });
});
