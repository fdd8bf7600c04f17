import { env } from "cloudflare:workers";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { commentCountColumns } from "../../workers/db/repositories/comment.repository";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { grant, postComment } from "./comments-fixtures";
import { call, expectError } from "./factories";
import { createGroup, ordinaryUser, send, uniqueName, type Caller } from "./library-factories";

/**
 * Comment counts on tiles (decision record 035): folder members, collection items and search hits carry
 * `comments: {total, open}` of each file they show, read in the listing's own statement; the counts follow resolving
 * and deleting, are the same for every reader, and never appear for a file the caller may not read nor on public
 * link pages.
 */

interface Counts {
  total: number;
  open: number;
}
type Member = { el_id: string; el_type: "asset" | "group"; el_info: { comments?: Counts } };
type Item = { asset_id: string; comments: Counts };
type Hit = { id: string; type: string; comments: Counts | null };

let ipCounter = 0;
const freshIp = () => `198.51.102.${++ipCounter}`;

async function ok<T>(method: string, path: string, who: Caller, json?: unknown, status = 200): Promise<T> {
  const res = await send<T>(method, path, who.bearer, json);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** A word only this test's files carry, in Latin letters (the index splits names at digits). */
const uniqueWord = () => `tilecount${newId().slice(-8).replace(/\d/g, (d) => "ghijklmnop"[Number(d)])}`;

async function createFile(who: Caller, name: string, group: string): Promise<string> {
  const body = await ok<{ asset_id: string }>("POST", "/api/asset/create", who, { asset_name: name, asset_mime: "image/jpeg", in_group: group });
  return body.asset_id;
}

const membersOf = (who: Caller, group: string) => ok<Member[]>("GET", `/api/group/members/${group}`, who);
const countsIn = (members: Member[]) => Object.fromEntries(members.filter((m) => m.el_type === "asset").map((m) => [m.el_id, m.el_info.comments]));
const search = (who: Caller, word: string) => ok<{ hits: Hit[] }>("GET", `/api/search/query/${encodeURIComponent(word)}`, who);
const hitCounts = (r: { hits: Hit[] }) => Object.fromEntries(r.hits.map((h) => [h.id, h.comments]));

async function resolve(who: Caller, commentId: string, resolved = true) {
  await ok("POST", `/api/comments/${commentId}/resolve`, who, { resolved });
}

/**
 * An owner's folder with a commented file and a quiet one, a reader who reads the folder, and a second folder with a
 * commented file the reader may not read; a collection of the commented files shared with the reader.
 */
async function world() {
  const owner = await ordinaryUser();
  const reader = await ordinaryUser();
  const stranger = await ordinaryUser();
  const word = uniqueWord();
  const folder = await createGroup(owner, uniqueName("Отзывы"));
  const secret = await createGroup(owner, uniqueName("Закрытая"));
  const shown = await createFile(owner, `${word} обложка.jpg`, folder);
  const quiet = await createFile(owner, `${word} тихий.jpg`, folder);
  const hidden = await createFile(owner, `${word} тайный.jpg`, secret);
  await grant(reader.id, folder, ["read"], "group");
  return { owner, reader, stranger, word, folder, secret, shown, quiet, hidden };
}

describe("comment counts on tiles", () => {
  it("folder members, collection items and search hits count comments; resolving lowers open, deleting lowers both", async () => {
    const w = await world();
    const c1 = (await postComment(w.reader.bearer, w.shown, { text: "Логотип обрезан" })).body.comment_id;
    const c2 = (await postComment(w.reader.bearer, w.shown, { text: "Темно в углу" })).body.comment_id;
    const reply = await postComment(w.owner.bearer, w.shown, { text: "Исправлю", parent_id: c1 });
    expect(reply.status).toBe(201);
    await postComment(w.owner.bearer, w.hidden, { text: "Только для своих" });
    await postComment(w.owner.bearer, w.hidden, { text: "И это" });

    // The folder: the same counts for the owner and for a reader who reads it through a rule.
    expect(countsIn(await membersOf(w.owner, w.folder))).toEqual({ [w.shown]: { total: 3, open: 3 }, [w.quiet]: { total: 0, open: 0 } });
    expect(countsIn(await membersOf(w.reader, w.folder))).toEqual({ [w.shown]: { total: 3, open: 3 }, [w.quiet]: { total: 0, open: 0 } });
    // Search, read once before the change below so a cached answer would be served stale if comments did not move
    // the search epoch.
    expect(hitCounts(await search(w.reader, w.word))).toEqual({ [w.shown]: { total: 3, open: 3 }, [w.quiet]: { total: 0, open: 0 } });

    await resolve(w.reader, c1);
    expect(countsIn(await membersOf(w.owner, w.folder))[w.shown]).toEqual({ total: 3, open: 2 });
    expect(hitCounts(await search(w.reader, w.word))[w.shown]).toEqual({ total: 3, open: 2 });
    await resolve(w.owner, c1, false);
    expect(countsIn(await membersOf(w.reader, w.folder))[w.shown]).toEqual({ total: 3, open: 3 });
    await resolve(w.owner, c1);

    await ok("DELETE", `/api/comments/${c2}`, w.reader);
    expect(countsIn(await membersOf(w.reader, w.folder))[w.shown]).toEqual({ total: 2, open: 1 });
    expect(hitCounts(await search(w.owner, w.word))).toEqual({
      [w.shown]: { total: 2, open: 1 },
      [w.quiet]: { total: 0, open: 0 },
      [w.hidden]: { total: 2, open: 2 },
    });

    // A collection of the commented files, shared with the reader: he sees the file he reads with its counts and
    // of the other only that there is one more (`hidden`), nothing of its comments.
    const coll = await ok<{ collection_id: string }>("POST", "/api/collections", w.owner, { name: uniqueName("Клиенту") }, 201);
    await ok("POST", `/api/collections/${coll.collection_id}/items`, w.owner, { asset_ids: [w.shown, w.hidden] });
    await ok("PUT", `/api/collections/${coll.collection_id}/members`, w.owner, { subj: w.reader.id, subj_type: "user", role: "view" });
    const mine = await ok<{ items: Item[] }>("GET", `/api/collections/${coll.collection_id}/items`, w.owner);
    expect(Object.fromEntries(mine.items.map((i) => [i.asset_id, i.comments]))).toEqual({
      [w.shown]: { total: 2, open: 1 },
      [w.hidden]: { total: 2, open: 2 },
    });
    const res = await send<{ hidden: number; items: Item[] }>("GET", `/api/collections/${coll.collection_id}/items`, w.reader.bearer);
    expect(res.status).toBe(200);
    expect(res.body.hidden).toBe(1);
    expect(res.body.items.map((i) => [i.asset_id, i.comments])).toEqual([[w.shown, { total: 2, open: 1 }]]);

    // Deleting a comment takes its replies with it, and they leave the counts too.
    await ok("DELETE", `/api/comments/${c1}`, w.reader);
    expect(countsIn(await membersOf(w.owner, w.folder))[w.shown]).toEqual({ total: 0, open: 0 });
    const after = await ok<{ items: Item[] }>("GET", `/api/collections/${coll.collection_id}/items`, w.reader);
    expect(after.items[0].comments).toEqual({ total: 0, open: 0 });
    expect(hitCounts(await search(w.reader, w.word))[w.shown]).toEqual({ total: 0, open: 0 });
  });

  it("a caller without read never gets the file's tile or its counts", async () => {
    const w = await world();
    await postComment(w.owner.bearer, w.hidden, { text: "Секрет" });
    // The reader reads the folder but not the secret one: its file is in no listing of his, nor in his search.
    await expectError(await call(`/api/group/members/${w.secret}`, { bearer: w.reader.bearer }), 404);
    const found = await search(w.reader, w.word);
    expect(found.hits.map((h) => h.id).sort()).toEqual([w.shown, w.quiet].sort());
    expect(JSON.stringify(found)).not.toContain(w.hidden);
    // A stranger reads neither folder.
    await expectError(await call(`/api/group/members/${w.folder}`, { bearer: w.stranger.bearer }), 404);
    expect((await search(w.stranger, w.word)).hits).toEqual([]);
    // His «Доступные Файлы» (the virtual root) lists the file shared with him alone, with its counts.
    await grant(w.stranger.id, w.hidden, ["read"]);
    const root = await ok<Member[]>("GET", `/api/group/members/${ROOT_GROUP_ID}`, w.stranger);
    expect(countsIn(root)).toEqual({ [w.hidden]: { total: 1, open: 1 } });
  });

  it("public links show no counts: comments are the team's, not the visitor's", async () => {
    const w = await world();
    await postComment(w.owner.bearer, w.shown, { text: "Внутреннее замечание" });
    const created = await call(`/api/sl/create/${w.folder}`, { method: "POST", bearer: w.owner.bearer, json: {}, headers: { "cf-connecting-ip": freshIp() } });
    const url = await created.text();
    expect(created.status, url).toBe(200);
    const id = /\/sl\/([A-Za-z0-9_-]{22})$/.exec(url)![1];
    const res = await call(`/api/sl/info/${id}`, { headers: { "cf-connecting-ip": freshIp() } });
    const body = (await res.json()) as { group?: { items: Record<string, unknown>[] } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.group!.items.map((i) => i.asset_id).sort()).toEqual([w.shown, w.quiet].sort());
    for (const item of body.group!.items) expect(item).not.toHaveProperty("comments");
    expect(JSON.stringify(body)).not.toContain("Внутреннее");
  });

  it("counts each file on two index ranges without reading the table (migration 0050)", async () => {
    const query = new SQLiteAsyncDialect().sqlToQuery(sql`select ${commentCountColumns(sql`a.id`)} from assets a where a.id = ${"a".repeat(32)}`);
    const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const plan = results.map((r) => r.detail).join("\n");
    expect(plan).toMatch(/SEARCH cc USING COVERING INDEX comments_asset_idx \(asset_id=\?\)/);
    expect(plan).toMatch(/SEARCH cc USING COVERING INDEX comments_open_idx \(asset_id=\? AND resolved=\?\)/);
    expect(plan).not.toMatch(/\bSCAN cc\b/);
  });
});
