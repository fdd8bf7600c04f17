import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { insertAsset, rows } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { createTemplate, createValue, ok } from "./metadata-fixtures";

interface Rec {
  list_id: string;
  rec_id: string;
  rec_data: Record<string, unknown>;
}

async function newList(bearer: string, name = `Список ${newId().slice(-6)}`) {
  return (await ok<{ list_id: string }>("/api/lists/create", bearer, { json: { name } })).list_id;
}

describe("lists", () => {
  it("creates a list, fills it, answers records by list and by (list_id, rec_id) pairs", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const languages = await newList(admin.bearer);
    const countries = await newList(admin.bearer);
    await ok(`/api/lists/record/${languages}`, admin.bearer, { method: "PUT", json: { rec_id: "ru", rec_data: { label: "Русский" } } });
    await ok(`/api/lists/record/${languages}`, admin.bearer, {
      method: "PUT",
      json: { rec_id: "en", rec_data: { label: "Английский", code3: "eng" } },
    });
    await ok(`/api/lists/record/${countries}`, admin.bearer, { method: "PUT", json: { rec_id: "RU", rec_data: { label: "Россия" } } });
    // Replacing keeps the position.
    await ok(`/api/lists/record/${languages}`, admin.bearer, {
      method: "PUT",
      json: { rec_id: "ru", rec_data: { label: "Русский язык" } },
    });

    const records = await ok<Rec[]>(`/api/lists/records/${languages}`, user.bearer);
    expect(records).toEqual([
      { list_id: languages, rec_id: "ru", rec_data: { label: "Русский язык" } },
      { list_id: languages, rec_id: "en", rec_data: { label: "Английский", code3: "eng" } },
    ]);
    const pairs = await ok<Rec[]>("/api/lists/records", user.bearer, {
      json: {
        pairs: [
          { list_id: languages, rec_id: "en" },
          { list_id: countries, rec_id: "RU" },
          { list_id: countries, rec_id: "ru" },
          { list_id: newId(), rec_id: "en" },
        ],
      },
    });
    expect(pairs.map((r) => [r.list_id, r.rec_id])).toEqual(
      [
        [languages, "en"],
        [countries, "RU"],
      ].sort((a, b) => a[0].localeCompare(b[0])),
    );
    const all = await ok<{ list_id: string; count: number }[]>("/api/lists/list", user.bearer);
    expect(all.find((l) => l.list_id === languages)?.count).toBe(2);
    await expectError(await call(`/api/lists/records/${newId()}`, { bearer: user.bearer }), 404);
    await expectError(
      await call(`/api/lists/records`, { method: "POST", bearer: user.bearer, json: { pairs: [{ list_id: "x", rec_id: "y" }] } }),
      400,
    );
  });

  it("renames, refuses duplicate names, refuses deleting a list or record in use", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const name = `Языки ${newId().slice(-6)}`;
    const listId = await newList(admin.bearer, name);
    expect(
      (
        await expectError(
          await call("/api/lists/create", { method: "POST", bearer: admin.bearer, json: { name: name.toUpperCase() } }),
          409,
        )
      ).message,
    ).toBe(ru.metadata.listExists(name.toUpperCase()));
    await ok(`/api/lists/change/${listId}`, admin.bearer, { method: "PATCH", json: { name: `${name} (новое)` } });
    await ok(`/api/lists/record/${listId}`, admin.bearer, { method: "PUT", json: { rec_id: "ru", rec_data: { label: "Русский" } } });
    await ok(`/api/lists/record/${listId}`, admin.bearer, { method: "PUT", json: { rec_id: "de", rec_data: { label: "Немецкий" } } });
    const template = await createTemplate(admin.bearer, "text", { list_id: listId });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await createValue(owner.bearer, assetId, { def_id: template.field_def_id, data: "ru" });

    expect((await expectError(await call(`/api/lists/record/${listId}/ru`, { method: "DELETE", bearer: admin.bearer }), 409)).message).toBe(
      ru.metadata.recordInUse(1),
    );
    await ok(`/api/lists/record/${listId}/de`, admin.bearer, { method: "DELETE" });
    await expectError(await call(`/api/lists/record/${listId}/de`, { method: "DELETE", bearer: admin.bearer }), 404);
    expect((await expectError(await call(`/api/lists/delete/${listId}`, { method: "DELETE", bearer: admin.bearer }), 409)).message).toBe(
      ru.metadata.listInUse(1),
    );

    const unused = await newList(admin.bearer);
    await ok(`/api/lists/record/${unused}`, admin.bearer, { method: "PUT", json: { rec_id: "x", rec_data: { label: "X" } } });
    await ok(`/api/lists/delete/${unused}`, admin.bearer, { method: "DELETE" });
    expect(await rows(`select count(*) as n from list_records where list_id = ?`, unused)).toEqual([{ n: 0 }]);
  });

  it("validates records: a label is required, keys have no control characters or surrounding spaces", async () => {
    const admin = await signInAdmin();
    const listId = await newList(admin.bearer);
    for (const json of [
      { rec_id: "x", rec_data: {} },
      { rec_id: " x", rec_data: { label: "X" } },
      { rec_id: "", rec_data: { label: "X" } },
      { rec_id: "x", rec_data: { label: "X", nested: { a: 1 } } },
    ]) {
      await expectError(await call(`/api/lists/record/${listId}`, { method: "PUT", bearer: admin.bearer, json }), 400);
    }
    await expectError(
      await call(`/api/lists/record/${newId()}`, { method: "PUT", bearer: admin.bearer, json: { rec_id: "x", rec_data: { label: "X" } } }),
      404,
    );
  });

  it("is filled by administrators only (403, nothing changed)", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const listId = await newList(admin.bearer);
    await expectError(await call("/api/lists/create", { method: "POST", bearer: user.bearer, json: { name: "Моё" } }), 403);
    await expectError(
      await call(`/api/lists/record/${listId}`, { method: "PUT", bearer: user.bearer, json: { rec_id: "x", rec_data: { label: "X" } } }),
      403,
    );
    await expectError(await call(`/api/lists/change/${listId}`, { method: "PATCH", bearer: user.bearer, json: { name: "взлом" } }), 403);
    await expectError(await call(`/api/lists/delete/${listId}`, { method: "DELETE", bearer: user.bearer }), 403);
    expect(await rows(`select count(*) as n from list_records where list_id = ?`, listId)).toEqual([{ n: 0 }]);
    expect(await rows(`select count(*) as n from lists where id = ?`, listId)).toEqual([{ n: 1 }]);
    await expectError(await call(`/api/lists/records/${listId}`), 401);
  });
});
