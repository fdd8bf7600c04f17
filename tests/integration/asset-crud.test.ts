import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { ROOT_GROUP_ID, newId } from "../../workers/lib/ids";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { bytesOf, createAsset, createGroup, json, rows, snapshot, uploadVersion } from "./asset-fixtures";

/** Identity calls: create, read, change, trash and restore, and the related reads. */

const DAY = 86_400_000;

async function addTag(assetId: string, name: string): Promise<string> {
  const id = newId();
  await env.DB.batch([
    env.DB.prepare("insert into tags (id, name, ctime) values (?, ?, ?)").bind(id, name, Date.now()),
    env.DB.prepare("insert into entity_tags (tag_id, entity_id, entity_type) values (?, ?, 'asset')").bind(id, assetId),
  ]);
  return id;
}

async function addClass(name = `Класс ${newId().slice(-6)}`): Promise<string> {
  const id = newId();
  await env.DB.prepare("insert into asset_classes (id, name, def_fields, ctime, mtime) values (?, ?, '[]', 0, 0)").bind(id, name).run();
  return id;
}

async function ownedCount(userId: string): Promise<number> {
  return (await rows<{ n: number }>("select count(*) as n from assets where owner_id = ?", userId))[0].n;
}

const asset = (bearer: string, id: string, query = "") => call(`/api/asset/${id}${query}`, { bearer });

describe("POST /api/asset/create", () => {
  it("creates an asset listed in a group, with its membership's sort keys", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer, { asset_name: "Съёмка 2026 🎬.mp4", asset_mime: "video/mp4", in_group: group });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const [a] = await rows("select * from assets where id = ?", id);
    expect(a).toMatchObject({ name: "Съёмка 2026 🎬.mp4", mime: "video/mp4", owner_id: user.id, creator_id: user.id, latest_version: 0, deleted_at: null });
    expect(a.default_storage).toBe("0".repeat(32));
    const members = await rows("select * from group_members where el_id = ?", id);
    expect(members).toEqual([
      expect.objectContaining({ group_id: group, el_type: "asset", sort_name: "съёмка 2026 🎬.mp4", el_size: 0, trashed_at: null }),
    ]);
  });

  it("creates an asset in no group, and with a class", async () => {
    const user = await signIn();
    const cls = await addClass();
    const id = await createAsset(user.bearer, { asset_class: cls });
    expect(await rows("select * from group_members where el_id = ?", id)).toEqual([]);
    expect((await rows("select class_id from assets where id = ?", id))[0].class_id).toBe(cls);
  });

  it("takes the group's default storage", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    await env.DB.prepare("update groups set default_storage = ? where id = ?").bind("ab".repeat(16), group).run();
    const id = await createAsset(user.bearer, { in_group: group });
    expect((await rows("select default_storage from assets where id = ?", id))[0].default_storage).toBe("ab".repeat(16));
  });

  it.each([
    ["a missing name", { asset_name: undefined }],
    ["an empty name", { asset_name: "" }],
    ["a 10,000-character name", { asset_name: "я".repeat(10_000) }],
    ["a name with '/'", { asset_name: "a/b.mp4" }],
    ["the name '..'", { asset_name: ".." }],
    ["a name with NUL", { asset_name: "a\u0000b" }],
    ["a name with a line break", { asset_name: "a\nb" }],
    ["a name with a lone surrogate", { asset_name: "a\uD800b" }],
    ["a name with surrounding spaces", { asset_name: " a.mp4 " }],
    ["a malformed MIME type", { asset_mime: "not a mime" }],
    ["a group id of the wrong shape", { in_group: "../etc" }],
    ["a class id of the wrong shape", { asset_class: 42 }],
  ])("answers 400 for %s and creates nothing", async (_what, patch) => {
    const user = await signIn();
    const res = await call("/api/asset/create", { method: "POST", bearer: user.bearer, json: { asset_name: "ok.mp4", asset_mime: "video/mp4", ...patch } });
    await expectError(res, 400);
    expect(await ownedCount(user.id)).toBe(0);
  });

  it("refuses the virtual root (400), unknown groups and classes (404)", async () => {
    const user = await signIn();
    const post = (body: Record<string, unknown>) =>
      call("/api/asset/create", { method: "POST", bearer: user.bearer, json: { asset_name: "a.mp4", asset_mime: "video/mp4", ...body } });
    expect((await expectError(await post({ in_group: ROOT_GROUP_ID }), 400)).message).toBe(ru.assets.notInRoot);
    expect((await expectError(await post({ in_group: newId() }), 404)).message).toBe(ru.groups.notFound);
    expect((await expectError(await post({ asset_class: newId() }), 404)).message).toBe(ru.assets.classNotFound);
    expect(await ownedCount(user.id)).toBe(0);
  });

  it("answers 404 for another user's group or a trashed group, and creates nothing", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const group = await createGroup(owner.id);
    const res = await call("/api/asset/create", { method: "POST", bearer: stranger.bearer, json: { asset_name: "a.mp4", asset_mime: "video/mp4", in_group: group } });
    await expectError(res, 404);
    const trashed = await createGroup(owner.id);
    await env.DB.prepare("update groups set deleted_at = ? where id = ?").bind(Date.now(), trashed).run();
    await expectError(await call("/api/asset/create", { method: "POST", bearer: owner.bearer, json: { asset_name: "a", asset_mime: "a/b", in_group: trashed } }), 404);
    expect(await ownedCount(stranger.id)).toBe(0);
    expect(await ownedCount(owner.id)).toBe(0);
    expect(await rows("select * from group_members where group_id in (?, ?)", group, trashed)).toEqual([]);
  });

  it("lets an administrator create in anyone's group", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(admin.bearer, { in_group: group });
    expect(await rows("select group_id from group_members where el_id = ?", id)).toEqual([{ group_id: group }]);
  });

  it("answers 401 without a bearer", async () => {
    await expectError(await call("/api/asset/create", { method: "POST", json: { asset_name: "a", asset_mime: "a/b" } }), 401);
  });
});

describe("POST /api/asset/create-list", () => {
  it("creates many assets in one batch, in order", async () => {
    const user = await signIn();
    const [g1, g2] = [await createGroup(user.id), await createGroup(user.id)];
    const assets = [
      { asset_name: "один.mp4", asset_mime: "video/mp4", in_group: g1 },
      { asset_name: "два.mp4", asset_mime: "video/mp4", in_group: g2 },
      { asset_name: "три.mp4", asset_mime: "video/mp4" },
    ];
    const created = await json<{ asset_id: string }[]>(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets } }));
    expect(created).toHaveLength(3);
    const names = await Promise.all(created.map(async (c) => (await rows("select name from assets where id = ?", c.asset_id))[0].name));
    expect(names).toEqual(["один.mp4", "два.mp4", "три.mp4"]);
    expect(await rows("select group_id from group_members where el_id = ?", created[1].asset_id)).toEqual([{ group_id: g2 }]);
  });

  it("creates 500 assets (the limit) and refuses 501", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const assets = Array.from({ length: 500 }, (_, i) => ({ asset_name: `файл ${i}.jpg`, asset_mime: "image/jpeg", in_group: group }));
    const created = await json<unknown[]>(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets } }));
    expect(created).toHaveLength(500);
    expect((await rows<{ n: number }>("select count(*) as n from group_members where group_id = ?", group))[0].n).toBe(500);
    const tooMany = [...assets, assets[0]];
    await expectError(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets: tooMany } }), 400);
    await expectError(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets: [] } }), 400);
    expect(await ownedCount(user.id)).toBe(500);
  });

  it("is all or nothing: one forbidden group creates none", async () => {
    const user = await signIn();
    const other = await signIn();
    const mine = await createGroup(user.id);
    const theirs = await createGroup(other.id);
    const assets = [
      { asset_name: "a.mp4", asset_mime: "video/mp4", in_group: mine },
      { asset_name: "b.mp4", asset_mime: "video/mp4", in_group: theirs },
    ];
    await expectError(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets } }), 404);
    const badName = [{ asset_name: "ok", asset_mime: "a/b" }, { asset_name: "x/y", asset_mime: "a/b" }];
    await expectError(await call("/api/asset/create-list", { method: "POST", bearer: user.bearer, json: { assets: badName } }), 400);
    expect(await ownedCount(user.id)).toBe(0);
  });
});

describe("GET /api/asset/{id}", () => {
  it("answers the Asset fields and the Info form of an asset without bytes", async () => {
    const user = await signIn({ name: "Анна" });
    const id = await createAsset(user.bearer, { asset_name: "Пустой.mov", asset_mime: "video/quicktime" });
    const body = await json(await asset(user.bearer, id));
    expect(body).toMatchObject({
      asset_id: id,
      name: "Пустой.mov",
      owner: user.id,
      owner_name: "Анна",
      creator: user.id,
      creator_name: "Анна",
      mimetype: "video/quicktime",
      class: null,
      tags: [],
      default_storage: "0".repeat(32),
      asset_latest_version: 0,
      asset_latest_version_variants: [],
      asset_links: [],
      ver: 0,
      var: null,
      var_size: null,
      var_hash: [],
    });
    for (const field of ["ctime", "mtime", "atime"]) expect(new Date(body[field] as string).toISOString()).toBe(body[field]);
    expect(body.asset_access).toContain("download");
    expect(body).not.toHaveProperty("versions");
  });

  it("answers ver, var, var_size and var_hash of the latest version, and the sections asked for", async () => {
    const user = await signIn();
    const group = await createGroup(user.id, "Моя папка");
    const id = await createAsset(user.bearer, { in_group: group });
    await uploadVersion(user.bearer, id, bytesOf(100));
    const second = await uploadVersion(user.bearer, id, bytesOf(200, 7), { file_name: "v2.mp4" });
    const tag = await addTag(id, "Лето");
    const body = await json(await asset(user.bearer, id, "?versions&variants=true&groups=1"));
    expect(body).toMatchObject({
      ver: 2,
      var: second.asset_variant_id,
      var_size: 200,
      var_hash: [{ alg: "sha256", value: second.checksum }],
      asset_latest_version: 2,
      tags: [{ tag_id: tag, tag_name: "Лето" }],
      groups: [{ group_id: group, group_name: "Моя папка" }],
    });
    expect((body.asset_latest_version_variants as { variant_id: string }[]).map((v) => v.variant_id)).toEqual([second.asset_variant_id]);
    expect((body.versions as { version: number }[]).map((v) => v.version)).toEqual([2, 1]);
    expect((body.variants as { version: number; file_name: string }[]).map((v) => [v.version, v.file_name])).toEqual([
      [2, "v2.mp4"],
      [1, "clip.mp4"],
    ]);
  });

  it("answers only the sections asked for with info=false", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const tag = await addTag(id, "Зима");
    expect(await json(await asset(user.bearer, id, "?info=false&tags"))).toEqual({ asset_id: id, tags: [{ tag_id: tag, tag_name: "Зима" }] });
    expect(await json(await asset(user.bearer, id, "?info=0&versions"))).toEqual({ asset_id: id, versions: [] });
    await expectError(await asset(user.bearer, id, "?info=maybe"), 400);
  });

  it("orders tags and groups by name the way people read them (Cyrillic, any case)", async () => {
    const user = await signIn();
    const [g1, g2] = [await createGroup(user.id, "яблоки"), await createGroup(user.id, "Апельсины")];
    const id = await createAsset(user.bearer, { in_group: g1 });
    await env.DB.prepare("insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', 0, 'апельсины')").bind(g2, id).run();
    const t1 = await addTag(id, "ёжик");
    const t2 = await addTag(id, "Ель");
    const t3 = await addTag(id, "Берёза");
    const body = await json<{ tags: { tag_id: string }[]; groups: { group_id: string }[] }>(await asset(user.bearer, id, "?groups"));
    // Russian collation: ё sorts with е, so «ёжик» (ж) comes before «Ель» (л).
    expect(body.tags.map((t) => t.tag_id)).toEqual([t3, t1, t2]);
    expect(body.groups.map((g) => g.group_id)).toEqual([g2, g1]);
  });

  it("updates atime in the background, at most once a minute", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    await env.DB.prepare("update assets set atime = 1000 where id = ?").bind(id).run();
    await json(await asset(user.bearer, id));
    let atime = 1000;
    for (let i = 0; i < 50 && atime === 1000; i++) {
      await new Promise((r) => setTimeout(r, 20));
      atime = (await rows<{ atime: number }>("select atime from assets where id = ?", id))[0].atime;
    }
    expect(atime).toBeGreaterThan(Date.now() - 60_000);
  });

  it("hides other users' assets (404), lets the administrator read them", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const admin = await signInAdmin();
    const id = await createAsset(owner.bearer);
    expect((await expectError(await asset(stranger.bearer, id), 404)).message).toBe(ru.assets.notFound);
    expect((await json(await asset(admin.bearer, id))).asset_id).toBe(id);
  });

  it("answers 404 for unknown and trashed assets, 400 for ids of the wrong shape, 401 without a bearer", async () => {
    const user = await signIn();
    await expectError(await asset(user.bearer, newId()), 404);
    const id = await createAsset(user.bearer);
    await env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now(), id).run();
    await expectError(await asset(user.bearer, id), 404);
    await expectError(await asset(user.bearer, "NOT-AN-ID"), 400);
    await expectError(await asset(user.bearer, "0".repeat(33)), 400);
    await expectError(await call(`/api/asset/${id}`), 401);
  });
});

describe("PATCH /api/asset/{id}", () => {
  const patch = (bearer: string, id: string, body: unknown) => call(`/api/asset/${id}`, { method: "PATCH", bearer, json: body });

  it("renames an asset and keeps its memberships' sort keys in sync", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer, { in_group: group });
    await env.DB.prepare("update assets set mtime = 1 where id = ?").bind(id).run();
    await env.DB.prepare("update group_members set el_mtime = 1 where el_id = ?").bind(id).run();
    const body = await json(await patch(user.bearer, id, { asset_name: "ЁЛКА.mp4" }));
    expect(body).toMatchObject({ asset_id: id, name: "ЁЛКА.mp4" });
    const [member] = await rows<{ sort_name: string; el_mtime: number }>("select * from group_members where el_id = ?", id);
    expect(member.sort_name).toBe("ёлка.mp4");
    const [a] = await rows<{ mtime: number }>("select mtime from assets where id = ?", id);
    expect(a.mtime).toBeGreaterThan(1);
    expect(member.el_mtime).toBe(a.mtime);
  });

  it("changes the MIME type and sets or clears the class", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const cls = await addClass();
    expect(await json(await patch(user.bearer, id, { asset_mime: "audio/mpeg", asset_class: cls }))).toMatchObject({ mimetype: "audio/mpeg", class: cls });
    expect(await json(await patch(user.bearer, id, { asset_class: null }))).toMatchObject({ mimetype: "audio/mpeg", class: null });
  });

  it.each([
    ["an empty body", {}],
    ["a bad name", { asset_name: "a/b" }],
    ["a 10,000-character name", { asset_name: "x".repeat(10_000) }],
    ["a bad MIME type", { asset_mime: "оченьплохо" }],
    ["a bad class id", { asset_class: "x" }],
  ])("answers 400 for %s and changes nothing", async (_what, body) => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    const before = await snapshot(id);
    await expectError(await patch(user.bearer, id, body), 400);
    expect(await snapshot(id)).toEqual(before);
  });

  it("answers 404 for an unknown class, another user's asset (nothing changes) and unknown assets", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const group = await createGroup(owner.id);
    const id = await createAsset(owner.bearer, { in_group: group });
    const before = await snapshot(id);
    expect((await expectError(await patch(owner.bearer, id, { asset_class: newId() }), 404)).message).toBe(ru.assets.classNotFound);
    await expectError(await patch(stranger.bearer, id, { asset_name: "взлом" }), 404);
    expect(await snapshot(id)).toEqual(before);
    await expectError(await patch(owner.bearer, newId(), { asset_name: "x" }), 404);
  });
});

describe("DELETE /api/asset/{id}, POST /api/asset/delete-list, POST /api/asset/restore/{id}, GET /api/asset/trash", () => {
  it("moves an asset to the trash, hiding its memberships at the same instant", async () => {
    const user = await signIn();
    const group = await createGroup(user.id);
    const id = await createAsset(user.bearer, { in_group: group });
    const res = await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer });
    expect(res.status).toBe(204);
    const [a] = await rows<{ deleted_at: number }>("select deleted_at from assets where id = ?", id);
    expect(a.deleted_at).toBeGreaterThan(0);
    expect(await rows("select trashed_at from group_members where el_id = ?", id)).toEqual([{ trashed_at: a.deleted_at }]);
    await expectError(await asset(user.bearer, id), 404);
    await expectError(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 404);
  });

  it("refuses another user's asset (404) and changes nothing", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const id = await createAsset(owner.bearer, { in_group: await createGroup(owner.id) });
    const before = await snapshot(id);
    await expectError(await call(`/api/asset/${id}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: stranger.bearer, json: { ids: [id] } }), 404);
    await expectError(await call(`/api/asset/restore/${id}`, { method: "POST", bearer: stranger.bearer }), 404);
    expect(await snapshot(id)).toEqual(before);
  });

  it("trashes a list all or nothing", async () => {
    const user = await signIn();
    const other = await signIn();
    const [a, b] = [await createAsset(user.bearer), await createAsset(user.bearer)];
    const foreign = await createAsset(other.bearer);
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: [a, foreign] } }), 404);
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: [a, newId()] } }), 404);
    expect(await rows("select id from assets where id in (?, ?) and deleted_at is not null", a, b)).toEqual([]);
    const res = await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: [a, b, a] } });
    expect(res.status).toBe(204);
    expect((await rows("select id from assets where id in (?, ?) and deleted_at is not null", a, b)).length).toBe(2);
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: [] } }), 400);
    const tooMany = Array.from({ length: 501 }, () => newId());
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: tooMany } }), 400);
    await expectError(await call("/api/asset/delete-list", { method: "POST", bearer: user.bearer, json: { ids: ["nope"] } }), 400);
  });

  it("restores an asset within 30 days, with exactly the memberships its trashing hid", async () => {
    const user = await signIn();
    const [g1, g2] = [await createGroup(user.id), await createGroup(user.id)];
    const id = await createAsset(user.bearer, { in_group: g1 });
    await env.DB.prepare("insert into group_members (group_id, el_id, el_type, ctime, sort_name, trashed_at) values (?, ?, 'asset', 0, 'x', 5)")
      .bind(g2, id)
      .run();
    await json(await call(`/api/asset/${id}`, { method: "DELETE", bearer: user.bearer }), 204);
    const restored = await json(await call(`/api/asset/restore/${id}`, { method: "POST", bearer: user.bearer }));
    expect(restored).toMatchObject({ asset_id: id });
    expect(await rows("select group_id, trashed_at from group_members where el_id = ? order by group_id", id)).toEqual(
      [
        { group_id: g1, trashed_at: null },
        { group_id: g2, trashed_at: 5 },
      ].sort((x, y) => x.group_id.localeCompare(y.group_id)),
    );
    expect((await expectError(await call(`/api/asset/restore/${id}`, { method: "POST", bearer: user.bearer }), 409)).message).toBe(ru.assets.notInTrash);
  });

  it("refuses to restore after 30 days", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    await env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now() - 31 * DAY, id).run();
    expect((await expectError(await call(`/api/asset/restore/${id}`, { method: "POST", bearer: user.bearer }), 404)).message).toBe(ru.assets.restoreExpired);
    await expectError(await call(`/api/asset/restore/${newId()}`, { method: "POST", bearer: user.bearer }), 404);
  });

  it("lists the caller's restorable trash, newest first, paged", async () => {
    const user = await signIn();
    const other = await signIn();
    const ids = [await createAsset(user.bearer, { asset_name: "старый" }), await createAsset(user.bearer, { asset_name: "новый" })];
    const expired = await createAsset(user.bearer);
    const foreign = await createAsset(other.bearer);
    await env.DB.batch([
      env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now() - 2 * DAY, ids[0]),
      env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now() - DAY, ids[1]),
      env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now() - 40 * DAY, expired),
      env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now(), foreign),
    ]);
    const trash = await json<{ asset_id: string; name: string; deleted_at: string; purge_at: string }[]>(await call("/api/asset/trash", { bearer: user.bearer }));
    expect(trash.map((t) => t.asset_id)).toEqual([ids[1], ids[0]]);
    expect(Date.parse(trash[0].purge_at) - Date.parse(trash[0].deleted_at)).toBe(30 * DAY);
    const page = await json<{ asset_id: string }[]>(await call("/api/asset/trash?skip=1&take=1", { bearer: user.bearer }));
    expect(page.map((t) => t.asset_id)).toEqual([ids[0]]);
    await expectError(await call("/api/asset/trash?take=0", { bearer: user.bearer }), 400);
  });
});

describe("GET /api/asset/acl-assets, /member-of/{id}, /content-size/{id}; POST /version-by-ids", () => {
  it("lists the assets the caller owns, recently changed first, paged; not trashed ones, not others'", async () => {
    const user = await signIn();
    const other = await signIn();
    const b = await createAsset(user.bearer, { asset_name: "Б.mp4" });
    const a = await createAsset(user.bearer, { asset_name: "а.mp4" });
    await env.DB.prepare("update assets set mtime = ? where id = ?").bind(1000, b).run();
    const trashed = await createAsset(user.bearer, { asset_name: "в.mp4" });
    await json(await call(`/api/asset/${trashed}`, { method: "DELETE", bearer: user.bearer }), 204);
    await createAsset(other.bearer);
    const list = await json<{ asset_id: string; name: string; ver: number }[]>(await call("/api/asset/acl-assets", { bearer: user.bearer }));
    expect(list.map((x) => x.asset_id)).toEqual([a, b]);
    expect(list[0]).toMatchObject({ name: "а.mp4", ver: 0, mimetype: "video/mp4" });
    expect((await json<unknown[]>(await call("/api/asset/acl-assets?skip=1&take=5", { bearer: user.bearer }))).length).toBe(1);
  });

  it("lists the live groups an asset is in that the caller can see", async () => {
    const user = await signIn();
    const admin = await signInAdmin();
    const [g1, g2, hidden] = [await createGroup(user.id, "Альфа"), await createGroup(user.id, "бета"), await createGroup(null, "Общая")];
    const id = await createAsset(user.bearer, { in_group: g1 });
    await env.DB.batch(
      [g2, hidden].map((g) =>
        env.DB.prepare("insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', 0, 'x')").bind(g, id),
      ),
    );
    expect(await json(await call(`/api/asset/member-of/${id}`, { bearer: user.bearer }))).toEqual([
      { group_id: g1, group_name: "Альфа" },
      { group_id: g2, group_name: "бета" },
    ]);
    expect((await json<unknown[]>(await call(`/api/asset/member-of/${id}`, { bearer: admin.bearer }))).length).toBe(3);
    // SPEC §3 asset_links: the same folders, in GET /api/asset/{id}, for the same caller.
    expect((await json<{ asset_links: unknown }>(await asset(user.bearer, id))).asset_links).toEqual([
      { group_id: g1, group_name: "Альфа" },
      { group_id: g2, group_name: "бета" },
    ]);
    await env.DB.prepare("update groups set deleted_at = 1 where id = ?").bind(g2).run();
    expect(await json(await call(`/api/asset/member-of/${id}`, { bearer: user.bearer }))).toEqual([{ group_id: g1, group_name: "Альфа" }]);
    const stranger = await signIn();
    await expectError(await call(`/api/asset/member-of/${id}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/asset/member-of/bad`, { bearer: user.bearer }), 400);
  });

  it("sums the sizes of ready variants only", async () => {
    const user = await signIn();
    const id = await createAsset(user.bearer);
    expect(await json(await call(`/api/asset/content-size/${id}`, { bearer: user.bearer }))).toEqual({ size: 0 });
    await uploadVersion(user.bearer, id, bytesOf(300));
    await uploadVersion(user.bearer, id, bytesOf(45));
    await call(`/api/asset/create-version/${id}`, { method: "POST", bearer: user.bearer, json: { file_name: "p.mp4", mime_type: "video/mp4", size: 5000 } });
    expect(await json(await call(`/api/asset/content-size/${id}`, { bearer: user.bearer }))).toEqual({ size: 345 });
    const stranger = await signIn();
    await expectError(await call(`/api/asset/content-size/${id}`, { bearer: stranger.bearer }), 404);
  });

  it("answers the versions the caller may read and leaves the others out", async () => {
    const user = await signIn();
    const other = await signIn();
    const mine = await createAsset(user.bearer);
    const theirs = await createAsset(other.bearer);
    await uploadVersion(user.bearer, mine, bytesOf(10));
    await uploadVersion(other.bearer, theirs, bytesOf(10));
    const [v1] = await rows<{ id: string }>("select id from asset_versions where asset_id = ?", mine);
    const [v2] = await rows<{ id: string }>("select id from asset_versions where asset_id = ?", theirs);
    const list = await json<{ version_id: string; asset_id: string; version: number }[]>(
      await call("/api/asset/version-by-ids", { method: "POST", bearer: user.bearer, json: { ids: [v1.id, v2.id, newId()] } }),
    );
    expect(list).toEqual([expect.objectContaining({ version_id: v1.id, asset_id: mine, version: 1, user_id: user.id, desc: null })]);
    await expectError(await call("/api/asset/version-by-ids", { method: "POST", bearer: user.bearer, json: { ids: ["x"] } }), 400);
    await expectError(await call("/api/asset/version-by-ids", { method: "POST", bearer: user.bearer, json: {} }), 400);
  });
});

describe("OpenAPI document", () => {
  it("describes every asset call", async () => {
    const doc = await json<{ paths: Record<string, Record<string, unknown>> }>(await call("/api/openapi.json"));
    const expected: [string, string][] = [
      ["/api/asset/create", "post"],
      ["/api/asset/create-list", "post"],
      ["/api/asset/{id}", "get"],
      ["/api/asset/{id}", "patch"],
      ["/api/asset/{id}", "delete"],
      ["/api/asset/delete-list", "post"],
      ["/api/asset/restore/{id}", "post"],
      ["/api/asset/trash", "get"],
      ["/api/asset/version/{id}", "post"],
      ["/api/asset/versions/{id}", "get"],
      ["/api/asset/variants/{id}/{version}", "get"],
      ["/api/asset/version-by-ids", "post"],
      ["/api/asset/create-version/{id}", "post"],
      ["/api/asset/content/upload/{variantId}", "put"],
      ["/api/asset/drop-empty-version/{id}", "post"],
      ["/api/asset/content/download/{id}/{version}/{variant}", "get"],
      ["/api/asset/content/download-variant/{variantId}", "get"],
      ["/api/asset/content/play/{id}", "post"],
      ["/api/asset/content/play-variant/{variant}", "post"],
      ["/api/asset/content/play-variant/{variant}", "get"],
      ["/api/asset/content/stream/{variantId}", "get"],
      ["/api/asset/content-size/{id}", "get"],
      ["/api/asset/member-of/{id}", "get"],
      ["/api/asset/acl-assets", "get"],
      ["/api/asset/tech-fields/{id}/{variantId}", "get"],
      ["/api/asset/variant-tech-fields/{variantId}", "get"],
      ["/api/asset/variant-tech-props/{id}", "get"],
      ["/api/asset/copy/{a}/{b}", "post"],
      ["/api/asset/asset-proxy-doc/{id}/{version}", "get"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeTruthy();
  });
});
