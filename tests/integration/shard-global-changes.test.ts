import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
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
