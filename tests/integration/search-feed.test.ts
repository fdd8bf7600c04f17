import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../workers/db/client";
import { searchShardBindings } from "../../workers/db/search-shards";
import { feedIndex, runIndexFeed } from "../../workers/services/search";
import { ru } from "../../shared/i18n/ru";
import { searchQuery } from "../../workers/services/search";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { actorOf, exec, execOnSearch, indexRowsOf, indexed, rows, searchRows, searchShards, testContext } from "./catalog-fixtures";
import { newId } from "../../workers/lib/ids";
import { call } from "./factories";
import { admin, createGroup, ordinaryUser, uniqueName, type Caller } from "./library-factories";

/**
 * The search index's feed (decision 040, migration 0056): a change only marks its documents; slices of them are
 * indexed from the catalog after the request, before a search that finds the index behind, and by the cron.
 */

async function post<T>(who: Caller, path: string, json?: unknown): Promise<T> {
  const res = await call(path, { method: "POST", bearer: who.bearer, json });
  const body = res.status === 204 ? {} : await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body as T;
}

async function createAsset(who: Caller, name: string, group: string): Promise<string> {
  return (await post<{ asset_id: string }>(who, "/api/asset/create", { asset_name: name, asset_mime: "image/jpeg", in_group: group }))
    .asset_id;
}

/**
 * A word only this test's files hold, though the files of a test group share one database: a query word also finds
 * its shorter forms of 4 letters and more as whole words (`тайна…` finds another file's «тайна.mp4»), so it starts
 * with letters no word starts with; the stem keeps each test's first 8 letters (its indexed prefix) apart.
 */
function uniqueWord(stem: string): string {
  // No «ё»: the index folds it to «е», and a test compares indexed names with what it wrote.
  const letters = "абвгдежзиклмнопрстуфхцчшщэюяйы";
  const digits = (Date.now() * 1000 + Math.floor(Math.random() * 1000)).toString(letters.length);
  return `ъы${stem}${[...digits].map((c) => letters[parseInt(c, letters.length)]).join("")}`;
}

async function found(who: Caller, word: string): Promise<string[]> {
  const res = await call(`/api/search/query/${encodeURIComponent(word)}?take=100`, { bearer: who.bearer });
  const body = (await res.json()) as { hits: { id: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.hits.map((h) => h.id).sort();
}

const docOf = async (entity: string) =>
  (await rows<{ doc_id: number }>("select doc_id from search_docs where entity_id = ?", entity))[0]?.doc_id;
const indexRow = async (entity: string) => {
  const row = (await indexRowsOf([entity]))[0];
  return row && { name: row.name, acl: row.acl };
};
/**
 * The documents of `entities` are each in the index once, as the catalog says them. (Other files of the group share
 * the database, one with 100,000 files: a test looks at its own.)
 */
async function expectIndexAsCatalog(entities: string[]): Promise<void> {
  const list = JSON.stringify(entities);
  const expected = await rows<{ doc_id: number; name: string; meta: string; content: string; acl: string }>(
    `select d.doc_id, s.name, s.meta, s.content, s.acl from search_docs d join search_doc_asset s on s.entity_id = d.entity_id
       where d.entity_id in (select value from json_each(?1))
     union all select d.doc_id, s.name, s.meta, s.content, s.acl from search_docs d join search_doc_group s on s.entity_id = d.entity_id
       where d.entity_id in (select value from json_each(?1))
     order by 1`,
    list,
  );
  const docs = JSON.stringify(expected.map((r) => r.doc_id));
  const shards = searchShardBindings(env);
  const stored = (
    await Promise.all(
      shards.map(async (d1, shard) => {
        const held = await d1
          .prepare("select rowid as doc_id, name, meta, content, acl from search_index where rowid in (select value from json_each(?))")
          .bind(docs)
          .all<{ doc_id: number }>();
        // each document in its own shard (decision 042)
        expect(held.results.filter((r) => r.doc_id % shards.length !== shard)).toEqual([]);
        return held.results;
      }),
    )
  )
    .flat()
    .sort((a, b) => a.doc_id - b.doc_id);
  expect(stored).toEqual(expected);
}

const pending = async () => (await rows<{ n: number }>("select count(*) as n from search_pending"))[0].n;

/**
 * Far more pending work below every real document than a search may catch up on: the index stays behind. (No
 * request that changes anything runs meanwhile: its feed after the answer would take it all.)
 */
async function holdIndexBehind(): Promise<void> {
  await exec(`with recursive s(n) as (select 1 union all select n + 1 from s where n < 300000)
    insert or ignore into search_pending (doc_id, seq) select -n, 0 from s`);
}
const releaseIndex = () => exec("delete from search_pending where doc_id < 0");

describe("the search index's feed", () => {
  it("a change marks its document; the feed writes what the catalog says, then forgets the mark", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Лента"));
    await indexed();
    const word = uniqueWord("маяк");
    const asset = await createAsset(boss, `${word}.jpg`, folder);
    await indexed();
    // Written straight into the catalog: no request follows to feed the index.
    await exec("update assets set name = ? where id = ?", `${word} новый.jpg`, asset);
    const doc = await docOf(asset);
    expect(await rows("select doc_id from search_pending where doc_id = ?", doc)).toEqual([{ doc_id: doc }]);
    expect((await indexRow(asset)).name).toBe(`${word}.jpg`);
    await indexed();
    expect(await rows("select doc_id from search_pending where doc_id = ?", doc)).toEqual([]);
    expect(await indexRow(asset)).toEqual({ name: `${word} новый.jpg`, acl: expect.stringContaining(`a${folder}`) });
  });

  it("a request's change is indexed after it has answered, without a search (the request's waitUntil)", async () => {
    const boss = await admin();
    await indexed();
    const folder = await createGroup(boss, uniqueName("После ответа"));
    const asset = await createAsset(boss, "после ответа.jpg", folder);
    await expect.poll(async () => (await indexRow(asset))?.name, { timeout: 10_000 }).toBe("после ответа.jpg");
    expect(await pending()).toBe(0);
  });

  it("a search finds what was just changed: it catches the index up before it answers", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Свежее"));
    const word = uniqueWord("сразу");
    const asset = await createAsset(boss, `${word}.jpg`, folder);
    await exec("update assets set name = ? where id = ?", `${word}второй.jpg`, asset);
    expect(await found(boss, `${word}второй`)).toEqual([asset]);
  });

  it("while the index is behind, a reader never sees what a move took from him, and still sees what he keeps", async () => {
    const boss = await admin();
    const reader = await ordinaryUser();
    const open = await createGroup(boss, uniqueName("Открытая"));
    const closed = await createGroup(boss, uniqueName("Закрытая"));
    await post(boss, "/api/user/acl", { subj: reader.id, obj: open, acl: ["read"] });
    const word = uniqueWord("тайна");
    const kept = await createAsset(boss, `${word} 1.jpg`, open);
    const moved = await createAsset(boss, `${word} 2.jpg`, open);
    await indexed();
    expect(await found(reader, word)).toEqual([kept, moved].sort());
    await holdIndexBehind();
    await exec("delete from group_members where el_id = ? and group_id = ?", moved, open);
    await exec(
      "insert into group_members (group_id, el_id, el_type, ctime, sort_name) values (?, ?, 'asset', ?, ?)",
      closed,
      moved,
      Date.now(),
      `${word} 2.jpg`,
    );
    // the moved file's index row still says the open folder reaches it …
    expect((await indexRow(moved)).acl).toContain(`a${open}`);
    // … but a search that cannot catch up decides the reader's visibility in SQL
    expect(await found(reader, word)).toEqual([kept]);
    expect(await found(boss, word)).toEqual([kept, moved].sort());
    expect(await pending()).toBeGreaterThan(0);
    await releaseIndex();
    await indexed();
    expect((await indexRow(moved)).acl).toContain(`a${closed}`);
    expect((await indexRow(moved)).acl).not.toContain(`a${open}`);
    expect(await found(reader, word)).toEqual([kept]);
  }, 120_000);

  it("feeds running at once index every document once, as the catalog says", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Разом"));
    const entities = [folder];
    for (let i = 0; i < 12; i++) entities.push(await createAsset(boss, `разом ${i}.jpg`, folder));
    await indexed();
    await exec("update search_mark_seq set n = n + 1");
    await exec(
      `insert into search_pending (doc_id, seq) select doc_id, (select n from search_mark_seq) from search_docs
       where entity_id in (select value from json_each(?)) on conflict do update set seq = excluded.seq`,
      JSON.stringify(entities),
    );
    const [db, search] = [createDb(env.DB), searchShards()];
    await Promise.all([0, 1, 2].map(() => feedIndex(db, search, { deadline: Date.now() + 60_000, slice: 7 })));
    expect(await pending()).toBe(0);
    await expectIndexAsCatalog(entities);
  });

  it("a feed that read a document before a later change never writes over the later one", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Порядок"));
    const asset = await createAsset(boss, "порядок один.jpg", folder);
    await indexed();
    const [db, search] = [createDb(env.DB), searchShards()];
    // A slow feed reads the second name and its mark …
    await exec("update assets set name = 'порядок два.jpg' where id = ?", asset);
    const [stale] = await rows<{ doc_id: number; seq: number }>(
      "select doc_id, seq from search_pending where doc_id = ?",
      await docOf(asset),
    );
    // … a later change is fed by another feed before the slow one writes
    await exec("update assets set name = 'порядок три.jpg' where id = ?", asset);
    await feedIndex(db, search, { deadline: Date.now() + 10_000 });
    expect((await indexRow(asset)).name).toBe("порядок три.jpg");
    // … then the slow feed's slice arrives: the catalog as it read it (the first name) and that reading's mark
    await exec("update assets set name = 'порядок два.jpg' where id = ?", asset);
    await exec("update search_pending set seq = ? where doc_id = ?", stale.seq, stale.doc_id);
    await feedIndex(db, search, { deadline: Date.now() + 10_000 });
    // the shard holds a newer reading: the old one is dropped, mark and all
    expect((await indexRow(asset)).name).toBe("порядок три.jpg");
    expect(await pending()).toBe(0);
  });

  it("a deleted entity leaves the index; the cron's feed sweeps what no request took", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Удаление"));
    const asset = await createAsset(boss, "исчезнет.jpg", folder);
    await indexed();
    const doc = await docOf(asset);
    await exec("delete from group_members where el_id = ?", asset);
    await exec("delete from assets where id = ?", asset);
    expect(await searchRows("select rowid from search_index where rowid = ?", doc)).toHaveLength(1);
    const summary = await runIndexFeed(env);
    expect(summary.behind).toBe(false);
    expect(summary.indexed).toBeGreaterThan(0);
    expect(await searchRows("select rowid from search_index where rowid = ?", doc)).toEqual([]);
  });

  it("a slice that changed the index moves the answer cache's epoch: no answer from before it is served again", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Эпоха"));
    const word = `бакен${newId().slice(-4).replace(/\d/g, "ж")}`;
    const asset = await createAsset(boss, `${word}.jpg`, folder);
    await indexed();
    const doc = await docOf(asset);
    // The index loses the row behind the catalog's back (nothing the catalog's epoch sees): the answer is cached empty.
    await execOnSearch("delete from search_index where rowid = ?", doc);
    expect(await found(boss, word)).toEqual([]);
    expect(await found(boss, word)).toEqual([]);
    // A repair mark written straight to the catalog (no trigger moves the epoch for it), then the cron's feed.
    await exec("update search_mark_seq set n = n + 1 where id = 1");
    await exec("insert into search_pending (doc_id, seq) values (?, (select n from search_mark_seq where id = 1))", doc);
    expect((await runIndexFeed(env)).behind).toBe(false);
    expect(await found(boss, word)).toEqual([asset]);
  });
});

describe("a shard of the index that does not answer", () => {
  it("ends a search with 503 naming the shard, never a 500 and never an answer missing a part; searches with every shard keep working", async () => {
    const boss = await admin();
    const folder = await createGroup(boss, uniqueName("Отказ"));
    const word = `буёк${newId().slice(-4).replace(/\d/g, "ш")}`;
    const asset = await createAsset(boss, `${word}.jpg`, folder);
    await indexed();
    const lost = () => new Error("D1_ERROR: Network connection lost.");
    const down = createDb({
      prepare: () => {
        throw lost();
      },
      batch: () => Promise.reject(lost()),
    } as unknown as D1Database);
    const rc = testContext();
    const broken = rc.search.length - 1;
    rc.search = rc.search.map((shard, i) => (i === broken ? down : shard));
    const logged = expectConsoleError();
    const actor = actorOf({ id: boss.id, login: "admin", name: "admin", isAdmin: true });
    await expect(searchQuery(rc, actor, word, { fields: [] }, { skip: 0, take: 10, facets: false })).rejects.toMatchObject({
      status: 503,
      message: ru.search.shardDown(broken, rc.search.length),
    });
    expect(logged.mock.calls.map((c) => String(c[0])).join("\n")).toContain('"op":"search-shard"');
    expect(await found(boss, word)).toEqual([asset]);
  });
});
