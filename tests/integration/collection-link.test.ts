import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../shared/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import type { AccessLevel } from "../../workers/services/access/access.service";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, send, uniqueName, type Caller } from "./library-factories";

/** A collection shared by a public link: what its /sl page, media and ZIP show is what the creator may read now. */

const LINK_URL = /^https:\/\/mam\.test\/sl\/([A-Za-z0-9_-]{22})$/;
let ipCounter = 0;
const freshIp = () => `198.51.101.${++ipCounter}`;

interface SharedAsset {
  asset_id: string;
  name: string;
  thumb_url: string | null;
  media_url: string;
  download_url: string | null;
}
interface Info {
  password_required: boolean;
  entity_type?: string;
  name?: string;
  group?: { folder_id: string; folders: unknown[]; items: SharedAsset[]; has_more: boolean; zip_url: string | null };
}

async function ok<T>(method: string, path: string, who: Caller, json?: unknown, status = 200): Promise<T> {
  const res = await send<T>(method, path, who.bearer, json);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

async function rule(subj: string, obj: string, objType: "asset" | "group", levels: AccessLevel[]): Promise<string> {
  const id = newId();
  await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, ?, ?, ?)")
    .bind(id, subj, obj, objType, maskOf(levels), Date.now())
    .run();
  return id;
}

function create(who: Caller, id: string, body: Record<string, unknown> = {}) {
  return call(`/api/sl/create/${id}`, { method: "POST", bearer: who.bearer, json: body, headers: { "cf-connecting-ip": freshIp() } });
}

async function link(who: Caller, id: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await create(who, id, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const match = LINK_URL.exec(text);
  expect(match, text).not.toBeNull();
  return match![1];
}

const info = (id: string, cookie?: string) =>
  call(`/api/sl/info/${id}`, { headers: { "cf-connecting-ip": freshIp(), ...(cookie ? { cookie } : {}) } });

async function openInfo(id: string, cookie?: string): Promise<Info> {
  const res = await info(id, cookie);
  const body = (await res.json()) as Info;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

const anon = (url: string) => call(url, { headers: { "cf-connecting-ip": freshIp() } });

/**
 * The creator owns a collection of his two files and one of a colleague's he reads through a rule, with a file of
 * the colleague's he cannot read added straight into the table (as if his right had been taken after adding it).
 */
async function scene() {
  const creator = await ordinaryUser();
  const colleague = await ordinaryUser();
  const mine = await createGroup(creator, uniqueName("Съёмка"));
  const theirs = await createGroup(colleague, uniqueName("Чужая"));
  const a = await insertAsset({ ownerId: creator.id, groups: [mine], name: "первый.jpg", mime: "image/jpeg", preview: true, size: 300, putBytes: true });
  const b = await insertAsset({ ownerId: creator.id, groups: [mine], name: "второй.jpg", mime: "image/jpeg", size: 200, putBytes: true });
  const lent = await insertAsset({ ownerId: colleague.id, groups: [theirs], name: "одолженный.jpg", mime: "image/jpeg", size: 100, putBytes: true });
  const secret = await insertAsset({ ownerId: colleague.id, groups: [theirs], name: "тайный.jpg", mime: "image/jpeg", size: 100, putBytes: true });
  const lentRule = await rule(creator.id, lent.id, "asset", ["read", "download"]);
  const c = await ok<{ collection_id: string }>("POST", "/api/collections", creator, { name: "Для клиента" }, 201);
  await ok("POST", `/api/collections/${c.collection_id}/items`, creator, { asset_ids: [b.id, lent.id, a.id] });
  await env.DB.prepare("insert into collection_items (collection_id, asset_id, pos, added_by, added_at) values (?, ?, 99, ?, ?)")
    .bind(c.collection_id, secret.id, colleague.id, Date.now())
    .run();
  return { creator, colleague, id: c.collection_id, a, b, lent, secret, lentRule };
}

describe("a collection shared by a public link", () => {
  it("shows the items the creator may read, in collection order, and loses one the creator loses read on", async () => {
    const s = await scene();
    const id = await link(s.creator, s.id);
    const body = await openInfo(id);
    expect(body).toMatchObject({ password_required: false, entity_type: "collection", name: "Для клиента" });
    expect(body.group!.folders).toEqual([]);
    expect(body.group!.items.map((i) => i.asset_id)).toEqual([s.b.id, s.lent.id, s.a.id]);
    expect(JSON.stringify(body)).not.toContain("тайный");
    expect(body.group!.zip_url).toBeNull();
    expect(body.group!.items[0].download_url).toBeNull();
    // The media of a readable item plays; the same URL shape for the hidden one is refused.
    const lentView = body.group!.items[1].media_url;
    expect((await anon(lentView)).status).toBe(200);
    // The creator loses read on the colleague's file: it disappears from the page, and its media stops.
    await env.DB.prepare("delete from access_rules where id = ?").bind(s.lentRule).run();
    const after = await openInfo(id);
    expect(after.group!.items.map((i) => i.asset_id)).toEqual([s.b.id, s.a.id]);
    await expectError(await anon(lentView), 403);
    // Renamed or emptied collections show at once (collection links are never served from the edge cache).
    await ok("POST", `/api/collections/${s.id}/remove-items`, s.creator, { asset_ids: [s.b.id] });
    expect((await openInfo(id)).group!.items.map((i) => i.asset_id)).toEqual([s.a.id]);
    // The collection deleted: the link is the same 404 as an unknown one.
    await ok("DELETE", `/api/collections/${s.id}`, s.creator);
    await expectError(await info(id), 404);
  });

  it("with originals allowed: downloads and a ZIP of the readable items only", async () => {
    const s = await scene();
    const id = await link(s.creator, s.id, { acl: ["read", "download"] });
    const body = await openInfo(id);
    expect(body.group!.items.every((i) => i.download_url !== null)).toBe(true);
    const zip = await anon(body.group!.zip_url!);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const text = new TextDecoder().decode(await zip.arrayBuffer());
    for (const name of ["первый.jpg", "второй.jpg", "одолженный.jpg"]) expect(text).toContain(name);
    expect(text).not.toContain("тайный");
    expect(text).not.toContain(s.secret.id);
    const original = await anon(body.group!.items[2].download_url!);
    expect(original.status).toBe(200);
    await original.arrayBuffer();
  });

  it("keeps its password and time range", async () => {
    const s = await scene();
    const id = await link(s.creator, s.id, { password: "верный" });
    expect(await (await info(id)).json()).toEqual({ id, password_required: true });
    await expectError(
      await call(`/api/sl/info/${id}`, { method: "POST", json: { password: "нет" }, headers: { "cf-connecting-ip": freshIp() } }),
      401,
    );
    const opened = await call(`/api/sl/info/${id}`, { method: "POST", json: { password: "верный" }, headers: { "cf-connecting-ip": freshIp() } });
    expect(opened.status).toBe(200);
    const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0];
    expect((await openInfo(id, cookie)).group!.items).toHaveLength(3);

    const later = Date.now() + 3600_000;
    const timed = await link(s.creator, s.id, { time_range: [new Date(later).toISOString(), null] });
    await expectError(await info(timed), 403);
    await env.DB.prepare("update shortlinks set not_before = ?, not_after = ? where id = ?").bind(Date.now() - 2000, Date.now() - 1, timed).run();
    await expectError(await info(timed), 410);
  });

  it("only the owner or an administrator creates one: a stranger gets 404, a member (even edit) 403", async () => {
    const s = await scene();
    const stranger = await ordinaryUser();
    const editor = await ordinaryUser();
    await ok("PUT", `/api/collections/${s.id}/members`, s.creator, { subj: editor.id, subj_type: "user", role: "edit" });
    const refused = await expectError(await create(stranger, s.id), 404);
    expect(refused.message).toBe(ru.collections.notFound);
    expect(await expectError(await create(stranger, newId()), 404)).toMatchObject({ statusCode: 404 });
    expect((await expectError(await create(editor, s.id), 403)).message).toBe(ru.sharing.noShareRight);
    await expectError(await call(`/api/sl/for-entity/${s.id}`, { bearer: stranger.bearer }), 404);
    const count = await env.DB.prepare("select count(*) as n from shortlinks where entity_id = ?").bind(s.id).first<{ n: number }>();
    expect(count?.n).toBe(0);
    const boss = await admin();
    const id = await link(boss, s.id);
    // The administrator's link shows what the administrator may read: everything live in it.
    expect((await openInfo(id)).group!.items).toHaveLength(4);
    const listed = await ok<{ entity_type: string; entity_name: string }[]>("GET", `/api/sl/for-entity/${s.id}`, s.creator);
    expect(listed).toEqual([expect.objectContaining({ entity_type: "collection", entity_name: "Для клиента" })]);
  });
});
