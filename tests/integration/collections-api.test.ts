import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName, type Caller } from "./library-factories";

interface Collection {
  collection_id: string;
  name: string;
  description: string;
  owner_id: string;
  role: string;
  count: number;
  ctime: string;
  mtime: string;
}

interface Page {
  total: number;
  hidden: number;
  items: { asset_id: string; name: string; mimetype: string; added_by: string; added_at: string; preview: string | null }[];
}

async function ok<T>(method: string, path: string, who: Caller, json?: unknown, status = 200): Promise<T> {
  const res = await send<T>(method, path, who.bearer, json);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

const create = (who: Caller, name = uniqueName("Коллекция"), description?: string) =>
  ok<Collection>("POST", "/api/collections", who, { name, description }, 201);
const items = (who: Caller, id: string, q = "") => ok<Page>("GET", `/api/collections/${id}/items${q}`, who);
const add = (who: Caller, id: string, asset_ids: string[]) => ok("POST", `/api/collections/${id}/items`, who, { asset_ids });
const share = (who: Caller, id: string, subj: string, role: string, subj_type = "user") =>
  ok("PUT", `/api/collections/${id}/members`, who, { subj, subj_type, role });

async function grantRead(subj: string, obj: string, acl = ["read"]) {
  const boss = await admin();
  return ok<{ rule_id: string }>("POST", "/api/user/acl", boss, { subj, obj, acl }, 201);
}

const itemRows = (id: string) =>
  env.DB.prepare("select asset_id from collection_items where collection_id = ? order by pos, asset_id").bind(id).all<{ asset_id: string }>();

/** An owner with files in three folders. */
async function library() {
  const owner = await ordinaryUser();
  const folders = [];
  const files: string[] = [];
  for (let f = 0; f < 3; f++) {
    const g = await createGroup(owner, uniqueName("Съёмка"));
    folders.push(g);
    for (let i = 0; i < 2; i++) files.push((await insertAsset({ ownerId: owner.id, groups: [g], name: `кадр-${f}-${i}.jpg`, mime: "image/jpeg", preview: true })).id);
  }
  return { owner, folders, files };
}

describe("collections: create, read, list, rename, delete", () => {
  it("creates with 201 and the documented shape, lists it as mine, renames and deletes without touching files", async () => {
    const { owner, files } = await library();
    const c = await create(owner, "Лучшее для клиента", "Двадцать кадров");
    expect(c).toMatchObject({ name: "Лучшее для клиента", description: "Двадцать кадров", owner_id: owner.id, role: "owner", count: 0 });
    expect(c.collection_id).toMatch(/^[0-9a-f]{32}$/);
    await add(owner, c.collection_id, files.slice(0, 3));
    const list = await ok<{ items: (Collection & { owner_name: string; cover: string | null })[] }>("GET", "/api/collections", owner);
    const mine = list.items.find((x) => x.collection_id === c.collection_id)!;
    expect(mine).toMatchObject({ role: "owner", count: 3, owner_name: owner.name });
    expect(mine.cover).toContain(files[0]);
    const renamed = await ok<Collection>("PATCH", `/api/collections/${c.collection_id}`, owner, { name: "Финал" });
    expect(renamed).toMatchObject({ name: "Финал", description: "Двадцать кадров", count: 3 });
    await ok("DELETE", `/api/collections/${c.collection_id}`, owner);
    await expectError(await call(`/api/collections/${c.collection_id}`, { bearer: owner.bearer }), 404);
    const left = await env.DB.prepare("select count(*) as n from assets where id in (select value from json_each(?)) and deleted_at is null")
      .bind(JSON.stringify(files))
      .first<{ n: number }>();
    expect(left?.n).toBe(6);
    expect((await itemRows(c.collection_id)).results).toEqual([]);
  });

  it.each([
    ["an empty name", { name: "" }, "«name»"],
    ["a name of spaces", { name: "   " }, "«name»"],
    ["a 201-character name", { name: "я".repeat(201) }, "«name»"],
    ["a number as name", { name: 7 }, "«name»"],
    ["a 2001-character description", { name: "Ок", description: "x".repeat(2001) }, "«description»"],
  ])("refuses %s (400 naming the field, nothing written)", async (_label, json, field) => {
    const user = await ordinaryUser();
    const error = await expectError(await call("/api/collections", { method: "POST", bearer: user.bearer, json }), 400);
    expect(error.message).toContain(field);
    const n = await env.DB.prepare("select count(*) as n from collections where owner_id = ?").bind(user.id).first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("refuses an empty PATCH and anonymous calls", async () => {
    const user = await ordinaryUser();
    const c = await create(user);
    const error = await expectError(await call(`/api/collections/${c.collection_id}`, { method: "PATCH", bearer: user.bearer, json: {} }), 400);
    expect(error.message).toContain(ru.collections.emptyPatch);
    await expectError(await call("/api/collections"), 401);
  });
});

describe("collections: who may do what", () => {
  it("a stranger gets the same 404 as for no collection on every call", async () => {
    const { owner, files } = await library();
    const stranger = await ordinaryUser();
    const c = await create(owner);
    await add(owner, c.collection_id, files);
    const missing = newId();
    for (const id of [c.collection_id, missing]) {
      const calls: [string, string, unknown?][] = [
        ["GET", `/api/collections/${id}`],
        ["PATCH", `/api/collections/${id}`, { name: "x" }],
        ["DELETE", `/api/collections/${id}`],
        ["GET", `/api/collections/${id}/items`],
        ["POST", `/api/collections/${id}/items`, { asset_ids: [files[0]] }],
        ["POST", `/api/collections/${id}/remove-items`, { asset_ids: [files[0]] }],
        ["PUT", `/api/collections/${id}/order`, { asset_ids: [files[0]] }],
        ["GET", `/api/collections/${id}/members`],
        ["PUT", `/api/collections/${id}/members`, { subj: stranger.id, subj_type: "user", role: "edit" }],
        ["DELETE", `/api/collections/${id}/members/${owner.id}`],
      ];
      for (const [method, path, json] of calls) {
        const error = await expectError(await call(path, { method, bearer: stranger.bearer, json }), 404);
        expect(error.message, `${method} ${path}`).toBe(ru.collections.notFound);
      }
    }
    const list = await ok<{ items: Collection[] }>("GET", "/api/collections", stranger);
    expect(list.items.map((x) => x.collection_id)).not.toContain(c.collection_id);
    expect((await itemRows(c.collection_id)).results).toHaveLength(6);
  });

  it("a viewer reads but gets 403 on add, remove, order, rename, delete and sharing; an editor adds; only the owner deletes", async () => {
    const { owner, files, folders } = await library();
    const viewer = await ordinaryUser();
    const editor = await ordinaryUser();
    const c = await create(owner);
    await add(owner, c.collection_id, files.slice(0, 2));
    await share(owner, c.collection_id, viewer.id, "view");
    await share(owner, c.collection_id, editor.id, "edit");
    for (const f of folders) await grantRead(viewer.id, f);
    for (const f of folders) await grantRead(editor.id, f);
    expect((await items(viewer, c.collection_id)).total).toBe(2);
    const refused: [string, string, unknown?][] = [
      ["POST", `/api/collections/${c.collection_id}/items`, { asset_ids: [files[3]] }],
      ["POST", `/api/collections/${c.collection_id}/remove-items`, { asset_ids: [files[0]] }],
      ["PUT", `/api/collections/${c.collection_id}/order`, { asset_ids: [files[1]] }],
      ["PATCH", `/api/collections/${c.collection_id}`, { name: "Чужое" }],
      ["DELETE", `/api/collections/${c.collection_id}`],
      ["PUT", `/api/collections/${c.collection_id}/members`, { subj: editor.id, subj_type: "user", role: "view" }],
      ["DELETE", `/api/collections/${c.collection_id}/members/${editor.id}`],
    ];
    for (const [method, path, json] of refused) await expectError(await call(path, { method, bearer: viewer.bearer, json }), 403);
    expect((await itemRows(c.collection_id)).results.map((r) => r.asset_id)).toEqual(files.slice(0, 2));
    await add(editor, c.collection_id, [files[3]]);
    await ok("PATCH", `/api/collections/${c.collection_id}`, editor, { description: "от редактора" });
    await expectError(await call(`/api/collections/${c.collection_id}`, { method: "DELETE", bearer: editor.bearer }), 403);
    await expectError(
      await call(`/api/collections/${c.collection_id}/members`, { method: "PUT", bearer: editor.bearer, json: { subj: viewer.id, subj_type: "user", role: "edit" } }),
      403,
    );
    // a member may leave
    await ok("DELETE", `/api/collections/${c.collection_id}/members/${viewer.id}`, viewer);
    await expectError(await call(`/api/collections/${c.collection_id}`, { bearer: viewer.bearer }), 404);
    // an administrator acts as the owner
    const boss = await admin();
    await ok("DELETE", `/api/collections/${c.collection_id}`, boss);
  });

  it("a group of users holds a collection for its members", async () => {
    const { owner, files, folders } = await library();
    const member = await ordinaryUser();
    const team = await createGroup(owner, uniqueName("Команда"));
    await ok("POST", `/api/group/users/${team}`, await admin(), { users: [member.id] });
    await grantRead(member.id, folders[0]);
    const c = await create(owner);
    await add(owner, c.collection_id, files);
    await share(owner, c.collection_id, team, "comment", "group");
    const got = await ok<Collection>("GET", `/api/collections/${c.collection_id}`, member);
    expect(got).toMatchObject({ role: "comment", count: 2 });
    const members = await ok<{ items: { subj: string; subj_type: string; role: string }[] }>("GET", `/api/collections/${c.collection_id}/members`, member);
    expect(members.items).toEqual([expect.objectContaining({ subj: team, subj_type: "group", role: "comment" })]);
  });
});

describe("collections: never wider than the files' own rights", () => {
  it("a member sees only items he may read; hidden counts the rest; paging is over readable items", async () => {
    const { owner, files, folders } = await library();
    const reader = await ordinaryUser();
    const c = await create(owner);
    await add(owner, c.collection_id, files);
    await share(owner, c.collection_id, reader.id, "view");
    let page = await items(reader, c.collection_id);
    expect(page).toEqual({ total: 0, hidden: 6, items: [] });
    await grantRead(reader.id, folders[1]);
    await grantRead(reader.id, files[5]);
    page = await items(reader, c.collection_id);
    expect(page.total).toBe(3);
    expect(page.hidden).toBe(3);
    expect(page.items.map((i) => i.asset_id)).toEqual([files[2], files[3], files[5]]);
    expect(page.items[0]).toMatchObject({ name: "кадр-1-0.jpg", mimetype: "image/jpeg", added_by: owner.id });
    expect(page.items[0].preview).toContain(files[2]);
    const second = await items(reader, c.collection_id, "?skip=1&take=1");
    expect(second).toMatchObject({ total: 3, hidden: 3 });
    expect(second.items.map((i) => i.asset_id)).toEqual([files[3]]);
    // past the end: no row carries the counts, which are still exact
    expect(await items(reader, c.collection_id, "?skip=100")).toEqual({ total: 3, hidden: 3, items: [] });
    const listed = await ok<{ items: (Collection & { cover: string | null })[] }>("GET", "/api/collections", reader);
    const entry = listed.items.find((x) => x.collection_id === c.collection_id)!;
    expect(entry).toMatchObject({ role: "view", count: 3 });
    expect(entry.cover).toContain(files[2]);
    // the owner sees everything
    expect(await items(owner, c.collection_id)).toMatchObject({ total: 6, hidden: 0 });
  });

  it("a reader through a folder rule sees exactly the files he may read, in order, on every page; hidden counts the rest", async () => {
    const owner = await ordinaryUser();
    const reader = await ordinaryUser();
    const [granted, other] = [await createGroup(owner, uniqueName("Съёмка")), await createGroup(owner, uniqueName("Архив"))];
    const file = async (name: string, groups: string[], ownerId = owner.id) => (await insertAsset({ ownerId, groups, name, mime: "image/jpeg" })).id;
    const f = {
      a0: await file("a0.jpg", [granted]),
      inheritOff: await file("inherit-off.jpg", [granted]),
      a1: await file("a1.jpg", [granted]),
      memberTrashed: await file("member-trashed.jpg", [granted]),
      otherOnly: await file("other-only.jpg", [other]),
      both: await file("both.jpg", [other, granted]),
      deleted: await file("deleted.jpg", [granted]),
      own: await file("own.jpg", [other], reader.id),
      ruled: await file("ruled.jpg", [other]),
    };
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("insert into access_inheritance (entity_id, entity_type, inherit, mtime) values (?, 'asset', 0, ?)").bind(f.inheritOff, now),
      env.DB.prepare("update group_members set trashed_at = ? where group_id = ? and el_id = ?").bind(now, granted, f.memberTrashed),
      env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(now, f.deleted),
    ]);
    const c = await create(owner);
    // Written directly: the reader's own file is one the collection's owner could not add himself.
    await env.DB.batch(
      Object.values(f).map((assetId, i) =>
        env.DB.prepare("insert into collection_items (collection_id, asset_id, pos, added_by, added_at) values (?, ?, ?, ?, ?)").bind(c.collection_id, assetId, i + 1, owner.id, now),
      ),
    );
    await share(owner, c.collection_id, reader.id, "view");
    await grantRead(reader.id, granted);
    await grantRead(reader.id, f.ruled);
    const ids = (page: Page) => page.items.map((i) => i.asset_id);
    const readable = [f.a0, f.a1, f.both, f.own, f.ruled];
    // eight live files (the deleted one is not counted at all), five of them readable
    let page = await items(reader, c.collection_id);
    expect({ ...page, items: ids(page) }).toEqual({ total: 5, hidden: 3, items: readable });
    page = await items(reader, c.collection_id, "?skip=3&take=2");
    expect({ ...page, items: ids(page) }).toEqual({ total: 5, hidden: 3, items: [f.own, f.ruled] });
    expect(await items(reader, c.collection_id, "?skip=100")).toEqual({ total: 5, hidden: 3, items: [] });
    // A deny anywhere takes the per-file path: the denied file is hidden too.
    await grantRead(reader.id, f.a1, ["deny"]);
    page = await items(reader, c.collection_id, "?skip=1&take=10");
    expect({ ...page, items: ids(page) }).toEqual({ total: 4, hidden: 4, items: [f.both, f.own, f.ruled] });
    expect(await items(owner, c.collection_id)).toMatchObject({ total: 7, hidden: 1 });
  });

  it("adding needs read on every id: one unreadable or unknown id adds nothing (404, same message)", async () => {
    const { owner, files } = await library();
    const other = await ordinaryUser();
    const foreign = (await insertAsset({ ownerId: other.id, name: "чужой.jpg" })).id;
    const c = await create(owner);
    const unreadable = await expectError(
      await call(`/api/collections/${c.collection_id}/items`, { method: "POST", bearer: owner.bearer, json: { asset_ids: [files[0], foreign] } }),
      404,
    );
    const unknown = newId();
    const missing = await expectError(
      await call(`/api/collections/${c.collection_id}/items`, { method: "POST", bearer: owner.bearer, json: { asset_ids: [files[0], unknown] } }),
      404,
    );
    expect(unreadable.message).toBe(ru.collections.assetNotFound(foreign));
    expect(missing.message).toBe(ru.collections.assetNotFound(unknown));
    expect((await itemRows(c.collection_id)).results).toEqual([]);
  });

  it("an editor adds only files he may read himself", async () => {
    const { owner, files, folders } = await library();
    const editor = await ordinaryUser();
    await grantRead(editor.id, folders[0]);
    const c = await create(owner);
    await share(owner, c.collection_id, editor.id, "edit");
    await add(editor, c.collection_id, [files[0]]);
    await expectError(
      await call(`/api/collections/${c.collection_id}/items`, { method: "POST", bearer: editor.bearer, json: { asset_ids: [files[2]] } }),
      404,
    );
    expect((await itemRows(c.collection_id)).results.map((r) => r.asset_id)).toEqual([files[0]]);
  });

  it("a trashed file is neither shown nor counted as hidden", async () => {
    const { owner, files } = await library();
    const c = await create(owner);
    await add(owner, c.collection_id, files.slice(0, 2));
    await env.DB.prepare("update assets set deleted_at = ? where id = ?").bind(Date.now(), files[0]).run();
    expect(await items(owner, c.collection_id)).toMatchObject({ total: 1, hidden: 0 });
  });
});

describe("collections: order", () => {
  it("appends in the given order, ignores duplicates, moves listed items before the rest, removes", async () => {
    const { owner, files } = await library();
    const c = await create(owner);
    await add(owner, c.collection_id, [files[0], files[1], files[0]]);
    await add(owner, c.collection_id, [files[2], files[1], files[3]]);
    expect((await items(owner, c.collection_id)).items.map((i) => i.asset_id)).toEqual(files.slice(0, 4));
    await ok("PUT", `/api/collections/${c.collection_id}/order`, owner, { asset_ids: [files[3], files[1], newId()] });
    expect((await items(owner, c.collection_id)).items.map((i) => i.asset_id)).toEqual([files[3], files[1], files[0], files[2]]);
    await add(owner, c.collection_id, [files[4]]);
    await ok("POST", `/api/collections/${c.collection_id}/remove-items`, owner, { asset_ids: [files[1]] });
    expect((await items(owner, c.collection_id)).items.map((i) => i.asset_id)).toEqual([files[3], files[0], files[2], files[4]]);
  });
});

describe("collections: sharing", () => {
  it("records collection.shared with the documented data in the same batch", async () => {
    const { owner } = await library();
    const reader = await ordinaryUser();
    const c = await create(owner, "Для клиента");
    await share(owner, c.collection_id, reader.id, "comment");
    const event = await env.DB.prepare("select type, entity_type, entity_id, owner_id, actor_id, data from global_events where entity_id = ? and type = 'collection.shared'")
      .bind(c.collection_id)
      .first<{ type: string; entity_type: string; entity_id: string; owner_id: string; actor_id: string; data: string }>();
    expect(event).toMatchObject({ entity_type: "collection", owner_id: owner.id, actor_id: owner.id });
    expect(JSON.parse(event!.data)).toEqual({ collection_id: c.collection_id, name: "Для клиента", subj: reader.id, subj_type: "user", role: "comment" });
    const members = await ok<{ items: { subj: string; role: string; name: string }[] }>("GET", `/api/collections/${c.collection_id}/members`, owner);
    expect(members.items).toEqual([expect.objectContaining({ subj: reader.id, role: "comment", name: reader.name })]);
    await share(owner, c.collection_id, reader.id, "edit");
    expect((await ok<Collection>("GET", `/api/collections/${c.collection_id}`, reader)).role).toBe("edit");
    await ok("DELETE", `/api/collections/${c.collection_id}/members/${reader.id}`, owner);
    await expectError(await call(`/api/collections/${c.collection_id}`, { bearer: reader.bearer }), 404);
  });

  it.each([
    ["an unknown role", { subj_type: "user", role: "owner" }, ru.collections.badRole],
    ["an unknown subject type", { subj_type: "robot", role: "view" }, "«subj_type»"],
  ])("refuses %s (400, nothing written)", async (_label, extra, text) => {
    const { owner } = await library();
    const reader = await ordinaryUser();
    const c = await create(owner);
    const error = await expectError(
      await call(`/api/collections/${c.collection_id}/members`, { method: "PUT", bearer: owner.bearer, json: { subj: reader.id, ...extra } }),
      400,
    );
    expect(error.message).toContain(text);
    const n = await env.DB.prepare("select count(*) as n from collection_members where collection_id = ?").bind(c.collection_id).first<{ n: number }>();
    expect(n?.n).toBe(0);
  });

  it("refuses an unknown user, a folder the caller cannot read as a group, and the owner himself", async () => {
    const { owner } = await library();
    const other = await ordinaryUser();
    const hisGroup = await createGroup(other, uniqueName("Чужая"));
    const c = await create(owner);
    const put = (json: unknown) => call(`/api/collections/${c.collection_id}/members`, { method: "PUT", bearer: owner.bearer, json });
    await expectError(await put({ subj: newId(), subj_type: "user", role: "view" }), 404);
    await expectError(await put({ subj: hisGroup, subj_type: "group", role: "view" }), 404);
    await expectError(await put({ subj: owner.id, subj_type: "user", role: "view" }), 400);
  });
});

describe("collections: bad input", () => {
  it(`refuses more than 1,000 ids at once with a Russian 400 naming the field, nothing added`, async () => {
    const { owner, files } = await library();
    const c = await create(owner);
    const many = [...files, ...Array.from({ length: 1001 }, () => newId())];
    for (const path of ["items", "remove-items"]) {
      const error = await expectError(
        await call(`/api/collections/${c.collection_id}/${path}`, { method: "POST", bearer: owner.bearer, json: { asset_ids: many } }),
        400,
      );
      expect(error.message).toBe(ru.errors.invalidField("asset_ids", ru.collections.tooManyIds(1000)));
    }
    await expectError(await call(`/api/collections/${c.collection_id}/order`, { method: "PUT", bearer: owner.bearer, json: { asset_ids: many } }), 400);
    await expectError(await call(`/api/collections/${c.collection_id}/items`, { method: "POST", bearer: owner.bearer, json: { asset_ids: [] } }), 400);
    await expectError(await call(`/api/collections/${c.collection_id}/items`, { method: "POST", bearer: owner.bearer, json: { asset_ids: ["x"] } }), 400);
    await expectError(await call(`/api/collections/${c.collection_id}/items?take=501`, { bearer: owner.bearer }), 400);
    await expectError(await call(`/api/collections/not-an-id`, { bearer: owner.bearer }), 400);
    expect((await itemRows(c.collection_id)).results).toEqual([]);
  });
});

describe("collections: a reader's deep pages from his checkpoints (decision record 034)", () => {
  it("after every change that could move a checkpoint, the next deep page is exactly what the reader may read", async () => {
    const boss = await admin();
    const owner = await ordinaryUser();
    const reader = await ordinaryUser();
    const [open, closed] = [await createGroup(owner, uniqueName("Открытая")), await createGroup(owner, uniqueName("Закрытая"))];
    const team = await createGroup(boss, uniqueName("Команда"));
    // Enough files for three checkpoints of readable items: every fourth one lies in the folder the reader has no rule on.
    const files: string[] = [];
    const folderOf = new Map<string, string>();
    for (let start = 0; start < 360; start += 40) {
      const made = await Promise.all(
        Array.from({ length: 40 }, (_, k) => {
          const folder = (start + k) % 4 === 3 ? closed : open;
          return insertAsset({ ownerId: owner.id, groups: [folder], name: `кадр-${start + k}.jpg`, mime: "image/jpeg", size: null }).then((a) => {
            folderOf.set(a.id, folder);
            return a.id;
          });
        }),
      );
      files.push(...made);
    }
    const c = await create(owner);
    await add(owner, c.collection_id, files);
    await share(owner, c.collection_id, reader.id, "view");
    const openRule = await grantRead(reader.id, open);
    await ok("POST", "/api/user/acl", boss, { subj: team, obj: closed, acl: ["read"] }, 201);

    // The model: the collection's order, the files gone to the trash, and what the reader may read.
    let order = [...files];
    const trashed = new Set<string>();
    const inheritOff = new Set<string>();
    let readsFolder = (folder: string) => folder === open;
    const live = () => order.filter((f) => !trashed.has(f));
    const readable = () => live().filter((f) => readsFolder(folderOf.get(f)!) && !inheritOff.has(f));
    const listRows = async (after = -1) =>
      (
        await env.DB.prepare("select count(*) as n from collection_seek where collection_id = ? and instr(reader, ?) > 0 and n > ?")
          .bind(c.collection_id, reader.id, after)
          .first<{ n: number }>()
      )?.n ?? 0;

    let deepPages = 0;
    async function expectPages(step: string) {
      const want = readable();
      const hidden = live().length - want.length;
      for (const [skip, take] of [[100, 50], [150, 7], [199, 50], [want.length - 3, 50], [want.length + 20, 50], [0, 500]]) {
        if (skip < 0) continue;
        const page = await items(reader, c.collection_id, `?skip=${skip}&take=${take}`);
        expect({ total: page.total, hidden: page.hidden, items: page.items.map((i) => i.asset_id) }, `${step}: skip ${skip}`).toEqual({
          total: want.length,
          hidden,
          items: want.slice(skip, skip + take),
        });
        if (skip >= 100) deepPages += 1;
      }
      // the deep pages above built the reader's list: the next step's change meets a list it must void
      expect(await listRows(), step).toBeGreaterThan(0);
    }

    await expectPages("start");
    // two checkpoints past the head: deep pages start from them
    expect(await listRows(0)).toBe(2);
    // Group membership: joining the group that reads the closed folder shows every file; leaving hides them again.
    expect((await send("POST", `/api/group/users/${team}`, boss.bearer, { users: [reader.id] })).status).toBe(200);
    readsFolder = () => true;
    await expectPages("joined the group");
    expect((await send("DELETE", `/api/group/users/${team}?users=${reader.id}`, boss.bearer)).status).toBeLessThan(300);
    readsFolder = (folder) => folder === open;
    await expectPages("left the group");
    // Files moved out of the folder he reads, all before the first checkpoint.
    for (const f of files.slice(0, 12).filter((f) => folderOf.get(f) === open).slice(0, 6)) {
      expect((await send("POST", `/api/group/move-member/${f}/${open}/${closed}`, owner.bearer)).status).toBeLessThan(300);
      folderOf.set(f, closed);
    }
    await expectPages("files moved");
    // Files trashed, then some restored.
    const toTrash = readable().slice(10, 15);
    for (const f of toTrash) expect((await send("DELETE", `/api/asset/${f}`, owner.bearer)).status).toBeLessThan(300);
    toTrash.forEach((f) => trashed.add(f));
    await expectPages("files trashed");
    for (const f of toTrash.slice(0, 2)) {
      expect((await send("POST", `/api/asset/restore/${f}`, owner.bearer)).status).toBeLessThan(300);
      trashed.delete(f);
    }
    await expectPages("files restored");
    // Items removed, then the last twenty moved before the rest.
    const removed = readable().slice(20, 30);
    await ok("POST", `/api/collections/${c.collection_id}/remove-items`, owner, { asset_ids: removed });
    order = order.filter((f) => !removed.includes(f));
    await expectPages("items removed");
    const last = order.slice(-20);
    await ok("PUT", `/api/collections/${c.collection_id}/order`, owner, { asset_ids: last });
    order = [...last, ...order.filter((f) => !last.includes(f))];
    await expectPages("items reordered");
    // One file stops inheriting its folder's rules.
    const cut = readable()[5];
    expect((await send("POST", `/api/auth/access-inheritance/${cut}`, owner.bearer, { inherit: false })).status).toBeLessThan(300);
    inheritOff.add(cut);
    await expectPages("inheritance switched off");
    // Rules: one created on the closed folder, then changed to a level without read, then the open folder's deleted.
    const closedRule = await grantRead(reader.id, closed);
    readsFolder = () => true;
    await expectPages("rule created");
    await ok("PATCH", `/api/user/acl/${closedRule.rule_id}`, boss, { acl: ["download"] });
    readsFolder = (folder) => folder === open;
    await expectPages("rule changed");
    expect((await send("DELETE", `/api/user/acl/${openRule.rule_id}`, boss.bearer)).status).toBeLessThan(300);
    readsFolder = () => false;
    await expectPages("rule deleted");
    expect(deepPages).toBeGreaterThan(40);
  }, 120_000);

  it("an administrator's and another reader's lists are their own; deleting the collection drops them", async () => {
    const owner = await ordinaryUser();
    const reader = await ordinaryUser();
    const folder = await createGroup(owner, uniqueName("Съёмка"));
    const mine = await createGroup(owner, uniqueName("Моё"));
    const files = await Promise.all(
      Array.from({ length: 130 }, (_, i) => insertAsset({ ownerId: owner.id, groups: [i % 2 ? folder : mine], name: `f-${i}.jpg`, size: null }).then((a) => a.id)),
    );
    const c = await create(owner);
    await add(owner, c.collection_id, files);
    await share(owner, c.collection_id, reader.id, "view");
    await grantRead(reader.id, folder);
    const boss = await admin();
    const byOwner = await items(owner, c.collection_id, "?skip=100&take=50");
    const byReader = await items(reader, c.collection_id, "?skip=10&take=50");
    expect((await items(boss, c.collection_id, "?skip=100&take=50")).items).toEqual(byOwner.items);
    expect(byOwner).toMatchObject({ total: 130, hidden: 0 });
    expect(byOwner.items.map((i) => i.asset_id)).toEqual(files.slice(100, 150));
    expect(byReader).toMatchObject({ total: 65, hidden: 65 });
    expect((await items(reader, c.collection_id, "?skip=100")).items).toEqual([]);
    const lists = () => env.DB.prepare("select count(*) as n from collection_seek where collection_id = ? and n = 0").bind(c.collection_id).first<{ n: number }>();
    expect((await lists())?.n).toBe(3);
    await ok("DELETE", `/api/collections/${c.collection_id}`, owner);
    expect((await lists())?.n).toBe(0);
  });
});
