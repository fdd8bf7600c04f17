import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { forgetLibraryPlaces, libraryShard, placeOfId } from "../../workers/db/library-directory";
import { HOLD_WAIT_MS } from "../../workers/db/library-hold";
import { beginCrossing, switchedLibrariesOf } from "../../workers/db/repositories/library-crossing.repository";
import { libraryCounts, readMove } from "../../workers/db/repositories/library-move.repository";
import { newId, ROOT_GROUP_ID, shardOfId } from "../../workers/lib/ids";
import { roundTripsOf } from "../../workers/db/round-trips";
import { TIMING_KEY_HEADER } from "../../workers/lib/server-timing";
import { runRoutedWrite } from "../../workers/services/routed-writes";
import { finishStaleCrossings, holdLibraries, STALE_CROSSING_MS } from "../../workers/services/library/library-crossing.service";
import { actorOf, testContext } from "./catalog-fixtures";
import { call, expectError } from "./factories";
import {
  admin,
  createGroup,
  insertAsset,
  ordinaryUser,
  releaseMovedLibraries,
  send,
  uniqueName,
  uploadText,
  type Caller,
} from "./library-factories";
import { inShard, throughShards } from "./through-shards";
import {
  BOOK_TEXT,
  copiesAgree,
  insertBooks,
  insertLongComments,
  libraryInShard,
  LONG_COMMENT_CHARS,
  nothingHeld,
  settled,
} from "./library-shard-fixtures";
import { MIB, partBytes, startMultipart } from "./multipart-fixtures";
import { createRequestContext } from "../../workers/services/access/context";
import { runHashVariant } from "../../workers/services/uploads/multipart-saving.service";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { createAsset, uploadVersion } from "./asset-fixtures";
import { override, putFile, wopiToken } from "./wopi-fixtures";
import { DOCX_MIME, makeDocx } from "../fixtures/office-docs";

/**
 * Changes across libraries (decision 046): a file moved, copied or listed between a library in its shard and another
 * library runs in the catalog while the shards it touches are held, then each entity written is copied where it is
 * now. Runs in both tiers: a library an administrator makes is moved into its shard here when it is not born there.
 */

const moved: string[] = [];
afterAll(() => releaseMovedLibraries(moved));

/** The administrator and two libraries of his, each in its shard. */
async function twoLibrariesInShards(nameA: string, nameB: string) {
  const boss = await admin();
  return { boss, a: await libraryInShard(boss, nameA, moved), b: await libraryInShard(boss, nameB, moved) };
}

/** File `file` of library A listed in library B too (a change across libraries: both are in their shards). */
async function listInOther(boss: Caller, file: string, b: { top: string }) {
  const listed = await send("POST", `/api/group/insert-members/${b.top}`, boss.bearer, { members: [{ el_id: file, el_type: "asset" }] });
  expect(listed.status, JSON.stringify(listed.body)).toBe(204);
}

const members = async (folder: string, bearer: string) =>
  ((await (await call(`/api/group/members/${folder}`, { bearer })).json()) as { el_id: string }[]).map((m) => m.el_id);

/** An upload (`POST /api/asset/upload?…`) whose body arrives in two halves: the first now, the rest by `finish`. */
async function uploadInHalves(bearer: string, query: Record<string, string>, content: string) {
  const text = new TextEncoder().encode(content);
  const half = text.byteLength >> 1;
  const body = new FixedLengthStream(text.byteLength);
  const writer = body.writable.getWriter();
  const answer = call(`/api/asset/upload?${new URLSearchParams(query)}`, {
    method: "POST",
    bearer,
    body: body.readable,
    headers: { "content-type": "text/plain" },
  });
  await writer.write(text.slice(0, half));
  return {
    async finish() {
      await writer.write(text.slice(half));
      await writer.close();
      return answer;
    },
  };
}

describe("changes across libraries (decision 046)", () => {
  it("moves a file between two libraries in their shards, into one in the catalog and back: each copy follows", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Фонд А", "Фонд Б");
    const owner = await ordinaryUser();
    const c = await createGroup(owner, uniqueName("Своя библиотека"));
    const file = await uploadText(boss.bearer, a.top, "сценарий.txt");

    expect((await call(`/api/group/move-member/${file}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    expect(await libraryShard(env, a.shard).heldEntities([file])).toEqual([]);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([file]);
    expect(await members(b.top, boss.bearer)).toContain(file);
    expect(await members(a.top, boss.bearer)).not.toContain(file);
    await copiesAgree(a.top, a.shard);
    await copiesAgree(b.top, b.shard);
    // Minted in A's shard, found in B's from now on: every isolate, not just this one.
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, file)).toMatchObject({ place: "shard", library: b.top });
    await nothingHeld(a.shard, b.shard);

    // Into a library still in the catalog: out of B's shard, read from the catalog.
    expect((await call(`/api/group/move-member/${file}/${b.top}/${c}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([]);
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, file)).toEqual({ place: "catalog" });
    expect(await members(c, boss.bearer)).toContain(file);
    const renamed = await send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: "сценарий-2.txt" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    await copiesAgree(b.top, b.shard);

    // And back into A: the catalog refuses the write for A's sake, and it runs across.
    expect((await call(`/api/group/move-member/${file}/${c}/${a.top}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    expect(await libraryShard(env, a.shard).heldEntities([file])).toEqual([file]);
    const got = await send<{ asset_name?: string; name?: string }>("GET", `/api/asset/${file}`, boss.bearer);
    expect(JSON.stringify(got.body)).toContain("сценарий-2.txt");
    await copiesAgree(a.top, a.shard);
    await nothingHeld(a.shard, b.shard);
  });

  it("mints what is made in a library in its shard with the shard's number: a write naming it goes there without a refused try", async () => {
    const boss = await admin();
    const a = await libraryInShard(boss, "Свежие имена", moved);
    const folder = await createGroup(boss, "Отбор", a.top);
    const file = await uploadText(boss.bearer, folder, "заметка.txt");
    const commented = await send<{ comment_id: string }>("POST", `/api/asset/${file}/comments`, boss.bearer, { text: "Хороший дубль" });
    expect(commented.status, JSON.stringify(commented.body)).toBe(201);
    for (const id of [folder, file, commented.body.comment_id]) expect(shardOfId(id)).toBe(a.shard);
    const rename = async (name: string) => {
      const res = await call(`/api/group/update/${folder}`, {
        method: "PATCH",
        bearer: boss.bearer,
        json: { group_name: name },
        headers: { [TIMING_KEY_HEADER]: env.METRICS_TOKEN },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return roundTripsOf(res.headers.get("server-timing"))!;
    };
    // From an isolate that has not seen it, the rename costs the directory's one read more than from one that has:
    // not a write tried in the catalog, refused, and the directory read after it (an id minted before sharding).
    forgetLibraryPlaces();
    const fresh = await rename("Отбор 1");
    const known = await rename("Отбор 2");
    expect(fresh - known).toBe(1);
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, file)).toMatchObject({ place: "shard", library: a.top, shard: a.shard });
    await copiesAgree(a.top, a.shard);
  });

  it("writes and reads a file where it is now, though this isolate remembers it in the shard another isolate moved it out of", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Прежнее место", "Новое место");
    const file = await uploadText(boss.bearer, a.top, "кадр.txt");
    const rename = (name: string) => send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: name });
    expect((await rename("кадр 1.txt")).status).toBe(200);
    expect(await placeOfId(env.DB, file)).toMatchObject({ place: "shard", library: a.top });
    // Another isolate moves it into B: this one's memory of A stays (ten minutes for a place in a shard).
    await throughShards(() => env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ?").bind(b.top, file).run());
    expect(await libraryShard(env, a.shard).heldEntities([file])).toEqual([]);
    const read = await send<{ name: string }>("GET", `/api/asset/${file}`, boss.bearer);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.name).toBe("кадр 1.txt");
    await throughShards(() => env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ?").bind(a.top, file).run());
    await throughShards(() => env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ?").bind(b.top, file).run());
    const renamed = await rename("кадр 2.txt");
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await send<{ name: string }>("GET", `/api/asset/${file}`, boss.bearer)).body.name).toBe("кадр 2.txt");
    await copiesAgree(b.top, b.shard);
    // Back into A the same way: a new version goes there.
    await throughShards(() => env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ?").bind(a.top, file).run());
    expect(
      (
        await uploadVersion(boss.bearer, file, new TextEncoder().encode("вторая версия\n"), {
          file_name: "кадр.txt",
          mime_type: "text/plain",
        })
      ).asset_version,
    ).toBe(2);
    await copiesAgree(a.top, a.shard);
    // Remembered in A, moved to B: what names no listing of it (the versions never sent) runs there too.
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, file)).toMatchObject({ place: "shard", library: a.top });
    await throughShards(() => env.DB.prepare("UPDATE group_members SET group_id = ? WHERE el_id = ?").bind(b.top, file).run());
    const dropped = await send("POST", `/api/asset/drop-empty-version/${file}`, boss.bearer);
    expect(dropped.status, JSON.stringify(dropped.body)).toBe(200);

    // And out of every library (its last listing removed elsewhere): it lives on in the catalog.
    await throughShards(() => env.DB.prepare("DELETE FROM group_members WHERE el_id = ?").bind(file).run());
    expect((await rename("кадр 3.txt")).status).toBe(200);
    expect((await send<{ name: string }>("GET", `/api/asset/${file}`, boss.bearer)).body.name).toBe("кадр 3.txt");
    await nothingHeld(a.shard, b.shard);
  });

  it("moves a folder with its subfolders and the files whose home they are into another library, and out to the catalog", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Съёмки", "Архив");
    const owner = await ordinaryUser();
    const c = await createGroup(owner, uniqueName("Своя библиотека"));
    const day = await createGroup(boss, "День 1", a.top);
    const take = await createGroup(boss, "Дубль 2", day);
    const [note, clip] = [await uploadText(boss.bearer, day, "заметки.txt"), await uploadText(boss.bearer, take, "дубль.txt")];
    const all = [day, take, note, clip];

    expect((await call(`/api/group/move-member/${day}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    expect((await libraryShard(env, b.shard).heldEntities(all)).sort()).toEqual([...all].sort());
    expect(await libraryShard(env, a.shard).heldEntities(all)).toEqual([]);
    await copiesAgree(a.top, a.shard);
    await copiesAgree(b.top, b.shard);
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, clip)).toMatchObject({ place: "shard", library: b.top });
    expect(await members(take, boss.bearer)).toEqual([clip]);

    expect((await call(`/api/group/move-member/${day}/${b.top}/${c}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    expect(await libraryShard(env, b.shard).heldEntities(all)).toEqual([]);
    await copiesAgree(b.top, b.shard);
    forgetLibraryPlaces();
    expect(await placeOfId(env.DB, note)).toEqual({ place: "catalog" });
    expect(await members(day, boss.bearer)).toEqual(expect.arrayContaining([take, note]));
    await nothingHeld(a.shard, b.shard);
  });

  it(
    "moves a folder of books into another library: their texts weigh more together than one call into a shard may carry",
    { timeout: 60_000 },
    async () => {
      const { boss, a, b } = await twoLibrariesInShards("Библиотека", "Читальный зал");
      const shelf = await createGroup(boss, "Полка", a.top);
      // 36 MB of text in one slice of the crossing's copy, past the RPC's 32 MiB.
      const books = await insertBooks(boss.id, shelf, 100);
      expect((await call(`/api/group/move-member/${shelf}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
      const texts =
        "SELECT count(*) AS n, coalesce(sum(length(text)), 0) AS chars FROM search_content WHERE asset_id IN (SELECT value FROM json_each(?))";
      expect(await inShard(b.shard, (sql) => sql.exec(texts, JSON.stringify(books)).one())).toEqual({
        n: 100,
        chars: 100 * BOOK_TEXT.length,
      });
      expect(await inShard(a.shard, (sql) => sql.exec(texts, JSON.stringify(books)).one())).toEqual({ n: 0, chars: 0 });
      await settled(a, b);
    },
  );

  it("moves a file whose comments weigh more than one call into a shard may carry into another library", { timeout: 60_000 }, async () => {
    const { boss, a, b } = await twoLibrariesInShards("Споры", "Решения");
    const [file] = await insertBooks(boss.id, a.top, 1, { texts: false });
    await insertLongComments(file!, boss.id, 1_700);
    expect((await call(`/api/group/move-member/${file}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
    const held = "SELECT count(*) AS n, coalesce(sum(length(text)), 0) AS chars FROM comments WHERE asset_id = ?";
    expect(await inShard(b.shard, (sql) => sql.exec(held, file).one())).toEqual({ n: 1_700, chars: 1_700 * LONG_COMMENT_CHARS });
    expect(await inShard(a.shard, (sql) => sql.exec(held, file).one())).toEqual({ n: 0, chars: 0 });
    await settled(a, b);
  });

  it("copies a file into another library and lists it in a second one; a rename of a file in two libraries reaches both", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Исходники", "Публикации");
    const file = await uploadText(boss.bearer, a.top, "кадр.txt");

    const copied = await send<{ asset_id: string }>("POST", `/api/asset/copy/${file}/${b.top}`, boss.bearer);
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    expect(await libraryShard(env, b.shard).heldEntities([copied.body.asset_id])).toEqual([copied.body.asset_id]);

    await listInOther(boss, file, b);
    // The listing is B's (its shard holds it); the file stays homed in A, where it is read.
    const listing = "SELECT count(*) AS n FROM group_members WHERE group_id = ? AND el_id = ?";
    expect(await env.DB.prepare(listing).bind(b.top, file).first()).toEqual({ n: 1 });
    expect(await inShard(b.shard, (sql) => sql.exec(listing, b.top, file).one())).toEqual({ n: 1 });
    const renamed = await send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: "кадр-финал.txt" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    await copiesAgree(a.top, a.shard);
    await copiesAgree(b.top, b.shard);
    // Read where it lives (its home, A's shard): the new name.
    expect(JSON.stringify((await send("GET", `/api/asset/${file}`, boss.bearer)).body)).toContain("кадр-финал.txt");
    await nothingHeld(a.shard, b.shard);
  });

  it("shows a file of another library on the page of a folder that lists it, to a reader whose rule is on that folder", async () => {
    const boss = await admin();
    const reader = await ordinaryUser();
    const a = await libraryInShard(boss, "Съёмки", moved);
    const b = await libraryInShard(boss, "Подборки", moved);
    const file = await uploadText(boss.bearer, a.top, "дубль-3.txt");
    const shared = (shard: number) => inShard(shard, (sql) => sql.exec("SELECT group_id, asset_id FROM shard_shared").toArray());

    await listInOther(boss, file, b);
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: reader.id, obj: b.top, acl: ["read"] })).status).toBe(201);
    // B's shard knows it lists a file of another library: its page is the catalog's copy's to answer.
    expect(await shared(b.shard)).toEqual([{ group_id: b.top, asset_id: file }]);
    expect(await members(b.top, boss.bearer)).toContain(file);
    expect(await members(b.top, reader.bearer)).toEqual([file]);
    // A's shard knows the file is listed elsewhere: who may read it is decided where both listings are.
    expect(await shared(a.shard)).toEqual([{ group_id: a.top, asset_id: file }]);
    expect((await send("GET", `/api/asset/${file}`, reader.bearer)).status).toBe(200);
    // Read on A and deny on B: the file is hidden on A's page too, as with one shard (A's shard holds no rule of B's).
    const denied = await ordinaryUser();
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: denied.id, obj: a.top, acl: ["read"] })).status).toBe(201);
    expect((await send("POST", "/api/user/acl", boss.bearer, { subj: denied.id, obj: b.top, acl: ["deny"] })).status).toBe(201);
    expect(await members(a.top, denied.bearer)).not.toContain(file);
    expect((await send("GET", `/api/asset/${file}`, denied.bearer)).status).not.toBe(200);

    // Moved into a folder of B, its rows come to B's shard: shared no more, the pages are the shards' own again.
    const sub = await createGroup(boss, "Отбор", b.top);
    const home = await send("POST", `/api/group/move-member/${file}/${a.top}/${sub}`, boss.bearer);
    expect(home.status, JSON.stringify(home.body)).toBe(204);
    expect(await shared(b.shard)).toEqual([]);
    expect(await shared(a.shard)).toEqual([]);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([file]);
    expect(await members(b.top, reader.bearer)).toContain(file);
    expect(await members(sub, reader.bearer)).toEqual([file]);

    // Taken out of its last folder, it is in no library: its shard lets it go, the catalog keeps it for its owner.
    expect((await send("DELETE", `/api/group/delete-members/${b.top}?ids=${file}`, boss.bearer)).status).toBe(204);
    expect((await send("DELETE", `/api/group/delete-members/${sub}?ids=${file}`, boss.bearer)).status).toBe(204);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([]);
    forgetLibraryPlaces();
    expect((await send("GET", `/api/asset/${file}`, boss.bearer)).status).toBe(200);
    expect((await send("GET", `/api/asset/${file}`, reader.bearer)).status).toBe(404);
    // Written in the catalog from then on, and listed in a folder of B again, back in B's shard.
    expect((await send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: "дубль-3-финал.txt" })).status).toBe(200);
    expect(
      (await send("POST", `/api/group/insert-members/${sub}`, boss.bearer, { members: [{ el_id: file, el_type: "asset" }] })).status,
    ).toBe(204);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([file]);
    expect(JSON.stringify((await send("GET", `/api/asset/${file}`, reader.bearer)).body)).toContain("дубль-3-финал.txt");
    await copiesAgree(b.top, b.shard);
    await nothingHeld(a.shard, b.shard);
  });

  it("answers the tree of a folder from the catalog's copy when a folder below it lists a file of another library", async () => {
    const boss = await admin();
    const a = await libraryInShard(boss, "Съёмки", moved);
    const b = await libraryInShard(boss, "Подборки", moved);
    const file = await uploadText(boss.bearer, a.top, "кадр-7.txt");
    const outer = await createGroup(boss, "Лучшее", b.top);
    const inner = await createGroup(boss, "Отобранное", outer);
    await listInOther(boss, file, { top: inner });
    const tree = async (folder: string) => JSON.stringify((await send("GET", `/api/group/subtree/${folder}`, boss.bearer)).body);
    // B's shard holds the listing, not the file: only the catalog's copy can show it in the trees above it.
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([]);
    for (const folder of [inner, outer, b.top]) expect(await tree(folder)).toContain("кадр-7.txt");
    await nothingHeld(a.shard, b.shard);
  });

  it("restores a library in its shard from the trash: its place in the root's listing, which only the catalog holds", async () => {
    const boss = await admin();
    const a = await libraryInShard(boss, "Корзина", moved);
    const file = await uploadText(boss.bearer, a.top, "черновик.txt");
    expect((await call(`/api/group/delete/${a.top}`, { method: "DELETE", bearer: boss.bearer })).status).toBe(204);
    const restored = await send<{ group_id: string }>("POST", `/api/group/restore/${a.top}`, boss.bearer);
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(await members(ROOT_GROUP_ID, boss.bearer)).toContain(a.top);
    expect(await members(a.top, boss.bearer)).toEqual([file]);
    await copiesAgree(a.top, a.shard);
    await nothingHeld(a.shard);
  });

  it("refuses someone without rights on the other library, and changes nothing", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Открытая", "Закрытая");
    const file = await uploadText(boss.bearer, a.top, "договор.txt");
    const reader = await ordinaryUser();
    const rule = await send("POST", "/api/user/acl", boss.bearer, { subj: reader.id, obj: a.top, acl: ["read", "update", "delete"] });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const before = [await libraryCounts(env.DB, a.top), await libraryCounts(env.DB, b.top)];

    const res = await call(`/api/group/move-member/${file}/${a.top}/${b.top}`, { method: "POST", bearer: reader.bearer });
    expect([403, 404]).toContain((await expectError(res, res.status)).statusCode);
    expect(res.status).toBeGreaterThanOrEqual(403);
    expect([await libraryCounts(env.DB, a.top), await libraryCounts(env.DB, b.top)]).toEqual(before);
    await settled(a, b);
  });

  it("is limited per person, administrators apart: a loop of changes across cannot keep a library's writes refused", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Лента", "Склад");
    const file = await uploadText(boss.bearer, a.top, "ролик.txt");
    const mover = await ordinaryUser();
    for (const top of [a.top, b.top]) {
      const rule = await send("POST", "/api/user/acl", boss.bearer, {
        subj: mover.id,
        obj: top,
        acl: ["read", "update", "create", "delete", "acl"],
      });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    }
    const [from, to] = [a.top, b.top];
    let refused: Response | null = null;
    for (let i = 0; i < 45 && !refused; i++) {
      const res = await call(`/api/group/move-member/${file}/${i % 2 ? to : from}/${i % 2 ? from : to}`, {
        method: "POST",
        bearer: mover.bearer,
      });
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(204);
    }
    expect(refused, "no 429 within 45 changes across").not.toBeNull();
    expect((await expectError(refused!, 429)).message).toMatch(/Слишком много запросов/);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Refused before anything was held; inside one library he goes on, and the administrator across.
    await nothingHeld(a.shard, b.shard);
    const where = (await libraryShard(env, a.shard).heldEntities([file])).length ? a.top : b.top;
    const other = where === a.top ? b.top : a.top;
    expect((await call(`/api/group/move-member/${file}/${where}/${other}`, { method: "POST", bearer: boss.bearer })).status).toBe(204);
  }, 60_000);

  it("receives an upload's body with the libraries let go: a slow body never keeps their writes refused", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Запись", "Эфир");
    const file = await uploadText(boss.bearer, a.top, "интервью.txt");
    await listInOther(boss, file, b);

    // A new version of a file in both libraries is a change across them; its body arrives in two halves.
    const upload = await uploadInHalves(boss.bearer, { asset_id: file, name: "интервью.txt" }, "вторая версия интервью, целиком\n");
    // While the rest is awaited, both libraries take writes, in their shards: nothing is held for a body.
    await vi.waitFor(
      async () =>
        expect((await send("PATCH", `/api/group/update/${b.top}`, boss.bearer, { group_name: uniqueName("Эфир") })).status).toBe(200),
      { timeout: 10_000 },
    );
    expect((await send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: "интервью-1.txt" })).status).toBe(200);
    await nothingHeld(a.shard, b.shard);

    // Another change across holds B as the body ends: the upload waits its moment out rather than refuse what it stored.
    const other = libraryShard(env, b.shard);
    expect(await other.hold("другой перенос", b.top)).not.toBeNull();
    const released = new Promise((resolve) => setTimeout(resolve, 300)).then(() => other.release("другой перенос"));
    const done = await upload.finish();
    await released;
    expect(done.status, await done.clone().text()).toBe(201);
    expect(((await done.json()) as { asset_version: number }).asset_version).toBe(2);
    // Committed across with the writes made meanwhile kept: the shards and the catalog agree.
    expect(JSON.stringify((await send("GET", `/api/asset/${file}`, boss.bearer)).body)).toContain("интервью-1.txt");
    await settled(a, b);
  });

  it("keeps a new file's upload under way in a library while a change across touches that library", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Приёмка", "Выдача");
    const other = await uploadText(boss.bearer, a.top, "опись.txt");
    const upload = await uploadInHalves(boss.bearer, { in_group: a.top, name: "акт.txt" }, "новый файл, пришедший во время переноса\n");
    // While the body is on its way, another file leaves A for B: a change across both libraries.
    await vi.waitFor(async () => {
      const moved = await call(`/api/group/move-member/${other}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer });
      expect(moved.status).toBe(204);
    });
    const done = await upload.finish();
    expect(done.status, await done.clone().text()).toBe(201);
    const file = ((await done.json()) as { asset_id: string }).asset_id;
    expect(await members(a.top, boss.bearer)).toContain(file);
    await settled(a, b);
  });

  it("commits a new version whose file moved into another library while its body arrived, where the file is now", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Черновики", "Чистовики");
    // In the catalog — unless this tier makes every library in its shard (then three shards).
    const c = await createGroup(boss, uniqueName("Каталожная"));
    moved.push(c);
    const shards = [a.shard, b.shard, (await readMove(env.DB, c))?.shard].filter((n) => n !== undefined);
    /** The new version's pending row, wherever its file is: the body is being received. */
    const receiving = async (file: string) => {
      const pending = "SELECT count(*) AS n FROM variants WHERE asset_id = ? AND status = 'pending'";
      let n = (await env.DB.prepare(pending).bind(file).first<{ n: number }>())!.n;
      for (const shard of shards) n += await inShard(shard, (sql) => sql.exec<{ n: number }>(pending, file).one().n);
      expect(n).toBeGreaterThan(0);
    };
    for (const [from, to] of [
      [a.top, b.top],
      [b.top, c],
      [c, a.top],
    ]) {
      const file = await uploadText(boss.bearer, from, "глава.txt");
      const upload = await uploadInHalves(
        boss.bearer,
        { asset_id: file, name: "глава.txt" },
        "вторая редакция главы, пришедшая не сразу\n",
      );
      await vi.waitFor(() => receiving(file), { timeout: 10_000 });
      // While the body is on its way, the file itself moves into the other library: from a shard into another, from a
      // shard into the catalog, from the catalog into a shard (or shard to shard in the sharded tier).
      const moved = await call(`/api/group/move-member/${file}/${from}/${to}`, { method: "POST", bearer: boss.bearer });
      expect(moved.status, await moved.clone().text()).toBe(204);
      const done = await upload.finish();
      expect(done.status, await done.clone().text()).toBe(201);
      expect(((await done.json()) as { asset_version: number }).asset_version).toBe(2);
      forgetLibraryPlaces();
      const got = await send<{ asset_latest_version: number }>("GET", `/api/asset/${file}`, boss.bearer);
      expect(got.body.asset_latest_version).toBe(2);
      expect(await members(to, boss.bearer)).toContain(file);
    }
    await settled(a, b);
  });

  it("answers 503 without reading an upload's body when the crossing cannot end before it; the cron ends it later", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Съёмка", "Монтаж");
    const file = await uploadText(boss.bearer, a.top, "хронометраж.txt");
    await listInOther(boss, file, b);
    // B's shard stops taking imports (a table an import writes is gone): what the upload wrote first cannot reach it.
    await inShard(b.shard, (sql) => sql.exec("ALTER TABLE shard_shared RENAME TO shard_shared_away"));
    const logged = expectConsoleError();
    const body = new FixedLengthStream(10);
    const upload = await call(`/api/asset/upload?${new URLSearchParams({ asset_id: file, name: "хронометраж.txt" })}`, {
      method: "POST",
      bearer: boss.bearer,
      body: body.readable,
      headers: { "content-type": "text/plain" },
    });
    // Answered with not one byte of the body sent.
    expect((await expectError(upload, 503)).message).toBe(ru.groups.libraryHeld);
    expect(upload.headers.get("retry-after")).toBe("5");
    expect(logged).toHaveBeenCalled();
    await body.writable.abort();

    await inShard(b.shard, (sql) => sql.exec("ALTER TABLE shard_shared_away RENAME TO shard_shared"));
    expect(await finishStaleCrossings(env, Date.now() + STALE_CROSSING_MS + 1_000)).toBeGreaterThanOrEqual(1);
    await settled(a, b);
    // Nothing committed: the file is at its first version.
    expect((await send<{ asset_latest_version: number }>("GET", `/api/asset/${file}`, boss.bearer)).body.asset_latest_version).toBe(1);
  });

  it("hashes a large new version of a file of two libraries with them let go, and commits it in both", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Исходники видео", "Выпуск");
    const file = await uploadText(boss.bearer, a.top, "репортаж.txt");
    await listInOther(boss, file, b);
    // A multipart version whose parts are assembled: hashed in the queue (`hash-variant`), then committed.
    const bytes = partBytes(3 * MIB + 5, 4);
    const info = await startMultipart(boss.bearer, file, bytes.byteLength);
    await env.MEDIA.put(info.key, bytes);
    await throughShards(() =>
      env.DB.prepare("UPDATE variants SET status = 'saving', upload_id = 'u1', hash_offset = 0, progress_at = ? WHERE id = ?")
        .bind(Date.now(), info.variant_id)
        .run(),
    );
    // The stored bytes are read slowly: until they are let through, both libraries take writes.
    let letThrough = () => {};
    const gate = new Promise<void>((resolve) => (letThrough = resolve));
    let reading = () => {};
    const begun = new Promise<void>((resolve) => (reading = resolve));
    const media = new Proxy(env.MEDIA, {
      get(target, key) {
        if (key === "get")
          return async (...args: Parameters<R2Bucket["get"]>) => {
            reading();
            await gate;
            return target.get(...args);
          };
        const value = Reflect.get(target, key) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const rc = createRequestContext({ ...env, MEDIA: media }, () => undefined, `test-${crypto.randomUUID()}`);
    const hashing = runHashVariant(rc, { op: "hash-variant", variantId: info.variant_id });
    await begun;
    expect((await send("PATCH", `/api/group/update/${b.top}`, boss.bearer, { group_name: uniqueName("Выпуск") })).status).toBe(200);
    await nothingHeld(a.shard, b.shard);
    letThrough();
    expect(await hashing).toContain("committed as version 2");
    // The listing in B shows the new version's size, in B's shard and in the catalog's copy.
    const size = "SELECT el_size FROM group_members WHERE group_id = ? AND el_id = ?";
    expect(await inShard(b.shard, (sql) => sql.exec(size, b.top, file).one())).toEqual({ el_size: bytes.byteLength });
    expect(await env.DB.prepare(size).bind(b.top, file).first()).toEqual({ el_size: bytes.byteLength });
    await settled(a, b);
  });

  it("saves an office editor's version of a file of one library in its shard there, and of a file of two across", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Документы", "Согласование");
    const docx = async (name: string) => {
      const id = await createAsset(boss.bearer, { asset_name: name, asset_mime: DOCX_MIME, in_group: a.top });
      await uploadVersion(boss.bearer, id, makeDocx(name, ["Черновик"]), { file_name: name, mime_type: DOCX_MIME });
      return id;
    };
    const nameIn = (shard: number, id: string) => inShard(shard, (sql) => sql.exec("SELECT name FROM assets WHERE id = ?", id).one().name);
    const save = async (id: string, text: string) => {
      const token = (await wopiToken(boss.bearer, id)).access_token;
      expect((await override(id, token, "LOCK", { "x-wopi-lock": "lock-1" })).status).toBe(200);
      const res = await putFile(id, token, makeDocx("Договор", [text]), "lock-1");
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get("x-wopi-itemversion")).toBe("2");
      // RenameFile keeps the extension.
      const renamed = await override(id, token, "RENAME_FILE", {
        "x-wopi-lock": "lock-1",
        "x-wopi-requestedname": `final-${id.slice(-4)}`,
      });
      expect(renamed.status, await renamed.clone().text()).toBe(200);
      expect(await nameIn(a.shard, id)).toBe(`final-${id.slice(-4)}.docx`);
    };
    const own = await docx("договор.docx");
    await save(own, "Правка");
    expect(await inShard(a.shard, (sql) => sql.exec("SELECT latest_version FROM assets WHERE id = ?", own).one())).toEqual({
      latest_version: 2,
    });
    const shared = await docx("смета.docx");
    await listInOther(boss, shared, b);
    await save(shared, "Правка сметы");
    expect(await inShard(a.shard, (sql) => sql.exec("SELECT latest_version FROM assets WHERE id = ?", shared).one())).toEqual({
      latest_version: 2,
    });
    await settled(a, b);
  });

  it("holds the libraries it touches for that moment: their writes and another change across wait for it in the shard", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Занятая", "Соседняя");
    const file = await uploadText(boss.bearer, a.top, "план.txt");
    const other = await uploadText(boss.bearer, a.top, "смета.txt");
    const shard = libraryShard(env, a.shard);
    expect(await shard.hold("другой перенос", a.top)).not.toBeNull();
    let letGoAt = 0;
    const letGo = new Promise((resolve) => setTimeout(resolve, 400)).then(async () => {
      letGoAt = Date.now();
      await shard.release("другой перенос");
    });
    const finished: number[] = [];
    const timed = <T>(request: Promise<T>) => request.then((answer) => (finished.push(Date.now()), answer));
    // A write inside A, a change across A and B, and an upload into A, all while A is held: each waits its moment out.
    const [rename, across, upload] = await Promise.all([
      timed(send("PATCH", `/api/asset/${file}`, boss.bearer, { asset_name: "план-2.txt" })),
      timed(call(`/api/group/move-member/${other}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })),
      timed(uploadText(boss.bearer, a.top, "протокол.txt")),
      letGo,
    ]);
    expect(rename.status, JSON.stringify(rename.body)).toBe(200);
    expect(across.status, await across.clone().text()).toBe(204);
    expect(typeof upload).toBe("string");
    // None was answered while A was held.
    for (const at of finished) expect(at).toBeGreaterThanOrEqual(letGoAt);
    expect(JSON.stringify((await send("GET", `/api/asset/${file}`, boss.bearer)).body)).toContain("план-2.txt");
    expect(await members(b.top, boss.bearer)).toContain(other);
    await settled(a, b);
  });

  it("runs changes across the same libraries at once one after another: none is refused", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Встречная", "Поперечная");
    const fromA = await Promise.all(["a1.txt", "a2.txt", "a3.txt"].map((name) => uploadText(boss.bearer, a.top, name)));
    const fromB = await Promise.all(["b1.txt", "b2.txt", "b3.txt"].map((name) => uploadText(boss.bearer, b.top, name)));
    // Held in parallel, two of these would each take one library and be refused the other's.
    const moves = await Promise.all([
      ...fromA.map((f) => call(`/api/group/move-member/${f}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer })),
      ...fromB.map((f) => call(`/api/group/move-member/${f}/${b.top}/${a.top}`, { method: "POST", bearer: boss.bearer })),
    ]);
    for (const moved of moves) expect(moved.status, await moved.clone().text()).toBe(204);
    expect((await members(b.top, boss.bearer)).sort()).toEqual(expect.arrayContaining(fromA));
    expect((await members(a.top, boss.bearer)).sort()).toEqual(expect.arrayContaining(fromB));
    await settled(a, b);
  });

  it("refuses with 503 and Retry-After what a hold keeps waiting past its moment, and lets the other library go", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Застрявшая", "Свободная");
    const file = await uploadText(boss.bearer, a.top, "план.txt");
    const shard = libraryShard(env, a.shard);
    expect(await shard.hold("другой перенос", a.top)).not.toBeNull();
    try {
      const [rename, across] = await Promise.all([
        call(`/api/asset/${file}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "план-2.txt" } }),
        call(`/api/group/move-member/${file}/${a.top}/${b.top}`, { method: "POST", bearer: boss.bearer }),
      ]);
      expect((await expectError(rename, 503)).message).toBe(ru.groups.libraryHeld);
      expect(rename.headers.get("retry-after")).toBe("5");
      expect((await expectError(across, 503)).message).toBe(ru.groups.libraryHeld);
      // Refused with nothing written: B's shard, held first or not at all, was let go with the refusal.
      await nothingHeld(b.shard);
    } finally {
      await shard.release("другой перенос");
    }
    const rename = await call(`/api/asset/${file}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "план-2.txt" } });
    expect(rename.status).toBe(200);
    await copiesAgree(a.top, a.shard);
  });

  it("keeps a write waiting past that moment while the change across holding its library is still bringing rows in", async () => {
    const boss = await admin();
    const a = await libraryInShard(boss, "Большой перенос", moved);
    const file = await uploadText(boss.bearer, a.top, "план.txt");
    const shard = libraryShard(env, a.shard);
    expect(await shard.hold("большая папка", a.top)).not.toBeNull();
    const started = Date.now();
    let letGoAt = 0;
    // A big folder's crossing: a slice of its rows every half second, for twice as long as a silent one is waited for.
    const crossing = (async () => {
      while (Date.now() - started < 2 * HOLD_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await shard.appendRows([]);
      }
      letGoAt = Date.now();
      await shard.release("большая папка");
    })();
    const rename = await call(`/api/asset/${file}`, { method: "PATCH", bearer: boss.bearer, json: { asset_name: "план-2.txt" } });
    const answeredAt = Date.now();
    await crossing;
    expect(rename.status, await rename.clone().text()).toBe(200);
    expect(answeredAt).toBeGreaterThanOrEqual(letGoAt);
    expect(letGoAt - started).toBeGreaterThanOrEqual(2 * HOLD_WAIT_MS);
    await copiesAgree(a.top, a.shard);
  });

  it("left half-way by a Worker that died, is ended by the minute cron: the shards catch up and take writes again", async () => {
    const { boss, a, b } = await twoLibrariesInShards("Брошенная", "Приёмная");
    const file = await uploadText(boss.bearer, a.top, "монтаж.txt");
    const libraries = await switchedLibrariesOf(env.DB, [a.top, b.top]);
    expect(libraries.map((l) => l.libraryId).sort()).toEqual([a.top, b.top].sort());

    // The crossing begun a while ago, both shards held, the catalog written — and then nothing.
    const crossing = newId();
    await beginCrossing(env.DB, crossing, libraries, Date.now() - STALE_CROSSING_MS - 1_000);
    await holdLibraries(env, crossing, libraries);
    await runRoutedWrite(testContext(), actorOf({ id: boss.id, login: "admin", name: "admin", isAdmin: true }), "moveMembers", [
      a.top,
      b.top,
      [file],
    ]);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([]);
    // Meanwhile a write asked of the catalog is taken there (the crossing lets it in) and journaled; one sent straight
    // to the held shard waits for the crossing's end, and past HOLD_WAIT_MS is refused.
    const name = uniqueName("Приёмная");
    forgetLibraryPlaces();
    expect((await send("PATCH", `/api/group/update/${b.top}`, boss.bearer, { group_name: name })).status).toBe(200);
    await placeOfId(env.DB, b.top);
    const held = await call(`/api/group/update/${b.top}`, { method: "PATCH", bearer: boss.bearer, json: { group_name: `${name}!` } });
    expect((await expectError(held, 503)).message).toBe(ru.groups.libraryHeld);

    expect(await finishStaleCrossings(env)).toBeGreaterThanOrEqual(1);
    expect(await libraryShard(env, b.shard).heldEntities([file])).toEqual([file]);
    expect(await libraryShard(env, a.shard).heldEntities([file])).toEqual([]);
    await settled(a, b);
    forgetLibraryPlaces();
    expect(await members(b.top, boss.bearer)).toContain(file);
    expect((await send<{ group_name: string }>("GET", `/api/group/get/${b.top}`, boss.bearer)).body.group_name).toBe(name);
    // Ended once: the cron finds nothing more of it.
    expect(await finishStaleCrossings(env)).toBe(0);
  });
});
