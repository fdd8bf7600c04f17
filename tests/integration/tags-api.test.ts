import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { insertAsset, insertGroup, insertTag, rows, tagEntity, uniqueName } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

interface Tag {
  tag_id: string;
  tag_name: string;
  count?: number;
}

async function post<T>(path: string, bearer: string, json: unknown, method = "POST"): Promise<T> {
  const res = await call(path, { method, bearer, json });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

async function get<T>(path: string, bearer: string): Promise<T> {
  const res = await call(path, { bearer });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

async function createTag(bearer: string, name = uniqueName("Тег")) {
  const { tag_id } = await post<{ tag_id: string }>("/api/tags/create", bearer, { tag_name: name });
  return { id: tag_id, name };
}

const entityTagRows = (tagId: string) => rows(`select entity_id, entity_type from entity_tags where tag_id = ? order by entity_id`, tagId);

describe("POST /api/tags/create", () => {
  it("adds a tag for any signed-in user and stores the name as given (trimmed)", async () => {
    const user = await signIn();
    const name = uniqueName("Съёмка 🎬");
    const res = await call("/api/tags/create", { method: "POST", bearer: user.bearer, json: { tag_name: `  ${name} ` } });
    expect(res.status).toBe(200);
    const { tag_id, tag_name } = (await res.json()) as { tag_id: string; tag_name: string };
    expect(tag_id).toMatch(/^[0-9a-f]{32}$/);
    expect(tag_name).toBe(name);
    expect(await rows(`select name from tags where id = ?`, tag_id)).toEqual([{ name }]);
  });

  it.each([
    ["Интервью", "интервью"],
    ["ЁЛКА", "ёлка"],
    ["Їжак", "їЖАК"],
    ["Promo", "pROMO"],
  ])("refuses %j when %j exists (409, case-insensitive, Cyrillic included)", async (first, second) => {
    const user = await signIn();
    const suffix = newId().slice(-8);
    await createTag(user.bearer, `${first} ${suffix}`);
    const error = await expectError(await call("/api/tags/create", { method: "POST", bearer: user.bearer, json: { tag_name: `${second} ${suffix}` } }), 409);
    expect(error.message).toBe(ru.catalog.tagExists(`${second} ${suffix}`));
    expect(await rows(`select id from tags where name = ?`, `${second} ${suffix}`)).toEqual([]);
  });

  it.each([
    ["empty", ""],
    ["spaces only", "   "],
    ["101 characters", "я".repeat(101)],
    ["10,000 characters", "x".repeat(10_000)],
    ["a control character", "bad\u0007name"],
    ["a newline", "two\nlines"],
    ["a number", 42],
    ["null", null],
  ])("refuses a name that is %s (400)", async (_label, tag_name) => {
    const user = await signIn();
    const error = await expectError(await call("/api/tags/create", { method: "POST", bearer: user.bearer, json: { tag_name } }), 400);
    expect(error.message).toContain("«tag_name»");
  });

  it("refuses a missing body (400), non-JSON (400) and another content type (415)", async () => {
    const user = await signIn();
    await expectError(await call("/api/tags/create", { method: "POST", bearer: user.bearer, json: {} }), 400);
    await expectError(
      await call("/api/tags/create", { method: "POST", bearer: user.bearer, body: "{oops", headers: { "content-type": "application/json" } }),
      400,
    );
    await expectError(await call("/api/tags/create", { method: "POST", bearer: user.bearer, body: "tag_name=x", headers: { "content-type": "text/plain" } }), 415);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/tags/create", { method: "POST", json: { tag_name: "x" } }), 401);
  });
});

describe("GET /api/tags/list", () => {
  it("lists tags by name with the number of entities carrying each, filtered case-insensitively", async () => {
    const user = await signIn();
    const marker = newId().slice(-8);
    const a = await createTag(user.bearer, `Альфа ${marker}`);
    const b = await createTag(user.bearer, `бета ${marker}`);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    const groupId = await insertGroup({ ownerId: user.id });
    await tagEntity(a.id, assetId, "asset");
    await tagEntity(a.id, groupId, "group");

    const list = await get<Tag[]>(`/api/tags/list?q=${encodeURIComponent(marker.toUpperCase())}`, user.bearer);
    expect(list).toEqual([
      { tag_id: a.id, tag_name: a.name, count: 2 },
      { tag_id: b.id, tag_name: b.name, count: 0 },
    ]);
    expect(await get<Tag[]>(`/api/tags/list?q=${encodeURIComponent(`БЕТА ${marker}`)}`, user.bearer)).toEqual([
      { tag_id: b.id, tag_name: b.name, count: 0 },
    ]);
  });

  it("pages with skip and take; % and _ are literal characters in q", async () => {
    const user = await signIn();
    const marker = `p%_${newId().slice(-6)}`;
    const made = [];
    for (const n of ["1", "2", "3"]) made.push(await createTag(user.bearer, `${marker} ${n}`));
    const page1 = await get<Tag[]>(`/api/tags/list?q=${encodeURIComponent(marker)}&skip=0&take=2`, user.bearer);
    const page2 = await get<Tag[]>(`/api/tags/list?q=${encodeURIComponent(marker)}&skip=2&take=2`, user.bearer);
    expect([...page1, ...page2].map((t) => t.tag_id)).toEqual(made.map((t) => t.id));
    expect(await get<Tag[]>(`/api/tags/list?q=${encodeURIComponent("p%_zzz")}`, user.bearer)).toEqual([]);
  });

  it.each(["skip=-1", "take=0", "take=501", "take=abc", `q=${"x".repeat(101)}`])("refuses %s (400)", async (query) => {
    const user = await signIn();
    await expectError(await call(`/api/tags/list?${query}`, { bearer: user.bearer }), 400);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/tags/list"), 401);
  });
});

describe("tag counts cover only what the caller may read", () => {
  it("list, list-by-ids and list-by-filter count the caller's readable files and folders; an administrator counts all", async () => {
    const owner = await signIn();
    const other = await signIn();
    const admin = await signInAdmin();
    const tag = await createTag(owner.bearer, `Счёт ${newId().slice(-8)}`);
    const hiddenAsset = (await insertAsset({ ownerId: owner.id })).id;
    const hiddenGroup = await insertGroup({ ownerId: owner.id });
    const ownAsset = (await insertAsset({ ownerId: other.id })).id;
    for (const [id, type] of [[hiddenAsset, "asset"], [hiddenGroup, "group"], [ownAsset, "asset"]] as const) await tagEntity(tag.id, id, type);

    const countOf = (list: Tag[]) => list.find((t) => t.tag_id === tag.id)?.count;
    const q = encodeURIComponent(tag.name);
    expect(countOf(await get<Tag[]>(`/api/tags/list?q=${q}`, other.bearer))).toBe(1);
    expect(countOf(await post<Tag[]>("/api/tags/list-by-ids", other.bearer, { ids: [tag.id] }))).toBe(1);
    expect(countOf(await post<Tag[]>("/api/tags/list-by-filter", other.bearer, { q: tag.name }))).toBe(1);
    expect(countOf(await post<Tag[]>("/api/tags/list-by-filter", other.bearer, { entity_ids: [ownAsset] }))).toBe(1);
    expect(countOf(await get<Tag[]>(`/api/tags/list?q=${q}`, owner.bearer))).toBe(2);
    expect(countOf(await get<Tag[]>(`/api/tags/list?q=${q}`, admin.bearer))).toBe(3);
  });
});

describe("POST /api/tags/list-by-ids", () => {
  it("answers the known tags among the ids (unknown ones left out)", async () => {
    const user = await signIn();
    const a = await createTag(user.bearer);
    const b = await createTag(user.bearer);
    const list = await post<Tag[]>("/api/tags/list-by-ids", user.bearer, { ids: [b.id, newId(), a.id, a.id] });
    expect(list.map((t) => t.tag_id).sort()).toEqual([a.id, b.id].sort());
    expect(await post<Tag[]>("/api/tags/list-by-ids", user.bearer, { ids: [] })).toEqual([]);
  });

  it("refuses ids of the wrong shape and too many ids (400)", async () => {
    const user = await signIn();
    await expectError(await call("/api/tags/list-by-ids", { method: "POST", bearer: user.bearer, json: { ids: ["nope"] } }), 400);
    await expectError(await call("/api/tags/list-by-ids", { method: "POST", bearer: user.bearer, json: { ids: "x" } }), 400);
    const many = Array.from({ length: 501 }, () => newId());
    await expectError(await call("/api/tags/list-by-ids", { method: "POST", bearer: user.bearer, json: { ids: many } }), 400);
  });

  it("handles 500 ids in one request (no bound-parameter limit)", async () => {
    const user = await signIn();
    const a = await createTag(user.bearer);
    const ids = [a.id, ...Array.from({ length: 499 }, () => newId())];
    expect((await post<Tag[]>("/api/tags/list-by-ids", user.bearer, { ids })).map((t) => t.tag_id)).toEqual([a.id]);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/tags/list-by-ids", { method: "POST", json: { ids: [] } }), 401);
  });
});

describe("POST /api/tags/list-by-filter", () => {
  it("finds tags by name, by the entities carrying them and by entity type", async () => {
    const user = await signIn();
    const marker = newId().slice(-8);
    const onAsset = await createTag(user.bearer, `Файловый ${marker}`);
    const onGroup = await createTag(user.bearer, `Папочный ${marker}`);
    await createTag(user.bearer, `Свободный ${marker}`);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    const groupId = await insertGroup({ ownerId: user.id });
    await tagEntity(onAsset.id, assetId, "asset");
    await tagEntity(onGroup.id, groupId, "group");

    const byName = await post<Tag[]>("/api/tags/list-by-filter", user.bearer, { q: `ФАЙЛОВЫЙ ${marker}` });
    expect(byName.map((t) => t.tag_id)).toEqual([onAsset.id]);
    const byEntities = await post<Tag[]>("/api/tags/list-by-filter", user.bearer, { entity_ids: [assetId, groupId] });
    expect(byEntities.map((t) => t.tag_id).sort()).toEqual([onAsset.id, onGroup.id].sort());
    const byType = await post<Tag[]>("/api/tags/list-by-filter", user.bearer, { q: marker, entity_type: "group" });
    expect(byType.map((t) => t.tag_id)).toEqual([onGroup.id]);
    const both = await post<Tag[]>("/api/tags/list-by-filter", user.bearer, { q: "Папочный", entity_ids: [assetId] });
    expect(both).toEqual([]);
  });

  it("never reveals the tags of entities the caller may not see", async () => {
    const owner = await signIn();
    const other = await signIn();
    const tag = await createTag(owner.bearer);
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await tagEntity(tag.id, assetId, "asset");
    expect(await post<Tag[]>("/api/tags/list-by-filter", other.bearer, { entity_ids: [assetId] })).toEqual([]);
    expect(await post<Tag[]>("/api/tags/list-by-filter", other.bearer, { q: tag.name, entity_type: "asset" })).toEqual([]);
    const admin = await signInAdmin();
    expect((await post<Tag[]>("/api/tags/list-by-filter", admin.bearer, { entity_ids: [assetId] })).map((t) => t.tag_id)).toEqual([tag.id]);
  });

  it("refuses a bad filter (400)", async () => {
    const user = await signIn();
    for (const json of [{ entity_type: "user" }, { entity_ids: ["x"] }, { q: 5 }, { take: 0 }]) {
      await expectError(await call("/api/tags/list-by-filter", { method: "POST", bearer: user.bearer, json }), 400);
    }
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/tags/list-by-filter", { method: "POST", json: {} }), 401);
  });
});

describe("PATCH /api/tags/change/{id}", () => {
  it("lets an administrator rename a tag", async () => {
    const admin = await signInAdmin();
    const tag = await createTag(admin.bearer);
    const name = uniqueName("Новое имя");
    expect(await post<Tag>(`/api/tags/change/${tag.id}`, admin.bearer, { tag_name: name }, "PATCH")).toEqual({ tag_id: tag.id, tag_name: name });
    expect(await rows(`select name from tags where id = ?`, tag.id)).toEqual([{ name }]);
  });

  it("allows changing only the case of the tag's own name", async () => {
    const admin = await signInAdmin();
    const tag = await createTag(admin.bearer, uniqueName("регистр"));
    const upper = tag.name.toUpperCase();
    expect(await post<Tag>(`/api/tags/change/${tag.id}`, admin.bearer, { tag_name: upper }, "PATCH")).toEqual({ tag_id: tag.id, tag_name: upper });
  });

  it("refuses another tag's name (409), an unknown id (404), a bad id or name (400)", async () => {
    const admin = await signInAdmin();
    const a = await createTag(admin.bearer);
    const b = await createTag(admin.bearer);
    await expectError(await call(`/api/tags/change/${b.id}`, { method: "PATCH", bearer: admin.bearer, json: { tag_name: a.name.toLowerCase() } }), 409);
    expect(await rows(`select name from tags where id = ?`, b.id)).toEqual([{ name: b.name }]);
    await expectError(await call(`/api/tags/change/${newId()}`, { method: "PATCH", bearer: admin.bearer, json: { tag_name: "x" } }), 404);
    await expectError(await call(`/api/tags/change/123`, { method: "PATCH", bearer: admin.bearer, json: { tag_name: "x" } }), 400);
    await expectError(await call(`/api/tags/change/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { tag_name: "" } }), 400);
  });

  it("is for administrators only: an ordinary user gets 403 and the name stays", async () => {
    const user = await signIn();
    const tag = await createTag(user.bearer);
    const error = await expectError(await call(`/api/tags/change/${tag.id}`, { method: "PATCH", bearer: user.bearer, json: { tag_name: "Взлом" } }), 403);
    expect(error.message).toBe(ru.catalog.adminOnly);
    expect(await rows(`select name from tags where id = ?`, tag.id)).toEqual([{ name: tag.name }]);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/tags/change/${newId()}`, { method: "PATCH", json: { tag_name: "x" } }), 401);
  });
});

describe("DELETE /api/tags/delete/{id}", () => {
  it("deletes the tag and removes it from every entity", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const tag = await createTag(admin.bearer);
    const keep = await createTag(admin.bearer);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    const groupId = await insertGroup({ ownerId: user.id });
    await tagEntity(tag.id, assetId, "asset");
    await tagEntity(tag.id, groupId, "group");
    await tagEntity(keep.id, assetId, "asset");

    const res = await call(`/api/tags/delete/${tag.id}`, { method: "DELETE", bearer: admin.bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tag_id: tag.id, detached: 2 });
    expect(await rows(`select id from tags where id = ?`, tag.id)).toEqual([]);
    expect(await entityTagRows(tag.id)).toEqual([]);
    expect(await entityTagRows(keep.id)).toHaveLength(1);
  });

  it("answers 404 for an unknown tag and 400 for a bad id", async () => {
    const admin = await signInAdmin();
    await expectError(await call(`/api/tags/delete/${newId()}`, { method: "DELETE", bearer: admin.bearer }), 404);
    await expectError(await call(`/api/tags/delete/not-an-id`, { method: "DELETE", bearer: admin.bearer }), 400);
  });

  it("is for administrators only: an ordinary user gets 403 and nothing is removed", async () => {
    const user = await signIn();
    const tag = await createTag(user.bearer);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    await tagEntity(tag.id, assetId, "asset");
    await expectError(await call(`/api/tags/delete/${tag.id}`, { method: "DELETE", bearer: user.bearer }), 403);
    expect(await rows(`select id from tags where id = ?`, tag.id)).toHaveLength(1);
    expect(await entityTagRows(tag.id)).toHaveLength(1);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/tags/delete/${newId()}`, { method: "DELETE" }), 401);
  });
});

describe("POST /api/tags/attach and /detach, GET /api/tags/for-entity/{id}", () => {
  it("puts tags on own assets and groups, idempotently, and takes them off", async () => {
    const user = await signIn();
    const a = await createTag(user.bearer, uniqueName("А"));
    const b = await createTag(user.bearer, uniqueName("Б"));
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    const groupId = await insertGroup({ ownerId: user.id });
    const body = {
      tag_ids: [a.id, b.id],
      entities: [
        { id: assetId, type: "asset" },
        { id: groupId, type: "group" },
      ],
    };
    expect(await post("/api/tags/attach", user.bearer, body)).toEqual({ changed: 4 });
    expect(await post("/api/tags/attach", user.bearer, body)).toEqual({ changed: 0 });
    expect(await entityTagRows(a.id)).toEqual(
      [
        { entity_id: assetId, entity_type: "asset" },
        { entity_id: groupId, entity_type: "group" },
      ].sort((x, y) => x.entity_id.localeCompare(y.entity_id)),
    );
    expect(await get<Tag[]>(`/api/tags/for-entity/${assetId}`, user.bearer)).toEqual([
      { tag_id: a.id, tag_name: a.name },
      { tag_id: b.id, tag_name: b.name },
    ]);

    expect(await post("/api/tags/detach", user.bearer, { tag_ids: [a.id], entities: [{ id: assetId, type: "asset" }] })).toEqual({ changed: 1 });
    expect(await get<Tag[]>(`/api/tags/for-entity/${assetId}`, user.bearer)).toEqual([{ tag_id: b.id, tag_name: b.name }]);
    expect(await get<Tag[]>(`/api/tags/for-entity/${groupId}`, user.bearer)).toHaveLength(2);
  });

  it("lets an administrator tag anyone's entities", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const tag = await createTag(admin.bearer);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    expect(await post("/api/tags/attach", admin.bearer, { tag_ids: [tag.id], entities: [{ id: assetId, type: "asset" }] })).toEqual({ changed: 1 });
  });

  it("tags 500 entities in one request", async () => {
    const user = await signIn();
    const tag = await createTag(user.bearer);
    const groupId = await insertGroup({ ownerId: user.id });
    const entities = [{ id: groupId, type: "group" }];
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    entities.push({ id: assetId, type: "asset" });
    // Duplicates collapse; the limit is on the request size.
    while (entities.length < 500) entities.push({ id: assetId, type: "asset" });
    expect(await post("/api/tags/attach", user.bearer, { tag_ids: [tag.id], entities })).toEqual({ changed: 2 });
  });

  it("changes nothing when one tag or entity is unknown, or an entity has the wrong type (404)", async () => {
    const user = await signIn();
    const tag = await createTag(user.bearer);
    const { id: assetId } = await insertAsset({ ownerId: user.id });
    const groupId = await insertGroup({ ownerId: user.id });
    const cases = [
      { tag_ids: [tag.id, newId()], entities: [{ id: assetId, type: "asset" }] },
      { tag_ids: [tag.id], entities: [{ id: assetId, type: "asset" }, { id: newId(), type: "asset" }] },
      { tag_ids: [tag.id], entities: [{ id: assetId, type: "asset" }, { id: groupId, type: "asset" }] },
      { tag_ids: [tag.id], entities: [{ id: ROOT_GROUP_ID, type: "group" }] },
    ];
    for (const json of cases) await expectError(await call("/api/tags/attach", { method: "POST", bearer: user.bearer, json }), 404);
    expect(await entityTagRows(tag.id)).toEqual([]);
  });

  it("does not tag entities in the trash (404)", async () => {
    const user = await signIn();
    const tag = await createTag(user.bearer);
    const { id: assetId } = await insertAsset({ ownerId: user.id, deletedAt: Date.now() });
    await expectError(await call("/api/tags/attach", { method: "POST", bearer: user.bearer, json: { tag_ids: [tag.id], entities: [{ id: assetId, type: "asset" }] } }), 404);
  });

  it.each([
    ["no tags", { tag_ids: [], entities: [{ id: newId(), type: "asset" }] }],
    ["no entities", { tag_ids: [newId()], entities: [] }],
    ["a bad tag id", { tag_ids: ["x"], entities: [{ id: newId(), type: "asset" }] }],
    ["a bad entity type", { tag_ids: [newId()], entities: [{ id: newId(), type: "user" }] }],
    ["a bad entity id", { tag_ids: [newId()], entities: [{ id: "../x", type: "asset" }] }],
    ["too many entities", { tag_ids: [newId()], entities: Array.from({ length: 501 }, () => ({ id: newId(), type: "asset" })) }],
  ])("refuses %s (400)", async (_label, json) => {
    const user = await signIn();
    await expectError(await call("/api/tags/attach", { method: "POST", bearer: user.bearer, json }), 400);
    await expectError(await call("/api/tags/detach", { method: "POST", bearer: user.bearer, json }), 400);
  });

  it("security: an ordinary user cannot tag or untag another user's entities, not even mixed with own ones", async () => {
    const owner = await signIn();
    const intruder = await signIn();
    const tag = await createTag(owner.bearer);
    const { id: victimAsset } = await insertAsset({ ownerId: owner.id });
    const victimGroup = await insertGroup({ ownerId: owner.id });
    const { id: ownAsset } = await insertAsset({ ownerId: intruder.id });
    await tagEntity(tag.id, victimAsset, "asset");
    const before = await entityTagRows(tag.id);

    const attempts = [
      { tag_ids: [tag.id], entities: [{ id: victimGroup, type: "group" }] },
      { tag_ids: [tag.id], entities: [{ id: ownAsset, type: "asset" }, { id: victimGroup, type: "group" }] },
    ];
    for (const json of attempts) {
      const error = await expectError(await call("/api/tags/attach", { method: "POST", bearer: intruder.bearer, json }), 404);
      expect(error.message).toBe(ru.groups.notFound);
    }
    await expectError(
      await call("/api/tags/detach", { method: "POST", bearer: intruder.bearer, json: { tag_ids: [tag.id], entities: [{ id: victimAsset, type: "asset" }] } }),
      404,
    );
    expect(await entityTagRows(tag.id)).toEqual(before);
    await expectError(await call(`/api/tags/for-entity/${victimAsset}`, { bearer: intruder.bearer }), 404);
  });

  it("for-entity: 404 for an unknown id, 400 for a bad one", async () => {
    const user = await signIn();
    await expectError(await call(`/api/tags/for-entity/${newId()}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/tags/for-entity/xyz`, { bearer: user.bearer }), 400);
  });

  it("requires sign-in", async () => {
    const json = { tag_ids: [newId()], entities: [{ id: newId(), type: "asset" }] };
    await expectError(await call("/api/tags/attach", { method: "POST", json }), 401);
    await expectError(await call("/api/tags/detach", { method: "POST", json }), 401);
    await expectError(await call(`/api/tags/for-entity/${newId()}`), 401);
  });
});

describe("OpenAPI document", () => {
  it("lists every catalog endpoint", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected: [string, string][] = [
      ["get", "/api/tags/list"],
      ["post", "/api/tags/list-by-ids"],
      ["post", "/api/tags/list-by-filter"],
      ["post", "/api/tags/create"],
      ["patch", "/api/tags/change/{id}"],
      ["delete", "/api/tags/delete/{id}"],
      ["post", "/api/tags/attach"],
      ["post", "/api/tags/detach"],
      ["get", "/api/tags/for-entity/{id}"],
      ["post", "/api/storage/create"],
      ["get", "/api/storage/list"],
      ["patch", "/api/storage/update/{id}"],
      ["get", "/api/storage/usage/{id}"],
      ["get", "/api/storage/for-entity/{id}"],
      ["post", "/api/asset/class-by-ids"],
      ["post", "/api/asset/class/create"],
      ["patch", "/api/asset/class/change/{id}"],
      ["delete", "/api/asset/class/delete/{id}"],
      ["get", "/api/asset/class/list"],
      ["get", "/api/asset/preview-size"],
      ["post", "/api/asset/upload-preview/{id}"],
      ["get", "/api/asset/content/preview/{id}/{version}/{variant}"],
      ["post", "/api/asset/content/preview-by-list"],
      ["post", "/api/asset/content/preview-by-varlist"],
    ];
    for (const [method, path] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });
});
