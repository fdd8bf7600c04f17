import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { exec, insertAsset, insertClass, insertGroup, rows, uniqueName } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";

interface ClassJson {
  id: string;
  name: string;
  def_fields: string[];
}

async function createClass(bearer: string, json: Record<string, unknown> = {}) {
  const name = (json.name as string) ?? uniqueName("Класс");
  const res = await call("/api/asset/class/create", { method: "POST", bearer, json: { name, ...json } });
  const body = (await res.json()) as { id: string; name: string; def_fields: string[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { id: body.id, name, answer: body };
}

/** Field templates written straight into D1: a class's def_fields must name existing templates. */
async function templateIds(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId());
  for (const id of ids) {
    await exec(
      `insert into field_templates (id, name, field_type, setup, priority, ctime, mtime) values (?, ?, 'text', '{}', 0, 0, 0)`,
      id,
      `Поле ${id}`,
    );
  }
  return ids;
}

const classRow = (id: string) => rows(`select name, def_fields from asset_classes where id = ?`, id).then((r) => r[0]);

describe("POST /api/asset/class/create", () => {
  it("lets an administrator add a class with its fields (duplicates dropped, order kept)", async () => {
    const admin = await signInAdmin();
    const [f1, f2] = await templateIds(2);
    const { id, name, answer } = await createClass(admin.bearer, { def_fields: [f2, f1, f2] });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    // SPEC §3 Asset class: the answer is the whole class.
    expect(answer).toEqual({ id, name, def_fields: [f2, f1] });
    expect(await classRow(id)).toEqual({ name, def_fields: JSON.stringify([f2, f1]) });
  });

  it("defaults to no fields", async () => {
    const admin = await signInAdmin();
    const { id } = await createClass(admin.bearer);
    expect((await classRow(id)).def_fields).toBe("[]");
  });

  it("refuses a name taken case-insensitively (409)", async () => {
    const admin = await signInAdmin();
    const { name } = await createClass(admin.bearer, { name: uniqueName("Интервью") });
    const error = await expectError(
      await call("/api/asset/class/create", { method: "POST", bearer: admin.bearer, json: { name: name.toUpperCase() } }),
      409,
    );
    expect(error.message).toBe(ru.catalog.classExists(name.toUpperCase()));
    expect(await rows(`select id from asset_classes where name = ?`, name.toUpperCase())).toEqual([]);
  });

  it.each([
    ["no name", {}],
    ["an empty name", { name: "" }],
    ["a 10,000-character name", { name: "к".repeat(10_000) }],
    ["a control character", { name: "a\u0000b" }],
    ["bad field ids", { name: "x", def_fields: ["field-1"] }],
    ["fields that are not a list", { name: "x", def_fields: "abc" }],
    ["too many fields", { name: "x", def_fields: Array.from({ length: 201 }, () => newId()) }],
  ])("refuses %s (400)", async (_label, json) => {
    const admin = await signInAdmin();
    await expectError(await call("/api/asset/class/create", { method: "POST", bearer: admin.bearer, json }), 400);
  });

  it("security: an ordinary user gets 403 and no class is added", async () => {
    const user = await signIn();
    const name = uniqueName("Чужой");
    const error = await expectError(await call("/api/asset/class/create", { method: "POST", bearer: user.bearer, json: { name } }), 403);
    expect(error.message).toBe(ru.catalog.adminOnly);
    expect(await rows(`select id from asset_classes where name = ?`, name)).toEqual([]);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/asset/class/create", { method: "POST", json: { name: "x" } }), 401);
  });
});

describe("GET /api/asset/class/list and POST /api/asset/class-by-ids", () => {
  it("lists classes by name for any signed-in user, with paging", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const [field] = await templateIds(1);
    const b = await createClass(admin.bearer, { name: `Б-класс ${newId().slice(-6)}`, def_fields: [field] });
    const a = await createClass(admin.bearer, { name: `а-класс ${newId().slice(-6)}` });
    const list = (await (await call("/api/asset/class/list?take=1000", { bearer: user.bearer })).json()) as ClassJson[];
    const ours = list.filter((c) => c.id === a.id || c.id === b.id);
    expect(ours).toEqual([
      { id: a.id, name: a.name, def_fields: [] },
      { id: b.id, name: b.name, def_fields: [field] },
    ]);
    const first = (await (await call("/api/asset/class/list?take=1", { bearer: user.bearer })).json()) as ClassJson[];
    const second = (await (await call("/api/asset/class/list?skip=1&take=1", { bearer: user.bearer })).json()) as ClassJson[];
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(first[0].id).not.toBe(second[0].id);
  });

  it("answers the known classes among the ids", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const a = await createClass(admin.bearer);
    const res = await call("/api/asset/class-by-ids", { method: "POST", bearer: user.bearer, json: { ids: [a.id, newId(), a.id] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ id: a.id, name: a.name, def_fields: [] }]);
    expect(await (await call("/api/asset/class-by-ids", { method: "POST", bearer: user.bearer, json: { ids: [] } })).json()).toEqual([]);
  });

  it("refuses bad ids and paging (400)", async () => {
    const user = await signIn();
    await expectError(await call("/api/asset/class-by-ids", { method: "POST", bearer: user.bearer, json: { ids: ["nope"] } }), 400);
    await expectError(await call("/api/asset/class-by-ids", { method: "POST", bearer: user.bearer, json: {} }), 400);
    await expectError(await call("/api/asset/class/list?take=0", { bearer: user.bearer }), 400);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/asset/class/list"), 401);
    await expectError(await call("/api/asset/class-by-ids", { method: "POST", json: { ids: [] } }), 401);
  });
});

describe("PATCH /api/asset/class/change/{id}", () => {
  it("renames a class and replaces its fields", async () => {
    const admin = await signInAdmin();
    const { id } = await createClass(admin.bearer, { def_fields: await templateIds(1) });
    const name = uniqueName("Переименованный");
    const fields = await templateIds(2);
    const res = await call(`/api/asset/class/change/${id}`, { method: "PATCH", bearer: admin.bearer, json: { name, def_fields: fields } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id, name, def_fields: fields });
    const onlyFields = await call(`/api/asset/class/change/${id}`, { method: "PATCH", bearer: admin.bearer, json: { def_fields: [] } });
    expect(await onlyFields.json()).toEqual({ id, name, def_fields: [] });
    expect(await classRow(id)).toEqual({ name, def_fields: "[]" });
  });

  it("refuses another class's name (409), unknown id (404), bad input (400)", async () => {
    const admin = await signInAdmin();
    const a = await createClass(admin.bearer);
    const b = await createClass(admin.bearer);
    await expectError(
      await call(`/api/asset/class/change/${b.id}`, { method: "PATCH", bearer: admin.bearer, json: { name: a.name.toLowerCase() } }),
      409,
    );
    expect((await classRow(b.id)).name).toBe(b.name);
    await expectError(
      await call(`/api/asset/class/change/${newId()}`, { method: "PATCH", bearer: admin.bearer, json: { name: "x" } }),
      404,
    );
    await expectError(await call(`/api/asset/class/change/1`, { method: "PATCH", bearer: admin.bearer, json: { name: "x" } }), 400);
    await expectError(await call(`/api/asset/class/change/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: {} }), 400);
    await expectError(await call(`/api/asset/class/change/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { name: "" } }), 400);
  });

  it("security: an ordinary user gets 403 and the class stays", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id } = await createClass(admin.bearer);
    const before = await classRow(id);
    await expectError(
      await call(`/api/asset/class/change/${id}`, { method: "PATCH", bearer: user.bearer, json: { name: "Взлом", def_fields: [] } }),
      403,
    );
    expect(await classRow(id)).toEqual(before);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/asset/class/change/${newId()}`, { method: "PATCH", json: { name: "x" } }), 401);
  });
});

describe("DELETE /api/asset/class/delete/{id}", () => {
  it("deletes an unused class", async () => {
    const admin = await signInAdmin();
    const { id } = await createClass(admin.bearer);
    const res = await call(`/api/asset/class/delete/${id}`, { method: "DELETE", bearer: admin.bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id });
    expect(await rows(`select id from asset_classes where id = ?`, id)).toEqual([]);
  });

  it("refuses while assets (trash included) or groups use it, naming how many (409)", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const id = await insertClass(uniqueName("Занятый"));
    await insertAsset({ ownerId: user.id, classId: id });
    await insertAsset({ ownerId: user.id, classId: id, deletedAt: Date.now() });
    await insertGroup({ ownerId: user.id, defaultClass: id });
    const error = await expectError(await call(`/api/asset/class/delete/${id}`, { method: "DELETE", bearer: admin.bearer }), 409);
    expect(error.message).toBe(ru.catalog.classInUse(2, 1));
    expect(error.message).toContain("2 файла и 1 папка");
    expect(await rows(`select id from asset_classes where id = ?`, id)).toHaveLength(1);

    await exec(`update assets set class_id = null where class_id = ?`, id);
    const groupOnly = await expectError(await call(`/api/asset/class/delete/${id}`, { method: "DELETE", bearer: admin.bearer }), 409);
    expect(groupOnly.message).toBe(ru.catalog.classInUse(0, 1));
    await exec(`update groups set default_class = null where default_class = ?`, id);
    expect((await call(`/api/asset/class/delete/${id}`, { method: "DELETE", bearer: admin.bearer })).status).toBe(200);
  });

  it("answers 404 for an unknown class and 400 for a bad id", async () => {
    const admin = await signInAdmin();
    await expectError(await call(`/api/asset/class/delete/${newId()}`, { method: "DELETE", bearer: admin.bearer }), 404);
    await expectError(await call(`/api/asset/class/delete/xx`, { method: "DELETE", bearer: admin.bearer }), 400);
  });

  it("security: an ordinary user gets 403 and the class stays", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const { id } = await createClass(admin.bearer);
    await expectError(await call(`/api/asset/class/delete/${id}`, { method: "DELETE", bearer: user.bearer }), 403);
    expect(await rows(`select id from asset_classes where id = ?`, id)).toHaveLength(1);
  });

  it("requires sign-in", async () => {
    await expectError(await call(`/api/asset/class/delete/${newId()}`, { method: "DELETE" }), 401);
  });
});
