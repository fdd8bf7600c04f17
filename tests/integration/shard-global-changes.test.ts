import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { call, expectError } from "./factories";
import { admin, getJson, ordinaryUser, releaseMovedLibraries, send, uniqueName, uploadText } from "./library-factories";
import { libraryInShard, nothingHeld, settled } from "./library-shard-fixtures";
import { inShard } from "./through-shards";

/**
 * Global rows renamed or deleted with what they reach into libraries (a tag with its uses, a classification with its members, a
 * field template with its values, a person with their rules and what they own): once a library lives in its shard the
 * catalog's triggers refused each of these as a whole — 503 «Библиотека переезжает…» for as long as it lived there. Now
 * each runs as a change across the libraries it reaches, and their shards follow. Runs in both tiers.
 */

const moved: string[] = [];
afterAll(() => releaseMovedLibraries(moved));

/** The administrator, two libraries in their shards and a file in each. */
async function twoLibrariesWithFiles() {
  const boss = await admin();
  const a = await libraryInShard(boss, "Архив", moved);
  const b = await libraryInShard(boss, "Проекты", moved);
  const files = [await uploadText(boss.bearer, a.top, "a.txt"), await uploadText(boss.bearer, b.top, "b.txt")];
  return { boss, a, b, files };
}

/** How many rows of `table` in shard `shard` have `column` = `value`. */
const rowsInShard = (shard: number, table: string, column: string, value: string) =>
  inShard(shard, (sql) => sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, value).one().n);

describe("global deletions that reach libraries in their shards", () => {
  it("a tag on files of two libraries is deleted from both shards; a non-administrator is refused with nothing held", async () => {
    const { boss, a, b, files } = await twoLibrariesWithFiles();
    const tag = await send<{ tag_id: string }>("POST", "/api/tags/create", boss.bearer, { tag_name: uniqueName("тег") });
    const entities = files.map((id) => ({ id, type: "asset" }));
    expect((await send("POST", "/api/tags/attach", boss.bearer, { tag_ids: [tag.body.tag_id], entities })).status).toBe(200);
    expect(await rowsInShard(a.shard, "entity_tags", "tag_id", tag.body.tag_id)).toBe(1);

    const reader = await ordinaryUser();
    await expectError(await call(`/api/tags/delete/${tag.body.tag_id}`, { method: "DELETE", bearer: reader.bearer }), 403);
    await nothingHeld(a.shard, b.shard);

    const deleted = await send("DELETE", `/api/tags/delete/${tag.body.tag_id}`, boss.bearer);
    expect(deleted, JSON.stringify(deleted.body)).toMatchObject({ status: 200, body: { tag_id: tag.body.tag_id, detached: 2 } });
    for (const l of [a, b]) expect(await rowsInShard(l.shard, "entity_tags", "tag_id", tag.body.tag_id)).toBe(0);
    for (const file of files) expect(await (await call(`/api/tags/for-entity/${file}`, { bearer: boss.bearer })).json()).toEqual([]);
    await settled(a, b);
    await expectError(await call(`/api/tags/delete/${tag.body.tag_id}`, { method: "DELETE", bearer: boss.bearer }), 404);
  });

  it("a classification deleted with force takes its members out of the shards", async () => {
    const { boss, a, b, files } = await twoLibrariesWithFiles();
    const tree = await send<{ tree_id: string }>("POST", `/api/taxonomy/create/${ROOT_GROUP_ID}`, boss.bearer, {
      path: uniqueName("Темы"),
    });
    const leaf = await send<{ taxon_id: string }>("POST", `/api/taxonomy/create/${tree.body.tree_id}`, boss.bearer, {
      path: "Природа/Горы",
    });
    for (const file of files)
      expect((await send("POST", `/api/taxonomy/add-member/${leaf.body.taxon_id}`, boss.bearer, { objectId: file })).status).toBe(200);

    const refused = await send("DELETE", `/api/taxonomy/delete/${tree.body.tree_id}/${tree.body.tree_id}/false`, boss.bearer);
    expect(refused.status).toBe(409);
    const deleted = await send("DELETE", `/api/taxonomy/delete/${tree.body.tree_id}/${tree.body.tree_id}/true`, boss.bearer);
    expect(deleted, JSON.stringify(deleted.body)).toMatchObject({ status: 200, body: { taxa_removed: 3, members_removed: 2 } });
    for (const l of [a, b]) expect(await rowsInShard(l.shard, "taxon_members", "taxon_id", leaf.body.taxon_id)).toBe(0);
    await settled(a, b);
  });

  it("a field template deleted with force takes its values out of the shards", async () => {
    const { boss, a, b, files } = await twoLibrariesWithFiles();
    const template = await send<{ field_def_id: string }>("POST", "/api/fields/template", boss.bearer, {
      field_def_name: uniqueName("Заказчик"),
      field_type: "text",
    });
    const defId = template.body.field_def_id;
    for (const file of files) {
      const value = await send("POST", `/api/fields/create/${file}`, boss.bearer, {
        def_id: defId,
        data: "Студия",
        asset_version_id: null,
      });
      expect(value.status, JSON.stringify(value.body)).toBe(200);
    }
    expect(await rowsInShard(b.shard, "field_values", "def_id", defId)).toBe(1);

    const deleted = await send("DELETE", `/api/fields/template/${defId}?force=true`, boss.bearer);
    expect(deleted, JSON.stringify(deleted.body)).toMatchObject({ status: 200, body: { values_removed: 2 } });
    for (const l of [a, b]) expect(await rowsInShard(l.shard, "field_values", "def_id", defId)).toBe(0);
    for (const file of files) expect(await (await call(`/api/fields/for-entity/${file}`, { bearer: boss.bearer })).json()).toEqual([]);
    await settled(a, b);
  });

  it("a person deleted: what they own in a shard goes to the heir, their rules there go", async () => {
    const { boss, a, b } = await twoLibrariesWithFiles();
    const leaving = await ordinaryUser("Уходящий");
    for (const l of [a, b])
      expect((await send("POST", "/api/user/acl", boss.bearer, { subj: leaving.id, obj: l.top, acl: ["read", "create"] })).status).toBe(
        201,
      );
    const theirs = await uploadText(leaving.bearer, a.top, "их.txt");
    expect(await rowsInShard(b.shard, "access_rules", "subj_id", leaving.id)).toBe(1);
    expect((await send("PATCH", `/api/user/${leaving.id}`, boss.bearer, { enabled: false })).status).toBe(200);

    const deleted = await send("DELETE", `/api/user/${leaving.id}?new_owner=${boss.id}`, boss.bearer);
    expect(deleted, JSON.stringify(deleted.body)).toMatchObject({ status: 200, body: { user_id: leaving.id, new_owner: boss.id } });
    for (const l of [a, b]) expect(await rowsInShard(l.shard, "access_rules", "subj_id", leaving.id)).toBe(0);
    expect(await rowsInShard(a.shard, "assets", "owner_id", leaving.id)).toBe(0);
    expect(
      await inShard(a.shard, (sql) => sql.exec<{ owner_id: string }>("SELECT owner_id FROM assets WHERE id = ?", theirs).one().owner_id),
    ).toBe(boss.id);
    await settled(a, b);
    // The catalog's copy agrees, and so does what a request reads.
    expect((await env.DB.prepare("SELECT owner_id FROM assets WHERE id = ?").bind(theirs).first<{ owner_id: string }>())!.owner_id).toBe(
      boss.id,
    );
  });
});

describe("a global row used in a library's shard is not deleted as unused (decision 051, step 2.4)", () => {
  /** The refusal a deletion answers: its status and message. */
  const refusal = async (method: string, path: string) => {
    const res = await send<{ message: string }>(method, path, (await admin()).bearer);
    return { status: res.status, message: res.body.message };
  };

  it("counts the uses only a shard holds, and a use both copies hold once", async () => {
    const { boss, a, b, files } = await twoLibrariesWithFiles();
    const [inA, inB] = files as [string, string];
    // Each use below is written into the shard's own rows only: the catalog's copy does not know it, as it will not
    // once the catalog keeps no copy (step 2.5). Each refusal is asked before any other write into that shard.
    const cls = (await send<{ id: string }>("POST", "/api/asset/class/create", boss.bearer, { name: uniqueName("Класс") })).body.id;
    await inShard(a.shard, (sql) => sql.exec("UPDATE assets SET class_id = ? WHERE id = ?", cls, inA));
    expect(await refusal("DELETE", `/api/asset/class/delete/${cls}`)).toEqual({ status: 409, message: ru.catalog.classInUse(1, 0) });

    const template = (
      await send<{ field_def_id: string }>("POST", "/api/fields/template", boss.bearer, {
        field_def_name: uniqueName("Заказчик"),
        field_type: "text",
      })
    ).body.field_def_id;
    const value = (def: string, text: string) =>
      inShard(b.shard, (sql) =>
        sql.exec(
          "INSERT INTO field_values (id, entity_id, entity_type, def_id, data, value_text, ctime, mtime) VALUES (?, ?, 'asset', ?, ?, ?, 1, 1)",
          newId(),
          inB,
          def,
          JSON.stringify(text),
          text,
        ),
      );
    await value(template, "студия");
    expect(await refusal("DELETE", `/api/fields/template/${template}`)).toEqual({ status: 409, message: ru.metadata.templateInUse(1, 0) });
    // Its type is locked by the same values: a number field would leave the text "студия" invalid.
    const retype = () => send<{ message: string }>("PATCH", `/api/fields/template/${template}`, boss.bearer, { field_type: "number" });
    expect((await retype()).body.message).toBe(ru.metadata.templateTypeLocked);

    const list = (await send<{ list_id: string }>("POST", "/api/lists/create", boss.bearer, { name: uniqueName("Языки") })).body.list_id;
    expect((await send("PUT", `/api/lists/record/${list}`, boss.bearer, { rec_id: "ru", rec_data: { label: "Русский" } })).status).toBe(
      200,
    );
    const fromList = (
      await send<{ field_def_id: string }>("POST", "/api/fields/template", boss.bearer, {
        field_def_name: uniqueName("Язык"),
        field_type: "text",
        field_setup: { list_id: list },
      })
    ).body.field_def_id;
    await value(fromList, "ru");
    expect(await refusal("DELETE", `/api/lists/record/${list}/ru`)).toEqual({ status: 409, message: ru.metadata.recordInUse(1) });

    const tree = (
      await send<{ tree_id: string }>("POST", `/api/taxonomy/create/${ROOT_GROUP_ID}`, boss.bearer, { path: uniqueName("Темы") })
    ).body.tree_id;
    const leaf = (await send<{ taxon_id: string }>("POST", `/api/taxonomy/create/${tree}`, boss.bearer, { path: "Горы" })).body.taxon_id;
    await inShard(b.shard, (sql) =>
      sql.exec(
        "INSERT INTO taxon_members (taxon_id, object_id, object_type, tree_id, ctime) VALUES (?, ?, 'asset', ?, 1)",
        leaf,
        inB,
        tree,
      ),
    );
    const dropLeaf = `/api/taxonomy/delete/${tree}/${leaf}/false`;
    expect(await refusal("DELETE", dropLeaf)).toEqual({ status: 409, message: ru.metadata.taxonHasContent(1, 0) });
    // A member added through the API is in its shard and in the catalog's copy: counted once.
    expect((await send("POST", `/api/taxonomy/add-member/${leaf}`, boss.bearer, { objectId: inA })).status).toBe(200);
    expect(await refusal("DELETE", dropLeaf)).toEqual({ status: 409, message: ru.metadata.taxonHasContent(2, 0) });

    const leaving = await ordinaryUser("Уходящий");
    expect((await send("PATCH", `/api/user/${leaving.id}`, boss.bearer, { enabled: false })).status).toBe(200);
    await inShard(b.shard, (sql) => sql.exec("UPDATE assets SET owner_id = ? WHERE id = ?", leaving.id, inB));
    expect(await refusal("DELETE", `/api/user/${leaving.id}`)).toEqual({ status: 409, message: ru.users.newOwnerRequired(1) });

    // Unused everywhere again (and the catalog's copy told, by the writeback of the next write there), the class goes.
    await inShard(a.shard, (sql) => sql.exec("UPDATE assets SET class_id = NULL WHERE id = ?", inA));
    expect((await send("DELETE", `/api/taxonomy/del-member/${leaf}/${inA}`, boss.bearer)).status).toBe(200);
    expect(await refusal("DELETE", `/api/asset/class/delete/${cls}`)).toEqual({ status: 200, message: undefined });
    await settled(a, b);
  });
});

describe("global renames reach libraries in their shards at once", () => {
  it("a tag and a person renamed show renamed on a file read from its shard, without waiting for the minute's cron", async () => {
    const { boss, a, files } = await twoLibrariesWithFiles();
    const owner = await ordinaryUser("Прежнее имя");
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: owner.id, obj: a.top, acl: ["read", "create"] })).status).toBe(201);
    const file = await uploadText(owner.bearer, a.top, "его.txt");
    const tag = await send<{ tag_id: string }>("POST", "/api/tags/create", boss.bearer, { tag_name: uniqueName("тег") });
    const entities = [file, files[0]].map((id) => ({ id, type: "asset" }));
    expect((await send("POST", "/api/tags/attach", boss.bearer, { tag_ids: [tag.body.tag_id], entities })).status).toBe(200);
    const seen = async () =>
      (await (await call(`/api/asset/${file}?tags=true`, { bearer: boss.bearer })).json()) as {
        owner_name: string;
        tags: { tag_name: string }[];
      };
    expect(await seen()).toMatchObject({ owner_name: "Прежнее имя", tags: [{ tag_name: expect.stringMatching(/^тег/) }] });

    const tagName = uniqueName("метка");
    expect((await send("PATCH", `/api/tags/change/${tag.body.tag_id}`, boss.bearer, { tag_name: tagName })).status).toBe(200);
    expect((await send("PATCH", `/api/user/${owner.id}`, boss.bearer, { user_name: "Новое имя" })).status).toBe(200);
    await vi.waitFor(async () => expect(await seen()).toMatchObject({ owner_name: "Новое имя", tags: [{ tag_name: tagName }] }), {
      timeout: 5_000,
      interval: 50,
    });
  });

  it("a person renaming himself twenty times at once: the refreshes run one after another, and the shard ends with the last name", async () => {
    const boss = await admin();
    const a = await libraryInShard(boss, "Имена", moved);
    const person = await ordinaryUser("Имя 0");
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: person.id, obj: a.top, acl: ["read", "create"] })).status).toBe(201);
    const file = await uploadText(person.bearer, a.top, "своё.txt");
    const renames = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send("PATCH", `/api/user/${person.id}`, person.bearer, { user_name: `Имя ${i + 1}` })),
    );
    expect(renames.map((r) => r.status)).toEqual(renames.map(() => 200));
    const last = (await getJson<{ user_name: string }>(`/api/user/${person.id}`, person.bearer)).user_name;
    await vi.waitFor(
      async () =>
        expect(((await (await call(`/api/asset/${file}`, { bearer: boss.bearer })).json()) as { owner_name: string }).owner_name).toBe(
          last,
        ),
      { timeout: 10_000, interval: 100 },
    );
  });
});
