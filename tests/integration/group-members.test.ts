import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { encodeCursor } from "../../workers/services/library/group-tree";
import type { DirectoryEntry, GroupMember } from "../../workers/services/library/group-listing.service";
import type { Group } from "../../workers/services/library/group.service";
import { call, expectError, ORIGIN } from "./factories";
import {
  admin,
  createGroup,
  getJson,
  insertAsset,
  librarySnapshot,
  membersOf,
  ordinaryUser,
  ROOT_GROUP_ID,
  send,
  uniqueName,
} from "./library-factories";

// Listings (members, dir, preview-list, subtree), membership changes (insert, delete), entity-by-path, group-size.

type AssetMember = Extract<GroupMember, { el_type: "asset" }>;
type GroupMemberItem = Extract<GroupMember, { el_type: "group" }>;

async function members(groupId: string, bearer: string, query = "") {
  const res = await call(`/api/group/members/${groupId}${query ? `?${query}` : ""}`, { bearer });
  const body = (await res.json()) as GroupMember[];
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { items: body, next: res.headers.get("x-next-cursor") };
}

const names = (items: GroupMember[]) => items.map((m) => m.el_info.name);

describe("GET /api/group/members/{id}", () => {
  it("answers el_info for assets (main variant, hash, preview) and groups (counts) from one listing", async () => {
    const user = await ordinaryUser("Пётр");
    const g = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "Подпапка", g);
    await createGroup(user, "внутри", sub);
    const withPreview = await insertAsset({
      ownerId: user.id,
      groups: [g, sub],
      name: "а-клип.mp4",
      size: 2048,
      withInitial: true,
      preview: true,
    });
    const bare = await insertAsset({ ownerId: user.id, groups: [g], name: "б-пусто.bin", mime: "application/octet-stream", size: null });
    const initialOnly = await insertAsset({
      ownerId: user.id,
      groups: [g],
      name: "в.wav",
      mime: "audio/wav",
      variantType: "initial",
      size: 7,
    });

    const { items, next } = await members(g, user.bearer);
    expect(next).toBeNull();
    expect(items.map((m) => m.el_type)).toEqual(["group", "asset", "asset", "asset"]);
    const group = items[0] as GroupMemberItem;
    expect(group).toEqual({
      el_id: sub,
      el_type: "group",
      el_info: expect.objectContaining({ name: "Подпапка", owner: user.id, owner_name: "Пётр", groups: 1, assets: 1 }),
    });
    const [a, b, c] = items.slice(1) as AssetMember[];
    expect(a).toEqual({
      el_id: withPreview.id,
      el_type: "asset",
      el_info: {
        name: "а-клип.mp4",
        mimetype: "video/mp4",
        ctime: expect.stringMatching(/Z$/),
        mtime: expect.stringMatching(/Z$/),
        ver: 1,
        var: withPreview.variantId,
        var_size: 2048,
        var_hash: withPreview.sha256,
        owner: user.id,
        owner_name: "Пётр",
        preview: `/api/asset/content/preview/${withPreview.id}/1/thumb`,
        tags: [],
        review_status: null,
        comments: { total: 0, open: 0 },
      },
    });
    expect(b.el_info).toMatchObject({ name: "б-пусто.bin", ver: 0, var: null, var_size: null, var_hash: null, preview: null });
    expect(b.el_id).toBe(bare.id);
    expect(c.el_info).toMatchObject({ var: initialOnly.variantId, var_size: 7 });
  });

  it("answers each member's tags by name, read for the whole page at once", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "С тегом", g);
    const tagged = await insertAsset({ ownerId: user.id, groups: [g], name: "с-тегами.jpg", mime: "image/jpeg", size: 10 });
    await insertAsset({ ownerId: user.id, groups: [g], name: "я-без-тегов.jpg", mime: "image/jpeg", size: 10 });
    const tagIds: string[] = [];
    for (const name of ["Яхта", "архив", "Море"]) {
      const made = await send<{ tag_id: string }>("POST", "/api/tags/create", user.bearer, { tag_name: `${name} ${uniqueName("")}` });
      expect(made.status).toBe(200);
      tagIds.push(made.body.tag_id);
    }
    const attached = await send("POST", "/api/tags/attach", user.bearer, {
      tag_ids: tagIds,
      entities: [
        { id: tagged.id, type: "asset" },
        { id: sub, type: "group" },
      ],
    });
    expect(attached.status).toBeLessThan(300);
    const { items } = await members(g, user.bearer);
    const tagNames = (m: GroupMember) => m.el_info.tags.map((t) => t.tag_name.split(" ")[0]);
    expect(items.map(tagNames)).toEqual([
      ["архив", "Море", "Яхта"],
      ["архив", "Море", "Яхта"],
      [],
    ]);
  });

  it("filters by type, name (case-insensitive, Cyrillic) and MIME prefix", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await createGroup(user, "Видео отпуск", g);
    await insertAsset({ ownerId: user.id, groups: [g], name: "ОТПУСК море.mp4", mime: "video/mp4" });
    await insertAsset({ ownerId: user.id, groups: [g], name: "отпуск.jpg", mime: "image/jpeg" });
    await insertAsset({ ownerId: user.id, groups: [g], name: "работа.mov", mime: "Video/quicktime" });
    expect(names((await members(g, user.bearer, "type=group")).items)).toEqual(["Видео отпуск"]);
    expect(names((await members(g, user.bearer, "type=asset")).items)).toEqual(["ОТПУСК море.mp4", "отпуск.jpg", "работа.mov"]);
    expect(names((await members(g, user.bearer, `q=${encodeURIComponent("Отпуск")}`)).items)).toEqual([
      "Видео отпуск",
      "ОТПУСК море.mp4",
      "отпуск.jpg",
    ]);
    expect(names((await members(g, user.bearer, `mime=${encodeURIComponent("video/")}`)).items)).toEqual(["ОТПУСК море.mp4", "работа.mov"]);
    expect(names((await members(g, user.bearer, "mime=image")).items)).toEqual(["отпуск.jpg"]);
  });

  it("sorts by name, mtime or size in either order, groups always first", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await createGroup(user, "я-папка", g);
    const t = Date.now();
    await insertAsset({ ownerId: user.id, groups: [g], name: "Б", size: 30, mtime: t - 3000 });
    await insertAsset({ ownerId: user.id, groups: [g], name: "а", size: 10, mtime: t - 1000 });
    await insertAsset({ ownerId: user.id, groups: [g], name: "в", size: 20, mtime: t - 2000 });
    expect(names((await members(g, user.bearer)).items)).toEqual(["я-папка", "а", "Б", "в"]);
    expect(names((await members(g, user.bearer, "order=desc")).items)).toEqual(["я-папка", "в", "Б", "а"]);
    expect(names((await members(g, user.bearer, "sort=mtime")).items)).toEqual(["я-папка", "Б", "в", "а"]);
    expect(names((await members(g, user.bearer, "sort=size&order=desc")).items)).toEqual(["я-папка", "Б", "в", "а"]);
    expect(names((await members(g, user.bearer, "sort=size&type=asset")).items)).toEqual(["а", "в", "Б"]);
  });

  it("pages with skip/take across the groups-then-assets boundary, with a cursor header on full pages", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    for (const n of ["г1", "г2", "г3"]) await createGroup(user, n, g);
    for (const n of ["ф1", "ф2", "ф3", "ф4"]) await insertAsset({ ownerId: user.id, groups: [g], name: n });
    const page = async (skip: number, take: number) => names((await members(g, user.bearer, `skip=${skip}&take=${take}`)).items);
    expect(await page(0, 2)).toEqual(["г1", "г2"]);
    expect(await page(2, 2)).toEqual(["г3", "ф1"]);
    expect(await page(3, 2)).toEqual(["ф1", "ф2"]);
    expect(await page(5, 5)).toEqual(["ф3", "ф4"]);
    expect(await page(7, 5)).toEqual([]);
    expect((await members(g, user.bearer, "take=7")).next).toMatch(/^[A-Za-z0-9_-]+$/);
    expect((await members(g, user.bearer, "take=8")).next).toBeNull();
  });

  it("continues from a cursor through the groups into the assets", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    for (const n of ["г1", "г2", "г3"]) await createGroup(user, n, g);
    for (const n of ["ф1", "ф2", "ф3"]) await insertAsset({ ownerId: user.id, groups: [g], name: n });
    const seen: string[] = [];
    let query = "take=2";
    for (;;) {
      const { items, next } = await members(g, user.bearer, query);
      seen.push(...names(items));
      if (!next) break;
      query = `take=2&after=${next}`;
    }
    expect(seen).toEqual(["г1", "г2", "г3", "ф1", "ф2", "ф3"]);
  });

  it("lists the virtual root as the caller's visible top-level groups", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const mine = await createGroup(user, uniqueName());
    const theirs = await createGroup(stranger, uniqueName());
    const ids = (await members(ROOT_GROUP_ID, user.bearer, "take=500")).items.map((m) => m.el_id);
    expect(ids).toEqual([mine]);
    const all = (await members(ROOT_GROUP_ID, (await admin()).bearer, "take=500")).items.map((m) => m.el_id);
    expect(all).toEqual(expect.arrayContaining([mine, theirs]));
  });

  it("hides members the caller may not read, and trashed sub-groups", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const trashed = await createGroup(user, "в корзине", g);
    await send("DELETE", `/api/group/delete/${trashed}`, user.bearer);
    const foreign = await insertAsset({ ownerId: boss.id, groups: [g], name: "чужой" });
    const own = await insertAsset({ ownerId: user.id, groups: [g], name: "свой" });
    expect((await members(g, user.bearer)).items.map((m) => m.el_id)).toEqual([own.id]);
    expect((await members(g, boss.bearer)).items.map((m) => m.el_id)).toEqual([own.id, foreign.id]);
  });

  it.each([
    ["an unknown sort", "sort=weight"],
    ["an unknown order", "order=up"],
    ["an unknown type", "type=user"],
    ["a negative skip", "skip=-5"],
    ["a fractional skip", "skip=2.5"],
    ["a skip that is no number", "skip=ten"],
    ["take 0", "take=0"],
    ["take 501", "take=501"],
    ["a malformed cursor", "after=%%%"],
    ["a garbage cursor", "after=bm90LWEtY3Vyc29y"],
    ["a malformed MIME prefix", "mime=%2Fvideo"],
    ["a control character in q", "q=%07"],
  ])("answers 400 for %s", async (_what, query) => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await expectError(await call(`/api/group/members/${g}?${query}`, { bearer: user.bearer }), 400);
  });

  it("answers an empty page for a skip past the end, however far (issue 17: not an error)", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await insertAsset({ ownerId: user.id, groups: [g], name: "один" });
    for (const skip of ["1", "1e12", String(Number.MAX_SAFE_INTEGER)]) {
      const res = await call(`/api/group/members/${g}?skip=${skip}`, { bearer: user.bearer });
      expect(res.status, skip).toBe(200);
      expect(await res.json()).toEqual([]);
    }
  });

  it("answers 400 for a cursor of another sort or combined with skip", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const cursor = encodeCursor({ s: "name", o: "asc", t: "asset", k: "x", i: "0".repeat(32) });
    const other = await call(`/api/group/members/${g}?sort=mtime&after=${cursor}`, { bearer: user.bearer });
    expect((await expectError(other, 400)).message).toBe(ru.groups.cursorMismatch);
    const groupsOnly = await call(`/api/group/members/${g}?type=group&after=${cursor}`, { bearer: user.bearer });
    expect((await expectError(groupsOnly, 400)).message).toBe(ru.groups.cursorMismatch);
    const withSkip = await call(`/api/group/members/${g}?skip=5&after=${cursor}`, { bearer: user.bearer });
    expect((await expectError(withSkip, 400)).message).toBe(ru.groups.skipWithCursor);
  });

  it("answers 404 for unknown and trashed groups and for another user's group", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    await insertAsset({ ownerId: owner.id, groups: [g] });
    await expectError(await call(`/api/group/members/${g}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/members/${"4".repeat(32)}`, { bearer: owner.bearer }), 404);
    await send("DELETE", `/api/group/delete/${g}`, owner.bearer);
    await expectError(await call(`/api/group/members/${g}`, { bearer: owner.bearer }), 404);
    await expectError(await call(`/api/group/members/${g}`), 401);
  });
});

describe("GET /api/group/dir/{id}", () => {
  it("answers directory entries: groups then assets, by name, paged", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "папка", g);
    const asset = await insertAsset({ ownerId: user.id, groups: [g], name: "Клип.mp4", size: 512 });
    await insertAsset({ ownerId: user.id, groups: [g], name: "Другой.mp4" });
    const entries = await getJson<DirectoryEntry[]>(`/api/group/dir/${g}`, user.bearer);
    expect(entries.map((e) => [e.type, e.name])).toEqual([
      ["group", "папка"],
      ["asset", "Другой.mp4"],
      ["asset", "Клип.mp4"],
    ]);
    expect(entries[0]).toMatchObject({ id: sub, mime: null, size: null, ver: null });
    expect(entries[2]).toMatchObject({ id: asset.id, mime: "video/mp4", size: 512, ver: 1, var: asset.variantId, var_hash: asset.sha256 });
    expect(entries[2].atime).toMatch(/Z$/);
    expect((await getJson<DirectoryEntry[]>(`/api/group/dir/${g}?skip=1&take=1`, user.bearer)).map((e) => e.name)).toEqual(["Другой.mp4"]);
    expect(await getJson<DirectoryEntry[]>(`/api/group/dir/${g}?skip=3`, user.bearer)).toEqual([]);
  });

  it("answers 404 to another user and 400 for bad paging", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    await expectError(await call(`/api/group/dir/${g}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/dir/${g}?take=-1`, { bearer: owner.bearer }), 400);
  });
});

describe("GET /api/group/preview-list/{id}", () => {
  it("answers the base URL and the thumbnail reference of each asset of the page", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    await createGroup(user, "папки не в списке", g);
    const a = await insertAsset({ ownerId: user.id, groups: [g], name: "a", preview: true });
    const b = await insertAsset({ ownerId: user.id, groups: [g], name: "b" });
    const list = await getJson<{ base_url: string; list: { el_id: string; preview: string | null }[] }>(
      `/api/group/preview-list/${g}`,
      user.bearer,
    );
    expect(list).toEqual({
      base_url: ORIGIN,
      list: [
        { el_id: a.id, preview: `/api/asset/content/preview/${a.id}/1/thumb` },
        { el_id: b.id, preview: null },
      ],
    });
    expect((await getJson<{ list: unknown[] }>(`/api/group/preview-list/${g}?skip=1&take=1`, user.bearer)).list).toHaveLength(1);
  });

  it("answers 404 to another user", async () => {
    const owner = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    await expectError(await call(`/api/group/preview-list/${g}`, { bearer: (await ordinaryUser()).bearer }), 404);
  });
});

describe("GET /api/group/subtree/{id}", () => {
  it("answers the tree of live sub-groups, ordered by name", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const b = await createGroup(user, "Б", top);
    const a = await createGroup(user, "а", top);
    const inner = await createGroup(user, "внутри", a);
    const gone = await createGroup(user, "удалённая", b);
    await send("DELETE", `/api/group/delete/${gone}`, user.bearer);
    const tree = await getJson<{
      element_id: string;
      isRoot: boolean;
      subGroups: { element_id: string; group_id: string; subGroups: { element_id: string }[] }[];
    }>(`/api/group/subtree/${top}`, user.bearer);
    expect(tree).toMatchObject({ element_id: top, isRoot: true, group_id: ROOT_GROUP_ID });
    expect(tree.subGroups.map((g) => g.element_id)).toEqual([a, b]);
    expect(tree.subGroups[0]).toMatchObject({ group_id: top, subGroups: [{ element_id: inner }] });
    expect(tree.subGroups[1].subGroups).toEqual([]);
  });

  it("an administrator's cached tree of folders follows every change of shape, name and trash state below (tree version)", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const a = await createGroup(user, "а", top);
    const b = await createGroup(user, "б", top);
    const inner = await createGroup(user, "внутри", a);
    // The owner's tree is built afresh on every request (filtered trees are not cached): the reference.
    const fresh = () => getJson(`/api/group/subtree/${top}?assets=false`, user.bearer);
    const cached = () => getJson(`/api/group/subtree/${top}?assets=false`, boss.bearer);
    const seen: string[] = [];
    const check = async () => {
      const tree = await cached();
      expect(tree).toEqual(await fresh());
      expect(await cached()).toEqual(tree); // answered again from the cache, unchanged
      seen.push(JSON.stringify(tree));
    };
    await check();
    const changes: (() => Promise<unknown>)[] = [
      () => send("PATCH", `/api/group/update/${inner}`, user.bearer, { group_name: "переименована" }),
      () => send("POST", `/api/group/move-member/${inner}/${a}/${b}`, user.bearer),
      () => createGroup(user, "новая", inner),
      () => send("DELETE", `/api/group/delete/${b}`, user.bearer),
      () => send("POST", `/api/group/restore/${b}`, user.bearer),
    ];
    for (const change of changes) {
      const res = (await change()) as { status?: number } | string;
      if (typeof res !== "string") expect([200, 204]).toContain(res.status);
      await check();
    }
    // Every change showed: no two consecutive answers were the same tree.
    for (let i = 1; i < seen.length; i++) expect(seen[i], `change ${i}`).not.toBe(seen[i - 1]);
  });

  it("carries each folder's files by name and isOpen (issue 29); files that change show at once, even for an administrator", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "под", top);
    const b = await insertAsset({ ownerId: user.id, groups: [top], name: "б.png" });
    const a = await insertAsset({ ownerId: user.id, groups: [top, sub], name: "А.png", withInitial: true, size: 5 });
    type Node = { isOpen: boolean; assets: { asset_id: string; name: string; mimetype: string; ver: number }[]; assets_more: boolean; assets_cap?: unknown; subGroups: Node[] };
    const tree = await getJson<Node>(`/api/group/subtree/${top}`, user.bearer);
    expect(tree).toMatchObject({ isOpen: true, assets_more: false, assets_cap: { per_folder: 50, total: 2000 } });
    expect(tree.assets.map((x) => x.asset_id)).toEqual([a.id, b.id]);
    expect(tree.assets[0]).toEqual({ asset_id: a.id, name: "А.png", mimetype: expect.any(String), ver: expect.any(Number) });
    expect(tree.subGroups[0]).toMatchObject({ isOpen: false, assets_more: false, assets: [{ asset_id: a.id }] });
    expect(tree.subGroups[0].assets_cap).toBeUndefined();
    // Files do not change the tree version: the administrator's tree with files is never answered from the cache.
    expect((await getJson<Node>(`/api/group/subtree/${top}`, boss.bearer)).assets).toHaveLength(2);
    await send("DELETE", `/api/asset/${b.id}`, user.bearer);
    expect((await getJson<Node>(`/api/group/subtree/${top}`, boss.bearer)).assets.map((x) => x.asset_id)).toEqual([a.id]);
    // assets=false: folders only.
    expect(await getJson(`/api/group/subtree/${top}?assets=false`, user.bearer)).not.toHaveProperty("assets");
  });

  it("lists 50 files per folder at most and says there are more; only files the caller may read", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    for (let i = 0; i < 51; i++) await insertAsset({ ownerId: user.id, groups: [top], name: `файл-${String(i).padStart(2, "0")}.png` });
    const hidden = await insertAsset({ ownerId: stranger.id, groups: [top], name: "ааа-чужой.png" });
    const tree = await getJson<{ assets: { asset_id: string; name: string }[]; assets_more: boolean }>(`/api/group/subtree/${top}`, user.bearer);
    expect(tree.assets).toHaveLength(50);
    expect(tree.assets_more).toBe(true);
    expect(tree.assets[0].name).toBe("файл-00.png");
    expect(tree.assets.map((x) => x.asset_id)).not.toContain(hidden.id);
    await expectError(await call(`/api/group/subtree/${top}?assets=maybe`, { bearer: user.bearer }), 400);
  });

  it("from the virtual root shows only what the caller sees", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const mine = await createGroup(user, uniqueName());
    await createGroup(stranger, uniqueName());
    const tree = await getJson<{ subGroups: { element_id: string }[] }>(`/api/group/subtree/${ROOT_GROUP_ID}`, user.bearer);
    expect(tree.subGroups.map((g) => g.element_id)).toEqual([mine]);
  });

  it("answers 404 to another user and for a trashed group", async () => {
    const owner = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    await expectError(await call(`/api/group/subtree/${g}`, { bearer: (await ordinaryUser()).bearer }), 404);
    await send("DELETE", `/api/group/delete/${g}`, owner.bearer);
    await expectError(await call(`/api/group/subtree/${g}`, { bearer: owner.bearer }), 404);
  });
});

describe("POST /api/group/insert-members/{id} and its variants", () => {
  it("lists assets with sort keys copied from the asset; inserting again changes nothing", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const asset = await insertAsset({ ownerId: user.id, name: "Съёмка ЁЖ.mp4", size: 4096, mtime: 1_700_000_000_000 });
    const res = await send("POST", `/api/group/insert-members/${g}`, user.bearer, { members: [{ el_id: asset.id, el_type: "asset" }] });
    expect(res.status).toBe(204);
    const row = await env.DB.prepare("SELECT el_type, sort_name, el_mtime, el_size FROM group_members WHERE group_id = ? AND el_id = ?")
      .bind(g, asset.id)
      .first();
    expect(row).toEqual({ el_type: "asset", sort_name: "съёмка ёж.mp4", el_mtime: 1_700_000_000_000, el_size: 4096 });
    const before = await librarySnapshot();
    expect(
      (await send("POST", `/api/group/insert-members/${g}`, user.bearer, { members: [{ el_id: asset.id, el_type: "asset" }] })).status,
    ).toBe(204);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("insert-member-return-where answers where each member is; insert-members-return-group answers the group", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const [a, b] = [await insertAsset({ ownerId: user.id }), await insertAsset({ ownerId: user.id })];
    const where = await send("POST", `/api/group/insert-member-return-where/${g}`, user.bearer, {
      members: [
        { el_id: a.id, el_type: "asset" },
        { el_id: b.id, el_type: "asset" },
      ],
    });
    expect(where).toMatchObject({
      status: 200,
      body: [
        { el_id: a.id, group_id: g },
        { el_id: b.id, group_id: g },
      ],
    });
    const c = await insertAsset({ ownerId: user.id });
    const group = await send<Group>("POST", `/api/group/insert-members-return-group/${g}`, user.bearer, {
      members: [{ el_id: c.id, el_type: "asset" }],
    });
    expect(group.status).toBe(200);
    expect(group.body.group_id).toBe(g);
    expect(Object.keys(await membersOf(g)).sort()).toEqual([a.id, b.id, c.id].sort());
  });

  it("lets administrators add users; others get 403", async () => {
    const boss = await admin();
    const user = await ordinaryUser("Участник");
    const team = await createGroup(boss, uniqueName());
    expect(
      (await send("POST", `/api/group/insert-members/${team}`, boss.bearer, { members: [{ el_id: user.id, el_type: "user" }] })).status,
    ).toBe(204);
    expect(await membersOf(team)).toEqual({ [user.id]: "user" });
    const own = await createGroup(user, uniqueName());
    const before = await librarySnapshot();
    const res = await send("POST", `/api/group/insert-members/${own}`, user.bearer, { members: [{ el_id: user.id, el_type: "user" }] });
    expect(res).toMatchObject({ status: 403, body: { message: ru.groups.usersAdminOnly } });
    const unknownUser = await send("POST", `/api/group/insert-members/${team}`, boss.bearer, {
      members: [{ el_id: "5".repeat(32), el_type: "user" }],
    });
    expect(unknownUser.status).toBe(404);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("refuses groups (400), unknown or unreadable assets (404) and the virtual root (400), all or nothing", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "подпапка", g);
    const mine = await insertAsset({ ownerId: user.id });
    const theirs = await insertAsset({ ownerId: stranger.id });
    const trashedAsset = await insertAsset({ ownerId: user.id });
    await env.DB.prepare("UPDATE assets SET deleted_at = ? WHERE id = ?").bind(Date.now(), trashedAsset.id).run();
    const before = await librarySnapshot();
    const tryInsert = (target: string, list: { el_id: string; el_type: string }[]) =>
      send("POST", `/api/group/insert-members/${target}`, user.bearer, { members: list });
    expect(await tryInsert(g, [{ el_id: sub, el_type: "group" }])).toMatchObject({
      status: 400,
      body: { message: ru.groups.groupsByMove },
    });
    const unknown = [
      { el_id: mine.id, el_type: "asset" },
      { el_id: "6".repeat(32), el_type: "asset" },
    ];
    expect(await tryInsert(g, unknown)).toMatchObject({ status: 404, body: { message: ru.assets.notFound } });
    expect(
      (
        await tryInsert(g, [
          { el_id: mine.id, el_type: "asset" },
          { el_id: theirs.id, el_type: "asset" },
        ])
      ).status,
    ).toBe(404);
    expect((await tryInsert(g, [{ el_id: trashedAsset.id, el_type: "asset" }])).status).toBe(404);
    expect(await tryInsert(ROOT_GROUP_ID, [{ el_id: mine.id, el_type: "asset" }])).toMatchObject({
      status: 400,
      body: { message: ru.groups.rootHoldsGroups },
    });
    expect((await tryInsert(g, [])).status).toBe(400);
    expect((await tryInsert(g, [{ el_id: "bad", el_type: "asset" }])).status).toBe(400);
    expect(
      (
        await tryInsert(
          g,
          Array.from({ length: 501 }, () => ({ el_id: mine.id, el_type: "asset" })),
        )
      ).status,
    ).toBe(400);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("security: another user cannot insert into my group (404), even their own asset; nothing changes", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    const theirs = await insertAsset({ ownerId: stranger.id });
    const before = await librarySnapshot();
    for (const path of ["insert-members", "insert-member-return-where", "insert-members-return-group"]) {
      const res = await call(`/api/group/${path}/${g}`, {
        method: "POST",
        bearer: stranger.bearer,
        json: { members: [{ el_id: theirs.id, el_type: "asset" }] },
      });
      await expectError(res, 404);
    }
    expect(await librarySnapshot()).toEqual(before);
  });
});

describe("DELETE /api/group/delete-members/{id}", () => {
  it("removes asset memberships (the assets stay)", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const [a, b, c] = [
      await insertAsset({ ownerId: user.id, groups: [g] }),
      await insertAsset({ ownerId: user.id, groups: [g] }),
      await insertAsset({ ownerId: user.id, groups: [g] }),
    ];
    const res = await send("DELETE", `/api/group/delete-members/${g}?ids=${a.id},${b.id}`, user.bearer);
    expect(res.status).toBe(204);
    expect(Object.keys(await membersOf(g))).toEqual([c.id]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM assets WHERE id IN (?, ?)").bind(a.id, b.id).first()).toEqual({ n: 2 });
  });

  it("refuses groups (400) and malformed id lists (400) without changing anything", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const sub = await createGroup(user, "подпапка", g);
    const a = await insertAsset({ ownerId: user.id, groups: [g] });
    const before = await librarySnapshot();
    expect(await send("DELETE", `/api/group/delete-members/${g}?ids=${a.id},${sub}`, user.bearer)).toMatchObject({
      status: 400,
      body: { message: ru.groups.groupsByDelete },
    });
    for (const query of ["", "ids=", `ids=${a.id},`, "ids=xyz", `ids=${a.id};${a.id}`]) {
      await expectError(await call(`/api/group/delete-members/${g}?${query}`, { method: "DELETE", bearer: user.bearer }), 400);
    }
    expect(await librarySnapshot()).toEqual(before);
  });

  it("security: another user gets 404 and nothing changes", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    const a = await insertAsset({ ownerId: owner.id, groups: [g] });
    const before = await librarySnapshot();
    await expectError(await call(`/api/group/delete-members/${g}?ids=${a.id}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    expect(await librarySnapshot()).toEqual(before);
  });
});

describe("POST /api/group/entity-by-path/{root}", () => {
  it("resolves groups and a final asset name by name, case-insensitively, preferring the exact case", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const year = await createGroup(user, "2026", top);
    const shoot = await createGroup(user, "Съёмки Лето", year);
    const clip = await insertAsset({ ownerId: user.id, groups: [shoot], name: "Клип 🎬.mp4" });
    const resolve = (root: string, path: string) => send("POST", `/api/group/entity-by-path/${root}`, user.bearer, { path });
    expect((await resolve(top, "2026/Съёмки Лето")).body).toEqual({ el_id: shoot, el_type: "group" });
    expect((await resolve(top, "2026/съёмки лето/КЛИП 🎬.mp4")).body).toEqual({ el_id: clip.id, el_type: "asset" });
    const topName = (await getJson<Group>(`/api/group/get/${top}`, user.bearer)).group_name;
    expect((await resolve(ROOT_GROUP_ID, `${topName}/2026`)).body).toEqual({ el_id: year, el_type: "group" });
  });

  it("answers 404 for a missing name and 400 for malformed paths", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    await createGroup(user, "a", top);
    const missing = await send("POST", `/api/group/entity-by-path/${top}`, user.bearer, { path: "a/нет" });
    expect(missing).toMatchObject({ status: 404, body: { message: ru.groups.pathNotFound } });
    for (const path of ["", "a//b", "a/../b", "/a", "a/\u0000", 5]) {
      await expectError(await call(`/api/group/entity-by-path/${top}`, { method: "POST", bearer: user.bearer, json: { path } }), 400);
    }
  });

  it("security: another user's group as root is 404, and their groups are never resolved from the virtual root", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const name = uniqueName();
    const top = await createGroup(owner, name);
    await createGroup(owner, "внутри", top);
    await expectError(
      await call(`/api/group/entity-by-path/${top}`, { method: "POST", bearer: stranger.bearer, json: { path: "внутри" } }),
      404,
    );
    const fromRoot = await call(`/api/group/entity-by-path/${ROOT_GROUP_ID}`, {
      method: "POST",
      bearer: stranger.bearer,
      json: { path: `${name}/внутри` },
    });
    await expectError(fromRoot, 404);
  });
});

describe("POST /api/group/group-size", () => {
  it("answers bytes of all ready variants, distinct assets and sub-groups of each subtree", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const a = await createGroup(user, "a", top);
    const b = await createGroup(user, "b", a);
    const trashed = await createGroup(user, "в корзине", top);
    await insertAsset({ ownerId: user.id, groups: [top, b], size: 100 });
    await insertAsset({ ownerId: user.id, groups: [b], size: 10, withInitial: true });
    await insertAsset({ ownerId: user.id, groups: [trashed], size: 5000 });
    await send("DELETE", `/api/group/delete/${trashed}`, user.bearer);
    const res = await send<{ group_id: string; bytes: number; assets: number; groups: number }[]>(
      "POST",
      "/api/group/group-size",
      user.bearer,
      { ids: [top, b] },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { group_id: top, bytes: 100 + 10 + 11, assets: 2, groups: 2 },
      { group_id: b, bytes: 121, assets: 2, groups: 0 },
    ]);
  });

  it("answers 404 when any group is not the caller's, 400 for bad lists", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    const own = await createGroup(stranger, uniqueName());
    await expectError(await call("/api/group/group-size", { method: "POST", bearer: stranger.bearer, json: { ids: [own, g] } }), 404);
    await expectError(await call("/api/group/group-size", { method: "POST", bearer: stranger.bearer, json: { ids: [] } }), 400);
    await expectError(await call("/api/group/group-size", { method: "POST", bearer: stranger.bearer, json: { ids: ["x"] } }), 400);
  });
});
