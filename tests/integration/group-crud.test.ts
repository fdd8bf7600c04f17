import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { MAX_GROUP_DEPTH } from "../../workers/services/library/group-tree";
import type { Group } from "../../workers/services/library/group.service";
import { call, expectError } from "./factories";
import {
  admin,
  createGroup,
  DEFAULT_STORAGE,
  getJson,
  groupRow,
  insertAssetClass,
  insertStorage,
  insertTag,
  librarySnapshot,
  ordinaryUser,
  ROOT_GROUP_ID,
  send,
  throughShards,
  uniqueName,
} from "./library-factories";

// Create, read, rename and configure groups; the virtual root; roots, acl-roots, search, storage, groups-with-users.

const BAD_NAMES: [string, unknown][] = [
  ["empty", ""],
  ["10,000 characters", "я".repeat(10_000)],
  ["a slash", "a/b"],
  ["'..'", ".."],
  ["'.'", "."],
  ["NUL", "a\u0000b"],
  ["a control character", "a\u0007b"],
  ["a newline", "a\nb"],
  ["surrounding spaces", " Папка "],
  ["a number", 42],
  ["null", null],
];

async function closureOf(id: string) {
  const { results } = await env.DB.prepare("SELECT ancestor, depth FROM group_closure WHERE descendant = ? ORDER BY depth")
    .bind(id)
    .all<{ ancestor: string; depth: number }>();
  return results;
}

describe("POST /api/group/create", () => {
  it("creates a top-level group with its closure rows and its membership in the virtual root", async () => {
    const user = await ordinaryUser();
    const name = `Съёмки 🎬 ${uniqueName()}`;
    const id = await createGroup(user, name);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await groupRow(id)).toMatchObject({ name, parent_id: ROOT_GROUP_ID, owner_id: user.id, deleted_at: null });
    expect(await closureOf(id)).toEqual([
      { ancestor: id, depth: 0 },
      { ancestor: ROOT_GROUP_ID, depth: 1 },
    ]);
    const member = await env.DB.prepare("SELECT el_type, sort_name, trashed_at FROM group_members WHERE group_id = ? AND el_id = ?")
      .bind(ROOT_GROUP_ID, id)
      .first();
    expect(member).toEqual({ el_type: "group", sort_name: name.toLowerCase(), trashed_at: null });
  });

  it("creates nested groups whose names round-trip exactly (Cyrillic, emoji, mixed case)", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const names = ["Ёлка ЁЖ", "🎥🎞️ Кадры", "日本語 テスト", "Ünïcödé — «кавычки»"];
    for (const name of names) {
      const id = await createGroup(user, name, top);
      const group = await getJson<Group>(`/api/group/get/${id}`, user.bearer);
      expect(group.group_name).toBe(name);
      expect(group.parent).toBe(top);
      expect((await closureOf(id)).map((r) => r.ancestor)).toEqual([id, top, ROOT_GROUP_ID]);
    }
  });

  it("stores the default storage and class", async () => {
    const user = await ordinaryUser();
    const storage = await insertStorage();
    const klass = await insertAssetClass();
    const id = await createGroup(user, uniqueName(), ROOT_GROUP_ID, { default_storage: storage, default_class: klass });
    const group = await getJson<Group>(`/api/group/get/${id}`, user.bearer);
    expect(group).toMatchObject({ group_default_storage: storage, group_default_class: klass });
  });

  it("answers 409 for a sibling with the same name in any case, and allows it elsewhere or once the sibling is trashed", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const first = await createGroup(user, "Съёмки", top);
    const before = await librarySnapshot();
    const clash = await send("POST", "/api/group/create", user.bearer, { parent: top, group_name: "СЪЁМКИ" });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe(ru.groups.nameTaken("СЪЁМКИ"));
    expect(await librarySnapshot()).toEqual(before);

    const other = await createGroup(user, uniqueName(), ROOT_GROUP_ID);
    await createGroup(user, "Съёмки", other);
    expect((await send("DELETE", `/api/group/delete/${first}`, user.bearer)).status).toBe(204);
    await createGroup(user, "съёмки", top);
  });

  it("answers 404 for a parent that does not exist or is in the trash", async () => {
    const user = await ordinaryUser();
    const missing = await call("/api/group/create", {
      method: "POST",
      bearer: user.bearer,
      json: { parent: "0".repeat(32), group_name: "x" },
    });
    expect((await expectError(missing, 404)).message).toBe(ru.groups.notFound);
    const trashed = await createGroup(user, uniqueName());
    await send("DELETE", `/api/group/delete/${trashed}`, user.bearer);
    await expectError(
      await call("/api/group/create", { method: "POST", bearer: user.bearer, json: { parent: trashed, group_name: "x" } }),
      404,
    );
  });

  it.each(BAD_NAMES)("answers 400 for a name with %s and writes nothing", async (_what, name) => {
    const user = await ordinaryUser();
    const before = await librarySnapshot();
    const res = await call("/api/group/create", { method: "POST", bearer: user.bearer, json: { parent: ROOT_GROUP_ID, group_name: name } });
    expect((await expectError(res, 400)).message).toMatch(/group_name/);
    expect(await librarySnapshot()).toEqual(before);
  });

  it.each([
    ["a parent id of the wrong shape", { parent: "FFFF", group_name: "x" }],
    ["an upper-case parent id", { parent: "F".repeat(32), group_name: "x" }],
    ["no parent", { group_name: "x" }],
    ["no name", { parent: ROOT_GROUP_ID }],
    ["a storage id of the wrong shape", { parent: ROOT_GROUP_ID, group_name: "x", default_storage: "r2" }],
    ["an array body", [1, 2]],
  ])("answers 400 for %s", async (_what, json) => {
    const user = await ordinaryUser();
    await expectError(await call("/api/group/create", { method: "POST", bearer: user.bearer, json }), 400);
  });

  it("answers 400 for an unknown storage or class, and for malformed JSON", async () => {
    const user = await ordinaryUser();
    const storage = await send("POST", "/api/group/create", user.bearer, {
      parent: ROOT_GROUP_ID,
      group_name: "x",
      default_storage: "1".repeat(32),
    });
    expect(storage).toMatchObject({ status: 400, body: { message: ru.groups.unknownStorage } });
    const klass = await send("POST", "/api/group/create", user.bearer, {
      parent: ROOT_GROUP_ID,
      group_name: "x",
      default_class: "1".repeat(32),
    });
    expect(klass).toMatchObject({ status: 400, body: { message: ru.groups.unknownClass } });
    const malformed = await call("/api/group/create", {
      method: "POST",
      bearer: user.bearer,
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    await expectError(malformed, 400);
  });

  it(`refuses to nest deeper than ${MAX_GROUP_DEPTH} levels (409)`, async () => {
    const user = await ordinaryUser();
    let parent = ROOT_GROUP_ID;
    for (let level = 1; level <= MAX_GROUP_DEPTH; level++)
      parent = await createGroup(user, level === 1 ? uniqueName() : `L${level}`, parent);
    const res = await send("POST", "/api/group/create", user.bearer, { parent, group_name: "один лишний" });
    expect(res).toMatchObject({ status: 409, body: { message: ru.groups.tooDeep(MAX_GROUP_DEPTH) } });
  });

  it("security: another user cannot create inside my group (404) and nothing changes; no token is 401", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const top = await createGroup(owner, uniqueName());
    const before = await librarySnapshot();
    const res = await call("/api/group/create", { method: "POST", bearer: stranger.bearer, json: { parent: top, group_name: "чужая" } });
    expect((await expectError(res, 404)).message).toBe(ru.groups.notFound);
    await expectError(await call("/api/group/create", { method: "POST", json: { parent: top, group_name: "x" } }), 401);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("lets an administrator create inside anyone's group", async () => {
    const owner = await ordinaryUser();
    const top = await createGroup(owner, uniqueName());
    const boss = await admin();
    const id = await createGroup(boss, "от администратора", top);
    expect((await groupRow(id))?.owner_id).toBe(boss.id);
  });
});

describe("GET /api/group/get/{id}", () => {
  it("answers the group with owner, tags and the path from the virtual root", async () => {
    const user = await ordinaryUser("Мария");
    const top = await createGroup(user, uniqueName());
    const child = await createGroup(user, "Дочерняя", top);
    const tag = await insertTag("Интервью");
    await send("PATCH", `/api/group/update/${child}`, user.bearer, { tags: [tag] });
    const group = await getJson<Group>(`/api/group/get/${child}`, user.bearer);
    expect(group).toMatchObject({
      group_id: child,
      group_name: "Дочерняя",
      group_owner: user.id,
      owner_name: "Мария",
      group_default_storage: null,
      group_default_class: null,
      group_tags: [{ tag_id: tag, tag_name: "Интервью" }],
      parent: top,
      deleted_at: null,
    });
    expect(group.path.map((p) => p.group_id)).toEqual([ROOT_GROUP_ID, top, child]);
    expect(group.path[0].group_name).toBe(ru.app.rootGroupName);
    expect(new Date(group.ctime!).toISOString()).toBe(group.ctime);
  });

  it("answers the virtual root as 'Доступные Файлы'", async () => {
    const user = await ordinaryUser();
    const root = await getJson<Group>(`/api/group/get/${ROOT_GROUP_ID}`, user.bearer);
    expect(root).toMatchObject({ group_id: ROOT_GROUP_ID, group_name: "Доступные Файлы", parent: null, group_owner: null });
    expect(root.path).toEqual([{ group_id: ROOT_GROUP_ID, group_name: "Доступные Файлы" }]);
  });

  it("answers a trashed group with deleted_at to its owner", async () => {
    const user = await ordinaryUser();
    const id = await createGroup(user, uniqueName());
    await send("DELETE", `/api/group/delete/${id}`, user.bearer);
    const group = await getJson<Group>(`/api/group/get/${id}`, user.bearer);
    expect(group.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("leaves ancestors the caller may not read out of the path", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const top = await createGroup(boss, uniqueName("Админская"));
    const mine = await createGroup(boss, "Моя", top);
    await throughShards(() => env.DB.prepare("UPDATE groups SET owner_id = ? WHERE id = ?").bind(user.id, mine).run());
    const group = await getJson<Group>(`/api/group/get/${mine}`, user.bearer);
    expect(group.path.map((p) => p.group_id)).toEqual([ROOT_GROUP_ID, mine]);
    expect((await getJson<Group>(`/api/group/get/${mine}`, boss.bearer)).path.map((p) => p.group_id)).toEqual([ROOT_GROUP_ID, top, mine]);
  });

  it("answers 404 for an unknown id, 400 for a malformed one", async () => {
    const user = await ordinaryUser();
    expect((await expectError(await call(`/api/group/get/${"1".repeat(32)}`, { bearer: user.bearer }), 404)).message).toBe(
      ru.groups.notFound,
    );
    await expectError(await call("/api/group/get/not-an-id", { bearer: user.bearer }), 400);
    await expectError(await call(`/api/group/get/${"1".repeat(33)}`, { bearer: user.bearer }), 400);
  });

  it("security: another user gets 404 (the group's existence does not leak); an administrator reads it", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const id = await createGroup(owner, uniqueName());
    const res = await call(`/api/group/get/${id}`, { bearer: stranger.bearer });
    expect((await expectError(res, 404)).message).toBe(ru.groups.notFound);
    await getJson(`/api/group/get/${id}`, (await admin()).bearer);
    await expectError(await call(`/api/group/get/${id}`), 401);
  });
});

describe("PATCH /api/group/update/{id}", () => {
  it("renames a group and its membership's sort key, and answers the group", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const id = await createGroup(user, "Старое", top);
    const res = await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { group_name: "НОВОЕ Имя 🎬" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ group_id: id, group_name: "НОВОЕ Имя 🎬" });
    const member = await env.DB.prepare("SELECT sort_name FROM group_members WHERE group_id = ? AND el_id = ?").bind(top, id).first();
    expect(member).toEqual({ sort_name: "новое имя 🎬" });
  });

  it("allows changing only the case of the name, and refuses a sibling's name (409)", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const a = await createGroup(user, "альфа", top);
    await createGroup(user, "бета", top);
    expect((await send("PATCH", `/api/group/update/${a}`, user.bearer, { group_name: "Альфа" })).status).toBe(200);
    const before = await librarySnapshot();
    const clash = await send("PATCH", `/api/group/update/${a}`, user.bearer, { group_name: "БЕТА" });
    expect(clash).toMatchObject({ status: 409, body: { message: ru.groups.nameTaken("БЕТА") } });
    expect(await librarySnapshot()).toEqual(before);
  });

  it("replaces tags, and refuses unknown tag ids (400) without changing anything", async () => {
    const user = await ordinaryUser();
    const id = await createGroup(user, uniqueName());
    const [t1, t2] = [await insertTag(), await insertTag()];
    expect((await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { tags: [t1, t2, t1] })).body.group_tags).toHaveLength(2);
    expect(
      (await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { tags: [t2] })).body.group_tags.map((t) => t.tag_id),
    ).toEqual([t2]);
    const before = await librarySnapshot();
    const unknown = "7".repeat(32);
    const res = await send("PATCH", `/api/group/update/${id}`, user.bearer, { tags: [t1, unknown], group_name: "не применится" });
    expect(res).toMatchObject({ status: 400, body: { message: ru.groups.unknownTag(unknown) } });
    expect(await librarySnapshot()).toEqual(before);
    expect((await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { tags: [] })).body.group_tags).toEqual([]);
  });

  it("sets and clears the default storage and class", async () => {
    const user = await ordinaryUser();
    const id = await createGroup(user, uniqueName());
    const storage = await insertStorage();
    const klass = await insertAssetClass();
    const set = await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { default_storage: storage, default_class: klass });
    expect(set.body).toMatchObject({ group_default_storage: storage, group_default_class: klass });
    const cleared = await send<Group>("PATCH", `/api/group/update/${id}`, user.bearer, { default_storage: null });
    expect(cleared.body).toMatchObject({ group_default_storage: null, group_default_class: klass });
    expect((await send("PATCH", `/api/group/update/${id}`, user.bearer, { default_storage: "9".repeat(32) })).status).toBe(400);
  });

  it.each(BAD_NAMES)("answers 400 for a new name with %s", async (_what, name) => {
    const user = await ordinaryUser();
    const id = await createGroup(user, uniqueName());
    await expectError(await call(`/api/group/update/${id}`, { method: "PATCH", bearer: user.bearer, json: { group_name: name } }), 400);
  });

  it("never renames the virtual root (400)", async () => {
    const boss = await admin();
    const res = await send("PATCH", `/api/group/update/${ROOT_GROUP_ID}`, boss.bearer, { group_name: "Другое" });
    expect(res).toMatchObject({ status: 400, body: { message: ru.groups.rootImmutable } });
    expect((await groupRow(ROOT_GROUP_ID))?.name).toBe("Доступные Файлы");
  });

  it("answers 404 for an unknown or trashed group", async () => {
    const user = await ordinaryUser();
    expect((await send("PATCH", `/api/group/update/${"2".repeat(32)}`, user.bearer, { group_name: "x" })).status).toBe(404);
    const id = await createGroup(user, uniqueName());
    await send("DELETE", `/api/group/delete/${id}`, user.bearer);
    expect((await send("PATCH", `/api/group/update/${id}`, user.bearer, { group_name: "x" })).status).toBe(404);
  });

  it("security: another user gets 404 and nothing changes", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const id = await createGroup(owner, uniqueName());
    const tag = await insertTag();
    const before = await librarySnapshot();
    const res = await call(`/api/group/update/${id}`, {
      method: "PATCH",
      bearer: stranger.bearer,
      json: { group_name: "взлом", tags: [tag] },
    });
    await expectError(res, 404);
    expect(await librarySnapshot()).toEqual(before);
  });
});

describe("GET /api/group/roots and /api/group/acl-roots", () => {
  it("lists the caller's top-level groups by name; administrators see everyone's", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const b = await createGroup(user, `Б ${uniqueName()}`);
    const a = await createGroup(user, `а ${uniqueName()}`);
    await createGroup(user, "вложенная", a);
    const foreign = await createGroup(stranger, uniqueName());
    const trashed = await createGroup(user, uniqueName());
    await send("DELETE", `/api/group/delete/${trashed}`, user.bearer);

    const mine = await getJson<{ group_id: string; members: number; owner_name: string }[]>("/api/group/roots", user.bearer);
    expect(mine.map((g) => g.group_id)).toEqual([a, b]);
    expect(mine[0]).toMatchObject({ members: 1, owner_name: user.name });
    const all = await getJson<{ group_id: string }[]>("/api/group/roots?take=500", (await admin()).bearer);
    expect(all.map((g) => g.group_id)).toEqual(expect.arrayContaining([a, b, foreign]));
    expect(all.map((g) => g.group_id)).not.toContain(trashed);
    expect((await getJson<{ group_id: string }[]>("/api/group/roots?skip=1&take=1", user.bearer)).map((g) => g.group_id)).toEqual([b]);
  });

  it("acl-roots: owned groups whose parent the caller does not own", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const top = await createGroup(user, `а ${uniqueName()}`);
    await createGroup(user, "внутри своей", top);
    const adminTop = await createGroup(boss, uniqueName());
    const granted = await createGroup(boss, `б ${uniqueName()}`, adminTop);
    await throughShards(() => env.DB.prepare("UPDATE groups SET owner_id = ? WHERE id = ?").bind(user.id, granted).run());
    const roots = await getJson<{ group_id: string }[]>("/api/group/acl-roots", user.bearer);
    expect(roots.map((g) => g.group_id)).toEqual([top, granted]);
    const adminRoots = await getJson<{ group_id: string }[]>("/api/group/acl-roots?take=500", boss.bearer);
    expect(adminRoots.map((g) => g.group_id)).toContain(adminTop);
    expect(adminRoots.map((g) => g.group_id)).not.toContain(granted);
  });

  it.each(["skip=-1", "take=0", "take=501", "skip=99999999999", "take=abc"])("answers 400 for paging %s", async (query) => {
    const user = await ordinaryUser();
    await expectError(await call(`/api/group/roots?${query}`, { bearer: user.bearer }), 400);
    await expectError(await call(`/api/group/acl-roots?${query}`, { bearer: user.bearer }), 400);
  });

  it("requires a signed-in caller", async () => {
    await expectError(await call("/api/group/roots"), 401);
    await expectError(await call("/api/group/acl-roots"), 401);
  });
});

describe("GET /api/group/search", () => {
  it("finds visible groups by part of the name in any case (Cyrillic too), with their paths", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const marker = uniqueName("Отпуск").replace(/\s/g, "");
    const top = await createGroup(user, uniqueName());
    const hit = await createGroup(user, `Летний ${marker}`, top);
    await createGroup(stranger, `Чужой ${marker}`);
    const trashed = await createGroup(user, `Старый ${marker}`, top);
    await send("DELETE", `/api/group/delete/${trashed}`, user.bearer);
    const found = await getJson<{ group_id: string; path: { group_id: string }[]; owner_name: string }[]>(
      `/api/group/search?q=${encodeURIComponent(marker.toUpperCase())}`,
      user.bearer,
    );
    expect(found.map((g) => g.group_id)).toEqual([hit]);
    expect(found[0].path.map((p) => p.group_id)).toEqual([ROOT_GROUP_ID, top, hit]);
    const all = await getJson<unknown[]>(`/api/group/search?q=${encodeURIComponent(marker.toLowerCase())}`, (await admin()).bearer);
    expect(all).toHaveLength(2);
  });

  it.each(["", "q=", `q=${"x".repeat(256)}`, "q=a%00b", "q=x&take=0"])("answers 400 for %j", async (query) => {
    const user = await ordinaryUser();
    await expectError(await call(`/api/group/search?${query}`, { bearer: user.bearer }), 400);
  });
});

describe("GET /api/group/storage/{id}", () => {
  it("answers the group's storage, else the nearest ancestor's, else the default R2 storage", async () => {
    const user = await ordinaryUser();
    const storage = await insertStorage("Архив S3");
    const closer = await insertStorage("Ближнее");
    const top = await createGroup(user, uniqueName());
    const withStorage = await createGroup(user, "с хранилищем", top, { default_storage: storage });
    const inner = await createGroup(user, "внутри", withStorage);
    const innermost = await createGroup(user, "ещё глубже", inner, { default_storage: closer });
    expect(await getJson(`/api/group/storage/${top}`, user.bearer)).toMatchObject({ storage_id: DEFAULT_STORAGE, storage_name: "R2" });
    expect(await getJson(`/api/group/storage/${inner}`, user.bearer)).toMatchObject({ storage_id: storage, storage_name: "Архив S3" });
    expect(await getJson(`/api/group/storage/${innermost}`, user.bearer)).toMatchObject({ storage_id: closer, storage_name: "Ближнее" });
  });

  it("answers 404 to another user and for unknown groups", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const id = await createGroup(owner, uniqueName());
    await expectError(await call(`/api/group/storage/${id}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/storage/${"3".repeat(32)}`, { bearer: owner.bearer }), 404);
    await expectError(await call(`/api/group/storage/xyz`, { bearer: owner.bearer }), 400);
  });
});

describe("GET /api/group/groups-with-users", () => {
  it("lists groups with user members and their counts, for administrators only", async () => {
    const boss = await admin();
    const user = await ordinaryUser();
    const other = await ordinaryUser();
    const team = await createGroup(boss, `команда ${uniqueName()}`);
    const res = await send("POST", `/api/group/insert-members/${team}`, boss.bearer, {
      members: [
        { el_id: user.id, el_type: "user" },
        { el_id: other.id, el_type: "user" },
      ],
    });
    expect(res.status).toBe(204);
    const list = await getJson<{ group_id: string; group_name: string; users: number }[]>(
      "/api/group/groups-with-users?take=500",
      boss.bearer,
    );
    expect(list.find((g) => g.group_id === team)).toMatchObject({ users: 2 });
    expect((await expectError(await call("/api/group/groups-with-users", { bearer: user.bearer }), 403)).message).toBe(ru.errors.forbidden);
  });
});

describe("OpenAPI document", () => {
  it("describes every group call", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith("/api/group/"));
    expect(paths.sort()).toEqual(
      [
        "/api/group/acl-roots",
        "/api/group/create",
        "/api/group/delete-list",
        "/api/group/delete-members/{id}",
        "/api/group/delete/{id}",
        "/api/group/dir/{id}",
        "/api/group/existing-names/{id}",
        "/api/group/entity-by-path/{root}",
        "/api/group/get/{id}",
        "/api/group/locations/{id}",
        "/api/group/group-size",
        "/api/group/groups-with-users",
        "/api/group/insert-member-return-where/{id}",
        "/api/group/insert-members-return-group/{id}",
        "/api/group/insert-members/{id}",
        "/api/group/members/{id}",
        "/api/group/move-member/{member}/{from}/{to}",
        "/api/group/move-members/{from}/{to}",
        "/api/group/preview-list/{id}",
        "/api/group/purge/{id}",
        "/api/group/restore/{id}",
        "/api/group/roots",
        "/api/group/search",
        "/api/group/storage/{id}",
        "/api/group/subtree/{id}",
        "/api/group/trash",
        "/api/group/update/{id}",
        "/api/group/users/{id}",
      ].sort(),
    );
  });
});
