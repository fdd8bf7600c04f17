import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { purgeAssets } from "../../workers/services/library/asset-content.service";
import { importMappedFields } from "../../workers/services/metadata/field-import.service";
import { exec, insertAsset, insertClass, insertGroup, insertVariant, rows, testContext } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { createTemplate, createValue, ok, type Template, type Value } from "./metadata-fixtures";

const count = async (query: string, ...binds: unknown[]) => Number((await rows<{ n: number }>(query, ...binds))[0].n);

describe("field templates", () => {
  it("creates, lists by name, fetches by ids, patches and deletes (administrators)", async () => {
    const admin = await signInAdmin();
    const created = await ok<Template>("/api/fields/template", admin.bearer, {
      json: {
        field_def_name: `Правообладатель ${newId().slice(-6)}`,
        field_type: "text",
        field_setup: { required: true, max_length: 200 },
        field_priority: 5,
        field_def_extsys: "XMP",
        field_def_extsys_key: "XMP.dc.rights",
      },
    });
    expect(created).toMatchObject({
      field_type: "text",
      field_priority: 5,
      field_def_extsys: "XMP",
      field_def_extsys_key: "XMP.dc.rights",
    });
    expect(created.field_setup).toEqual({ required: true, max_length: 200 });

    const byName = await ok<Template[]>(
      `/api/fields/templates?name=${encodeURIComponent(created.field_def_name.toUpperCase())}`,
      admin.bearer,
    );
    expect(byName.map((t) => t.field_def_id)).toEqual([created.field_def_id]);
    const byIds = await ok<Template[]>("/api/fields/templates-by-ids", admin.bearer, { json: { ids: [created.field_def_id, newId()] } });
    await expectError(await call("/api/fields/templates-by-ids", { method: "POST", bearer: admin.bearer, json: { ids: ["x"] } }), 400);
    expect(byIds.map((t) => t.field_def_id)).toEqual([created.field_def_id]);

    const patched = await ok<Template>(`/api/fields/template/${created.field_def_id}`, admin.bearer, {
      method: "PATCH",
      json: { field_priority: 1, field_setup: { options: ["A", "B"] }, field_def_extsys_key: null },
    });
    expect(patched).toMatchObject({ field_priority: 1, field_setup: { options: ["A", "B"] }, field_def_extsys_key: null });

    await ok(`/api/fields/template/${created.field_def_id}`, admin.bearer, { method: "DELETE" });
    expect(await count(`select count(*) as n from field_templates where id = ?`, created.field_def_id)).toBe(0);
  });

  it("refuses a bad setup, an unknown type, a duplicate name and a missing list source", async () => {
    const admin = await signInAdmin();
    const name = `Дубль ${newId().slice(-6)}`;
    await ok("/api/fields/template", admin.bearer, { json: { field_def_name: name, field_type: "number" } });
    const dup = await expectError(
      await call("/api/fields/template", {
        method: "POST",
        bearer: admin.bearer,
        json: { field_def_name: name.toLowerCase(), field_type: "text" },
      }),
      409,
    );
    expect(dup.message).toBe(ru.metadata.templateExists(name.toLowerCase()));
    const setup = await expectError(
      await call("/api/fields/template", {
        method: "POST",
        bearer: admin.bearer,
        json: { field_def_name: `x ${newId()}`, field_type: "number", field_setup: { min: 5, max: 1 } },
      }),
      400,
    );
    expect(setup.message).toMatch(/^Некорректные настройки поля/);
    await expectError(
      await call("/api/fields/template", {
        method: "POST",
        bearer: admin.bearer,
        json: { field_def_name: `x ${newId()}`, field_type: "color" },
      }),
      400,
    );
    const list = await expectError(
      await call("/api/fields/template", {
        method: "POST",
        bearer: admin.bearer,
        json: { field_def_name: `x ${newId()}`, field_type: "text", field_setup: { list_id: newId() } },
      }),
      404,
    );
    expect(list.message).toBe(ru.metadata.listNotFound);
  });

  it("refuses deleting a template in use unless forced; forced, removes its values and drops it from classes", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const classId = await insertClass(`Класс ${newId().slice(-6)}`, [template.field_def_id]);
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "значение" });

    const refused = await expectError(
      await call(`/api/fields/template/${template.field_def_id}`, { method: "DELETE", bearer: admin.bearer }),
      409,
    );
    expect(refused.message).toBe(ru.metadata.templateInUse(1, 1));
    expect(await count(`select count(*) as n from field_values where def_id = ?`, template.field_def_id)).toBe(1);

    const forced = await ok<{ values_removed: number }>(`/api/fields/template/${template.field_def_id}?force=true`, admin.bearer, {
      method: "DELETE",
    });
    expect(forced.values_removed).toBe(1);
    expect(await count(`select count(*) as n from field_values where def_id = ?`, template.field_def_id)).toBe(0);
    expect(await rows(`select def_fields from asset_classes where id = ?`, classId)).toEqual([{ def_fields: "[]" }]);
  });

  it("keeps the type while values exist", async () => {
    const admin = await signInAdmin();
    const template = await createTemplate(admin.bearer, "number");
    const { id: assetId } = await insertAsset({ ownerId: (await signIn()).id });
    await exec(
      `insert into field_values (id, entity_id, entity_type, def_id, data, value_num, ctime, mtime) values (?, ?, 'asset', ?, '1', 1, 0, 0)`,
      newId(),
      assetId,
      template.field_def_id,
    );
    const error = await expectError(
      await call(`/api/fields/template/${template.field_def_id}`, { method: "PATCH", bearer: admin.bearer, json: { field_type: "text" } }),
      409,
    );
    expect(error.message).toBe(ru.metadata.templateTypeLocked);
  });

  it("lets any signed-in user read templates but only administrators change them (403, nothing changed)", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const template = await createTemplate(admin.bearer, "bool");
    await ok<Template[]>("/api/fields/templates", user.bearer);
    await expectError(
      await call("/api/fields/template", { method: "POST", bearer: user.bearer, json: { field_def_name: "x", field_type: "bool" } }),
      403,
    );
    await expectError(
      await call(`/api/fields/template/${template.field_def_id}`, {
        method: "PATCH",
        bearer: user.bearer,
        json: { field_def_name: "взлом" },
      }),
      403,
    );
    await expectError(
      await call(`/api/fields/template/${template.field_def_id}?force=true`, { method: "DELETE", bearer: user.bearer }),
      403,
    );
    expect(await rows(`select name from field_templates where id = ?`, template.field_def_id)).toEqual([{ name: template.field_def_name }]);
    await expectError(await call("/api/fields/templates"), 401);
  });
});

describe("field values", () => {
  it("creates, reads with filters, changes and deletes values of an asset", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const person = await createTemplate(admin.bearer, "text", { multiple: true });
    const shot = await createTemplate(admin.bearer, "date");
    const { id: assetId, versionIds } = await insertAsset({ ownerId: owner.id, versions: 2 });

    const untimed = await createValue(owner.bearer, assetId, { def_id: shot.field_def_id, data: "2026-11-22" });
    expect(untimed).toMatchObject({ entity_id: assetId, entity_type: "asset", pts: null, field_data: "2026-11-22", asset_version: null });
    const onScreen = await createValue(owner.bearer, assetId, {
      def_id: person.field_def_id,
      data: "Анна",
      pts: [12, 47],
      asset_version_id: versionIds[1],
    });
    expect(onScreen).toMatchObject({ pts: [12, 47], asset_version: 2, asset_version_id: versionIds[1] });
    // SPEC §3 names a version by its number: asset_version alone, or both forms agreeing; the answer carries both.
    const byNumber = await ok<Value>(`/api/fields/create/${assetId}`, owner.bearer, {
      json: { def_id: person.field_def_id, data: "Вера", pts: [1, 2], asset_version_id: null, asset_version: 2 },
    });
    expect(byNumber).toMatchObject({ asset_version: 2, asset_version_id: versionIds[1] });
    const mismatch = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: person.field_def_id, data: "Вера", asset_version: 1, asset_version_id: versionIds[1] },
      }),
      400,
    );
    expect(mismatch.message).toContain("asset_version");
    await expectError(
      await call(`/api/fields/create/${assetId}`, { method: "POST", bearer: owner.bearer, json: { def_id: person.field_def_id, data: "x", asset_version_id: null, asset_version: 9 } }),
      404,
    );
    // SPEC §7 lists asset_version_id among the required fields: absent is a 400 naming it; null is the whole file.
    const absent = await expectError(
      await call(`/api/fields/create/${assetId}`, { method: "POST", bearer: owner.bearer, json: { def_id: person.field_def_id, data: "x" } }),
      400,
    );
    expect(absent.message).toContain("asset_version_id");
    // SPEC §5 sends the number as asset_version_id itself (issue 29); asset_version, when sent too, must agree.
    const specShaped = await ok<Value>(`/api/fields/create/${assetId}`, owner.bearer, {
      json: { def_id: person.field_def_id, data: "Глеб", pts: [3, 4], asset_version_id: 2 },
    });
    expect(specShaped).toMatchObject({ asset_version: 2, asset_version_id: versionIds[1] });
    for (const [json, status] of [
      [{ def_id: person.field_def_id, data: "x", asset_version_id: 9 }, 404],
      [{ def_id: person.field_def_id, data: "x", asset_version_id: 1, asset_version: 2 }, 400],
      [{ def_id: person.field_def_id, data: "x", asset_version_id: 0 }, 400],
      [{ def_id: person.field_def_id, data: "x", asset_version_id: 1.5 }, 400],
    ] as const) {
      await expectError(await call(`/api/fields/create/${assetId}`, { method: "POST", bearer: owner.bearer, json }), status);
    }
    // The change call moves a value to another version by number (its time range checked there).
    const moved = await ok<Value>(`/api/fields/change/${assetId}/${specShaped.field_id}`, owner.bearer, { method: "PATCH", json: { asset_version_id: 1 } });
    expect(moved).toMatchObject({ asset_version: 1, asset_version_id: versionIds[0], pts: [3, 4], field_data: "Глеб" });
    await expectError(await call(`/api/fields/change/${assetId}/${specShaped.field_id}`, { method: "PATCH", bearer: owner.bearer, json: { asset_version_id: 9 } }), 404);
    expect((await call(`/api/fields/delete/${assetId}/${specShaped.field_id}`, { method: "DELETE", bearer: owner.bearer })).ok).toBe(true);
    expect((await call(`/api/fields/delete/${assetId}/${byNumber.field_id}`, { method: "DELETE", bearer: owner.bearer })).ok).toBe(true);
    await createValue(owner.bearer, assetId, { def_id: person.field_def_id, data: "Борис", pts: [50, 60] });

    const all = await ok<Value[]>(`/api/fields/for-entity/${assetId}`, owner.bearer);
    expect(all).toHaveLength(3);
    const at20 = await ok<Value[]>(`/api/fields/for-entity/${assetId}?pts=20`, owner.bearer);
    expect(at20.map((v) => v.field_data)).toEqual(["Анна"]);
    const range = await ok<Value[]>(`/api/fields/for-entity/${assetId}?range=40,55`, owner.bearer);
    expect(range.map((v) => v.field_data).sort()).toEqual(["Анна", "Борис"]);
    const v1 = await ok<Value[]>(`/api/fields/for-entity/${assetId}?version=1`, owner.bearer);
    expect(v1.map((v) => v.field_data).sort()).toEqual(["2026-11-22", "Борис"]);
    for (const query of ["range=5,3", "range=abc", "pts=-1", "defs=not-an-id", "version=0"]) {
      await expectError(await call(`/api/fields/for-entity/${assetId}?${query}`, { bearer: owner.bearer }), 400);
    }
    await expectError(await call(`/api/fields/for-entity/${newId()}`, { bearer: owner.bearer }), 404);
    const defs = await ok<Value[]>(`/api/fields/for-entity/${assetId}?defs=${shot.field_def_id}`, owner.bearer);
    expect(defs.map((v) => v.field_id)).toEqual([untimed.field_id]);

    const changed = await ok<Value>(`/api/fields/change/${assetId}/${onScreen.field_id}`, owner.bearer, {
      method: "PATCH",
      json: { data: "Анна К.", pts: [10, 20] },
    });
    expect(changed).toMatchObject({ field_data: "Анна К.", pts: [10, 20] });
    await ok(`/api/fields/delete/${assetId}/${onScreen.field_id}`, owner.bearer, { method: "DELETE" });
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(2);
  });

  it("holds values on groups too", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "number", { min: 0 });
    const groupId = await insertGroup({ ownerId: owner.id });
    await createValue(owner.bearer, groupId, { def_id: template.field_def_id, data: 7 });
    expect((await ok<Value[]>(`/api/fields/for-entity/${groupId}`, owner.bearer))[0]).toMatchObject({
      entity_type: "group",
      field_data: 7,
    });
  });

  it.each([
    ["a number field given text", "number", {}, "сорок", ru.metadata.numberExpected],
    ["a date that is not ISO 8601", "date", {}, "22.11.2026", ru.metadata.dateExpected],
    ["a url with javascript:", "url", {}, "javascript:alert(document.cookie)", ru.metadata.urlScheme],
    ["a region outside the frame", "region", {}, { x: 0.9, y: 0, w: 0.5, h: 0.5 }, ru.metadata.regionBounds],
    [
      "a struct with an unknown member",
      "struct",
      { members: [{ key: "role", name: "Роль", type: "text" }] },
      { role: "x", extra: 1 },
      ru.metadata.structUnknownMember("extra"),
    ],
    [
      "a struct missing a required member",
      "struct",
      { members: [{ key: "role", name: "Роль", type: "text", required: true }] },
      {},
      ru.metadata.structMissingMember("Роль"),
    ],
    ["a text outside the options", "text", { options: ["A"] }, "B", ru.metadata.notAnOption],
  ])("refuses %s (400) and stores nothing", async (_label, type, setup, data, message) => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, type, setup);
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    const error = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: template.field_def_id, asset_version_id: null, data },
      }),
      400,
    );
    expect(error.message).toBe(ru.metadata.invalidValue(template.field_def_name, message));
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(0);
  });

  it("refuses an unknown def_id (404), missing required keys (400) and an unknown version (404)", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const { id: assetId } = await insertAsset({ ownerId: owner.id, versions: 1 });
    const unknown = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: newId(), asset_version_id: null, data: "x" },
      }),
      404,
    );
    expect(unknown.message).toBe(ru.metadata.templateNotFound);
    for (const json of [
      { asset_version_id: null, data: "x" },
      { def_id: template.field_def_id, asset_version_id: null },
      { def_id: template.field_def_id, asset_version: "1", data: "x" },
      { def_id: template.field_def_id, asset_version: 0, data: "x" },
    ]) {
      await expectError(await call(`/api/fields/create/${assetId}`, { method: "POST", bearer: owner.bearer, json }), 400);
    }
    const version = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: template.field_def_id, asset_version_id: newId(), data: "x" },
      }),
      404,
    );
    expect(version.message).toBe(ru.metadata.versionNotFound);
  });

  it.each([
    ["start after end", [5, 3], ru.metadata.ptsOrder],
    ["a negative start", [-1, 3], ru.metadata.ptsNegative],
    ["an end beyond the duration", [10, 120.5], ru.metadata.ptsBeyond(120)],
  ])("refuses pts with %s (400)", async (_label, pts, message) => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const { id: assetId, versionIds } = await insertAsset({ ownerId: owner.id, versions: 1 });
    const variantId = await insertVariant({ assetId, versionId: versionIds[0], ownerId: owner.id });
    await exec(`update variants set tech_props = '{"duration":120}' where id = ?`, variantId);
    const error = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: template.field_def_id, asset_version_id: null, data: "x", pts },
      }),
      400,
    );
    expect(error.message).toBe(ru.metadata.invalidPts(message));
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "x", pts: [0, 120] });
  });

  it("refuses a second untimed value of a single-valued field (409)", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "первое" });
    const error = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: template.field_def_id, asset_version_id: null, data: "второе" },
      }),
      409,
    );
    expect(error.message).toBe(ru.metadata.notMultiple(template.field_def_name));
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "на отрезке", pts: [1, 2] });
  });

  it("checks references: they must exist and be readable by the caller", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const assetRef = await createTemplate(admin.bearer, "asset");
    const userRef = await createTemplate(admin.bearer, "user");
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    const { id: ownOther } = await insertAsset({ ownerId: owner.id });
    const { id: foreign } = await insertAsset({ ownerId: stranger.id });
    await createValue(owner.bearer, assetId, { def_id: assetRef.field_def_id, data: ownOther });
    await createValue(owner.bearer, assetId, { def_id: userRef.field_def_id, data: owner.id });
    for (const [template, data] of [
      [assetRef, foreign],
      [assetRef, newId()],
      [userRef, newId()],
    ] as const) {
      await exec(`delete from field_values where entity_id = ? and def_id = ?`, assetId, template.field_def_id);
      const error = await expectError(
        await call(`/api/fields/create/${assetId}`, {
          method: "POST",
          bearer: owner.bearer,
          json: { def_id: template.field_def_id, asset_version_id: null, data },
        }),
        400,
      );
      expect(error.message).toBe(ru.metadata.refNotFound(template.field_def_name));
    }
  });

  it("refuses a list reference to a missing record (400)", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const { list_id } = await ok<{ list_id: string }>("/api/lists/create", admin.bearer, { json: { name: `Языки ${newId().slice(-6)}` } });
    await ok(`/api/lists/record/${list_id}`, admin.bearer, { method: "PUT", json: { rec_id: "ru", rec_data: { label: "Русский" } } });
    const template = await createTemplate(admin.bearer, "text", { list_id });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "ru" });
    await exec(`delete from field_values where entity_id = ?`, assetId);
    const error = await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: template.field_def_id, asset_version_id: null, data: "xx" },
      }),
      400,
    );
    expect(error.message).toBe(ru.metadata.listRecordMissing(template.field_def_name, "xx"));
  });

  it("needs read to see values and update to change them; nothing changes on refusal", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const template = await createTemplate(admin.bearer, "text", { multiple: true });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    const value = await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "секрет" });
    await expectError(await call(`/api/fields/for-entity/${assetId}`, { bearer: stranger.bearer }), 404);
    await expectError(
      await call(`/api/fields/create/${assetId}`, {
        method: "POST",
        bearer: stranger.bearer,
        json: { def_id: template.field_def_id, asset_version_id: null, data: "x" },
      }),
      404,
    );
    await expectError(
      await call(`/api/fields/change/${assetId}/${value.field_id}`, { method: "PATCH", bearer: stranger.bearer, json: { data: "x" } }),
      404,
    );
    await expectError(await call(`/api/fields/delete/${assetId}/${value.field_id}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    expect(await rows(`select data from field_values where entity_id = ?`, assetId)).toEqual([{ data: '"секрет"' }]);
    await expectError(await call(`/api/fields/for-entity/${assetId}`), 401);
    // An administrator reads and changes anyone's values.
    await ok(`/api/fields/change/${assetId}/${value.field_id}`, admin.bearer, { method: "PATCH", json: { data: "изменено" } });
    await expectError(
      await call(`/api/fields/change/${assetId}/${newId()}`, { method: "PATCH", bearer: owner.bearer, json: { data: "x" } }),
      404,
    );
  });
});

describe("events", () => {
  it("appends field.changed in the batch of each change: create, change, delete and bulk set", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "number");
    const { id: a1 } = await insertAsset({ ownerId: owner.id });
    const { id: a2 } = await insertAsset({ ownerId: owner.id });
    const value = await createValue(owner.bearer, a1, { def_id: template.field_def_id, data: 1 });
    await ok(`/api/fields/change/${a1}/${value.field_id}`, owner.bearer, { method: "PATCH", json: { data: 2 } });
    await ok(`/api/fields/delete/${a1}/${value.field_id}`, owner.bearer, { method: "DELETE" });
    await ok("/api/fields/bulk-set", owner.bearer, { json: { def_id: template.field_def_id, entity_ids: [a1, a2], data: 3 } });
    const events = await rows<{ entity_id: string; data: string; actor_id: string; owner_id: string }>(
      `select entity_id, data, actor_id, owner_id from global_events where type = 'field.changed' and entity_id in (?, ?) order by seq`,
      a1,
      a2,
    );
    const seen = events.map((e) => [e.entity_id, JSON.parse(e.data).value]);
    expect(seen.slice(0, 3)).toEqual([
      [a1, 1],
      [a1, 2],
      [a1, null],
    ]);
    expect(seen.slice(3).sort()).toEqual(
      [
        [a1, 3],
        [a2, 3],
      ].sort(),
    );
    expect(
      events.every((e) => e.actor_id === owner.id && e.owner_id === owner.id && JSON.parse(e.data).def_id === template.field_def_id),
    ).toBe(true);
    // A refused change leaves no event.
    await call(`/api/fields/create/${a1}`, {
      method: "POST",
      bearer: owner.bearer,
      json: { def_id: template.field_def_id, asset_version_id: null, data: "x" },
    });
    expect(await count(`select count(*) as n from global_events where type = 'field.changed' and entity_id = ?`, a1)).toBe(4);
  });
});

describe("purge", () => {
  it("removes an asset's field values and taxa memberships with the asset", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "уйдёт" });
    const tree = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${"f".repeat(32)}`, admin.bearer, {
      json: { path: `Чистка ${newId().slice(-6)}` },
    });
    await ok(`/api/taxonomy/add-member/${tree.taxon_id}`, owner.bearer, { json: { objectId: assetId } });
    expect((await purgeAssets(testContext(), [assetId])).assets).toBe(1);
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(0);
    expect(await count(`select count(*) as n from taxon_members where object_id = ?`, assetId)).toBe(0);
  });
});

describe("access rules", () => {
  it("follows rules: read lets a user see and find values, update lets them change values; without them nothing", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const reader = await signIn();
    const editor = await signIn();
    const template = await createTemplate(admin.bearer, "text", { multiple: true });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "общее" });
    const grant = async (subj: string, acl: string[]) => {
      const res = await call("/api/user/acl", { method: "POST", bearer: admin.bearer, json: { subj, obj: assetId, acl } });
      expect(res.status, await res.clone().text()).toBe(201);
    };
    await grant(reader.id, ["read"]);
    await grant(editor.id, ["read", "update"]);

    expect((await ok<Value[]>(`/api/fields/for-entity/${assetId}`, reader.bearer)).map((v) => v.field_data)).toEqual(["общее"]);
    const found = await ok<{ entity_id: string }[]>("/api/fields/entities-by-field", reader.bearer, {
      json: { def_id: template.field_def_id, condition: { op: "eq", value: "Общее" } },
    });
    expect(found.map((e) => e.entity_id)).toEqual([assetId]);
    const refused = await call(`/api/fields/create/${assetId}`, {
      method: "POST",
      bearer: reader.bearer,
      json: { def_id: template.field_def_id, asset_version_id: null, data: "чужое" },
    });
    await expectError(refused, 403);
    await expectError(
      await call("/api/fields/bulk-set", {
        method: "POST",
        bearer: reader.bearer,
        json: { def_id: template.field_def_id, entity_ids: [assetId], data: "x" },
      }),
      403,
    );
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(1);

    await createValue(editor.bearer, assetId, { def_id: template.field_def_id, data: "от редактора" });
    await ok("/api/fields/bulk-set", editor.bearer, {
      json: { def_id: template.field_def_id, entity_ids: [assetId], data: "пакет", mode: "add" },
    });
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(3);
  });
});

describe("classes and required fields", () => {
  it("refuses def_fields naming unknown templates (404)", async () => {
    const admin = await signInAdmin();
    const error = await expectError(
      await call("/api/asset/class/create", {
        method: "POST",
        bearer: admin.bearer,
        json: { name: `К ${newId().slice(-6)}`, def_fields: [newId()] },
      }),
      404,
    );
    expect(error.message).toBe(ru.metadata.templatesNotFound);
  });

  it("enforces required fields when an asset's class changes (PATCH and apply) and when the last value is deleted", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const required = await createTemplate(admin.bearer, "text", { required: true });
    const optional = await createTemplate(admin.bearer, "number");
    const { id: classId } = await ok<{ id: string }>("/api/asset/class/create", admin.bearer, {
      json: { name: `Интервью ${newId().slice(-6)}`, def_fields: [required.field_def_id, optional.field_def_id] },
    });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });

    const refused = await expectError(
      await call(`/api/asset/${assetId}`, { method: "PATCH", bearer: owner.bearer, json: { asset_class: classId } }),
      400,
    );
    expect(refused.message).toBe(ru.metadata.requiredMissing(`«${required.field_def_name}»`));
    expect(await rows(`select class_id from assets where id = ?`, assetId)).toEqual([{ class_id: null }]);
    const applyRefused = await expectError(
      await call(`/api/fields/apply/${assetId}`, {
        method: "POST",
        bearer: owner.bearer,
        json: { asset_class: classId, values: [{ def_id: optional.field_def_id, data: 1 }] },
      }),
      400,
    );
    expect(applyRefused.message).toBe(ru.metadata.requiredMissing(`«${required.field_def_name}»`));
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(0);

    const applied = await ok<Value[]>(`/api/fields/apply/${assetId}`, owner.bearer, {
      json: {
        asset_class: classId,
        values: [
          { def_id: required.field_def_id, data: "Иван" },
          { def_id: optional.field_def_id, data: 3 },
        ],
      },
    });
    expect(applied.map((v) => v.field_data).sort()).toEqual([3, "Иван"]);
    expect(await rows(`select class_id from assets where id = ?`, assetId)).toEqual([{ class_id: classId }]);

    const value = applied.find((v) => v.def_id === required.field_def_id)!;
    const lastOne = await expectError(
      await call(`/api/fields/delete/${assetId}/${value.field_id}`, { method: "DELETE", bearer: owner.bearer }),
      409,
    );
    expect(lastOne.message).toBe(ru.metadata.requiredValue(required.field_def_name));
    // Replacing the value in one apply is fine; PATCH with the class set and filled passes too.
    await ok(`/api/fields/apply/${assetId}`, owner.bearer, {
      json: { remove: [value.field_id], values: [{ def_id: required.field_def_id, data: "Пётр" }] },
    });
    await ok(`/api/asset/${assetId}`, owner.bearer, { method: "PATCH", json: { asset_class: classId } });
  });

  it("refuses apply by a caller without update (404/403) and changes nothing", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const template = await createTemplate(admin.bearer, "text");
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await expectError(
      await call(`/api/fields/apply/${assetId}`, {
        method: "POST",
        bearer: stranger.bearer,
        json: { values: [{ def_id: template.field_def_id, data: "x" }] },
      }),
      404,
    );
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(0);
  });
});

describe("entities-by-field and bulk set", () => {
  it("finds entities by equality, range and prefix, only among those the caller may see", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const other = await signIn();
    const shot = await createTemplate(admin.bearer, "date");
    const city = await createTemplate(admin.bearer, "text");
    const { id: a1 } = await insertAsset({ ownerId: owner.id });
    const { id: a2 } = await insertAsset({ ownerId: owner.id });
    const { id: foreign } = await insertAsset({ ownerId: other.id });
    await createValue(owner.bearer, a1, { def_id: shot.field_def_id, data: "2026-03-01" });
    await createValue(owner.bearer, a2, { def_id: shot.field_def_id, data: "2025-03-01" });
    await createValue(other.bearer, foreign, { def_id: shot.field_def_id, data: "2026-04-01" });
    await createValue(owner.bearer, a1, { def_id: city.field_def_id, data: "Москва" });

    const find = (bearer: string, condition: unknown, def_id = shot.field_def_id) =>
      ok<{ entity_id: string }[]>("/api/fields/entities-by-field", bearer, { json: { def_id, condition } });
    expect((await find(owner.bearer, { op: "range", min: "2026-01-01", max: "2026-12-31" })).map((e) => e.entity_id)).toEqual([a1]);
    expect((await find(admin.bearer, { op: "range", min: "2026-01-01" })).map((e) => e.entity_id).sort()).toEqual([a1, foreign].sort());
    expect((await find(owner.bearer, { op: "eq", value: "2025-03-01" })).map((e) => e.entity_id)).toEqual([a2]);
    expect((await find(owner.bearer, { op: "eq", value: "москва" }, city.field_def_id)).map((e) => e.entity_id)).toEqual([a1]);
    expect((await find(owner.bearer, { op: "prefix", value: "МОС" }, city.field_def_id)).map((e) => e.entity_id)).toEqual([a1]);

    const timed = await call("/api/fields/entities-by-field", {
      method: "POST",
      bearer: admin.bearer,
      json: { def_id: shot.field_def_id, condition: { op: "eq", value: "2025-03-01" } },
    });
    // The route's own SQL timing leads; the request-wide db/total entries follow it.
    expect(timed.headers.get("server-timing")).toMatch(/^sql;dur=\d+(\.\d+)?, db;dur=[\d.]+;desc="\d+ round trips?/);
    const bad = await expectError(
      await call("/api/fields/entities-by-field", {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: city.field_def_id, condition: { op: "range", min: 1 } },
      }),
      400,
    );
    expect(bad.message).toBe(ru.metadata.conditionType);
    await expectError(
      await call("/api/fields/entities-by-field", {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: newId(), condition: { op: "eq", value: 1 } },
      }),
      404,
    );
  });

  it("sets a field on many assets in one batch, replacing single values; all or nothing", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const rights = await createTemplate(admin.bearer, "text");
    const ids = await Promise.all([1, 2, 3].map(async () => (await insertAsset({ ownerId: owner.id })).id));
    await createValue(owner.bearer, ids[0], { def_id: rights.field_def_id, data: "старое" });

    const result = await ok<{ changed: number }>("/api/fields/bulk-set", owner.bearer, {
      json: { def_id: rights.field_def_id, entity_ids: ids, data: "ООО «Студия»" },
    });
    expect(result.changed).toBe(3);
    expect(await rows(`select data from field_values where def_id = ? order by entity_id`, rights.field_def_id)).toEqual(
      ids.map(() => ({ data: JSON.stringify("ООО «Студия»") })),
    );

    const { id: foreign } = await insertAsset({ ownerId: stranger.id });
    await expectError(
      await call("/api/fields/bulk-set", {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: rights.field_def_id, entity_ids: [...ids, foreign], data: "новое" },
      }),
      404,
    );
    await expectError(
      await call("/api/fields/bulk-set", {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: rights.field_def_id, entity_ids: ids, data: 42 },
      }),
      400,
    );
    expect(
      await count(
        `select count(*) as n from field_values where def_id = ? and data = ?`,
        rights.field_def_id,
        JSON.stringify("ООО «Студия»"),
      ),
    ).toBe(3);
    await expectError(
      await call("/api/fields/bulk-set", {
        method: "POST",
        bearer: owner.bearer,
        json: { def_id: rights.field_def_id, entity_ids: Array.from({ length: 1001 }, () => newId()), data: "x" },
      }),
      400,
    );
  });
});

describe("importMappedFields", () => {
  it("imports technical metadata into fields mapped by field_def_extsys_key, converting types and skipping misfits", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const suffix = newId().slice(-6);
    const creator = await createTemplate(
      admin.bearer,
      "text",
      {},
      { field_def_extsys: "XMP", field_def_extsys_key: `XMP.dc.creator${suffix}` },
    );
    const shot = await createTemplate(
      admin.bearer,
      "date",
      {},
      { field_def_extsys: "EXIF", field_def_extsys_key: `EXIF:DateTimeOriginal${suffix}` },
    );
    const iso = await createTemplate(
      admin.bearer,
      "number",
      { min: 50 },
      { field_def_extsys: "EXIF", field_def_extsys_key: `EXIF:ISO${suffix}` },
    );
    const { id: assetId } = await insertAsset({ ownerId: owner.id, versions: 1 });
    // Nested objects are reached through dotted paths; lists give their first item to a single-valued field.
    const tech = {
      XMP: { dc: { [`creator${suffix}`]: ["Анна Смирнова", "Второй автор"] } },
      [`EXIF:DateTimeOriginal${suffix}`]: "2026:11:22 10:15:00",
      [`EXIF:ISO${suffix}`]: "25",
    };
    const report = await importMappedFields(testContext(), assetId, 1, tech);
    expect(report.imported.map((i) => i.def_id).sort()).toEqual([creator.field_def_id, shot.field_def_id].sort());
    expect(report.skipped).toEqual([
      {
        def_id: iso.field_def_id,
        key: iso.field_def_extsys_key,
        reason: ru.metadata.invalidValue(iso.field_def_name, ru.metadata.belowMin("50")),
      },
    ]);
    const values = await ok<Value[]>(`/api/fields/for-entity/${assetId}`, owner.bearer);
    expect(values.map((v) => [v.def_id, v.field_data, v.asset_version])).toEqual(
      expect.arrayContaining([
        [creator.field_def_id, "Анна Смирнова", 1],
        [shot.field_def_id, "2026-11-22", 1],
      ]),
    );
    // A re-run replaces instead of duplicating.
    await importMappedFields(testContext(), assetId, 1, tech);
    expect(await count(`select count(*) as n from field_values where entity_id = ?`, assetId)).toBe(2);
  });
});
