import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { maskOf } from "../../workers/services/access/access-policy";
import type { AccessLevel } from "../../workers/services/access/access.service";
import { bytesOf, createAsset, rows, signed, uploadVersion } from "./asset-fixtures";
import { call, expectError } from "./factories";
import { admin, createGroup, ordinaryUser, uniqueName, type Caller } from "./library-factories";

/** Shortlinks (issue 12): every call and rule of /api/sl, as the owner, other users and anonymous visitors. */

const LINK_URL = /^https:\/\/mam\.test\/sl\/([A-Za-z0-9_-]{22})$/;
let ipCounter = 0;
/** A fresh client IP per test, so one test's failures never throttle another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

interface Shared {
  owner: Caller & { login: string };
  group: string;
  asset: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/** An owner with a folder holding one uploaded asset (5,000 real bytes). */
async function shared(): Promise<Shared> {
  const owner = await ordinaryUser();
  const group = await createGroup(owner, uniqueName());
  const asset = await createAsset(owner.bearer, { in_group: group });
  const bytes = bytesOf(5000, 7);
  await uploadVersion(owner.bearer, asset, bytes, { file_name: "clip.mp4", mime_type: "video/mp4" });
  return { owner, group, asset, bytes };
}

async function create(bearer: string, id: string, body: Record<string, unknown> = {}, ip = freshIp()) {
  return call(`/api/sl/create/${id}`, { method: "POST", bearer, json: body, headers: { "cf-connecting-ip": ip } });
}

/** Creates a link and answers its id (the test fails unless the answer is the text URL). */
async function link(bearer: string, id: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await create(bearer, id, body);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  const match = LINK_URL.exec(text);
  expect(match, text).not.toBeNull();
  return match![1];
}

function info(id: string, opts: { cookie?: string; ip?: string; page?: number } = {}) {
  const headers: Record<string, string> = { "cf-connecting-ip": opts.ip ?? freshIp() };
  if (opts.cookie) headers.cookie = opts.cookie;
  return call(`/api/sl/info/${id}${opts.page ? `?page=${opts.page}` : ""}`, { headers });
}

function unlock(id: string, password: string, ip = freshIp()) {
  return call(`/api/sl/info/${id}`, { method: "POST", json: { password }, headers: { "cf-connecting-ip": ip } });
}

interface Info {
  password_required: boolean;
  name?: string;
  acl?: string[];
  asset?: { asset_id: string; size: number; media_url: string; download_url: string | null; proxy_download_url: string | null; thumb_url: string };
  group?: { items: { asset_id: string; name: string; media_url: string }[]; has_more: boolean; page_size: number };
}

async function openInfo(id: string, opts: { cookie?: string; ip?: string; page?: number } = {}): Promise<Info> {
  const res = await info(id, opts);
  const body = (await res.json()) as Info;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return body;
}

function media(url: string, opts: { cookie?: string; range?: string; ip?: string } = {}) {
  const headers: Record<string, string> = { "cf-connecting-ip": opts.ip ?? freshIp() };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.range) headers.range = opts.range;
  return call(url, { headers });
}

async function rule(subj: string, obj: string, objType: "asset" | "group", levels: AccessLevel[]): Promise<string> {
  const id = newId();
  await env.DB.prepare("INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) VALUES (?, ?, 'user', ?, ?, ?, ?)")
    .bind(id, subj, obj, objType, maskOf(levels), Date.now())
    .run();
  return id;
}

const linkRow = async (id: string) =>
  (await rows<{ password_hash: string | null; views: number; downloads: number; last_opened_at: number | null; revoked_at: number | null; acl: number }>(
    "SELECT * FROM shortlinks WHERE id = ?",
    id,
  ))[0];
const linkCount = async (entityId: string) => (await rows<{ n: number }>("SELECT count(*) AS n FROM shortlinks WHERE entity_id = ?", entityId))[0].n;
const audits = (action: string, linkId: string) =>
  rows<{ ip: string | null; actor_id: string | null; details: string }>(
    "SELECT ip, actor_id, details FROM audit_log WHERE action = ? AND json_extract(details, '$.shortlink') = ? ORDER BY ctime",
    action,
    linkId,
  );

describe("POST /api/sl/create/{id}", () => {
  it("answers the full text URL with a 128-bit id, stores the password only as a salted slow hash, and audits", async () => {
    const s = await shared();
    const ip = freshIp();
    const res = await create(s.owner.bearer, s.asset, { password: "s3cret пароль", acl: ["read", "download"], time_range: [null, null] }, ip);
    const url = await res.text();
    const id = LINK_URL.exec(url)![1];
    const row = await linkRow(id);
    expect(row.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[^$]+\$[^$]+$/);
    expect(row.password_hash).not.toContain("s3cret");
    // Same password, another link: another salt, another hash.
    const other = await linkRow(await link(s.owner.bearer, s.asset, { password: "s3cret пароль" }));
    expect(other.password_hash).not.toBe(row.password_hash);
    const [entry] = await rows<{ ip: string; actor_id: string; object_id: string }>(
      "SELECT ip, actor_id, object_id FROM audit_log WHERE action = 'shortlink.create' AND json_extract(details, '$.shortlink') = ?",
      id,
    );
    expect(entry).toEqual({ ip, actor_id: s.owner.id, object_id: s.asset });
  });

  it("shares a folder; the SPEC's form with only time_range, password, acl and email works", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.group, { time_range: [new Date(Date.now() - 1000).toISOString(), null], password: null, acl: ["read"], email: [] });
    const body = await openInfo(id);
    expect(body.group?.items.map((i) => i.asset_id)).toEqual([s.asset]);
  });

  it("takes an empty password and an empty email, as a client's blank form fields send them, as none", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { time_range: [null, null], password: "", acl: ["read"], email: "" });
    const body = await openInfo(id);
    expect(body.password_required).toBe(false);
    const sent = await env.DB.prepare("SELECT COUNT(*) AS n FROM outgoing_emails WHERE object_id = ?").bind(s.asset).first<{ n: number }>();
    expect(sent?.n).toBe(0);
  });

  it("refuses bad input with 400 and creates nothing", async () => {
    const s = await shared();
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const later = new Date(Date.now() + 7200_000).toISOString();
    const cases: [Record<string, unknown>, string | null][] = [
      [{ time_range: [later, soon] }, ru.sharing.rangeOrder],
      [{ time_range: [soon, soon] }, ru.sharing.rangeOrder],
      [{ time_range: [null, new Date(Date.now() - 1000).toISOString()] }, ru.sharing.rangePast],
      [{ time_range: ["вчера", null] }, null],
      [{ time_range: [soon] }, null],
      [{ password: "x".repeat(10_000) }, null],
      [{ email: ["not-an-email"] }, null],
      [{ email: "a@b" }, null],
      [{ email: Array.from({ length: 51 }, (_, i) => `r${i}@example.com`) }, null],
      [{ acl: ["write"] }, null],
      [{ acl: [] }, null],
      [{ acl: "read" }, null],
    ];
    for (const [body, message] of cases) {
      const error = await expectError(await create(s.owner.bearer, s.asset, body), 400);
      if (message) expect(error.message).toBe(message);
    }
    await expectError(await create(s.owner.bearer, "not-an-id", {}), 400);
    await expectError(await create(s.owner.bearer, "f".repeat(32), {}), 400);
    await expectError(await create(s.owner.bearer, newId(), {}), 404);
    expect(await linkCount(s.asset)).toBe(0);
  });

  it("accepts exactly 50 recipients and records the message in the outbox with the link", async () => {
    const s = await shared();
    const to = Array.from({ length: 50 }, (_, i) => `person${i}@example.com`);
    const id = await link(s.owner.bearer, s.asset, { email: to });
    const [mail] = await rows<{ recipients: string; status: string; body: string; subject: string }>(
      "SELECT * FROM outgoing_emails WHERE object_id = ?",
      id,
    );
    expect(JSON.parse(mail.recipients)).toEqual(to);
    expect(mail.status).toBe("recorded");
    expect(mail.body).toContain(`https://mam.test/sl/${id}`);
    expect(mail.subject).toContain("С вами поделились");
  });

  it("needs read and acl to share (404 / 403 otherwise) and download for download rights (403); nothing is created", async () => {
    const s = await shared();
    const stranger = await ordinaryUser();
    await expectError(await create(stranger.bearer, s.asset, {}), 404);
    await expectError(await create(stranger.bearer, s.group, {}), 404);
    const reader = await ordinaryUser();
    await rule(reader.id, s.group, "group", ["read", "download"]);
    const readOnly = await expectError(await create(reader.bearer, s.asset, {}), 403);
    expect(readOnly.message).toBe(ru.sharing.noShareRight);
    const sharer = await ordinaryUser();
    await rule(sharer.id, s.group, "group", ["read", "acl"]);
    const refused = await expectError(await create(sharer.bearer, s.asset, { acl: ["read", "download"] }), 403);
    expect(refused.message).toBe(ru.sharing.noDownloadRight);
    await expectError(await create(sharer.bearer, s.asset, { acl: ["download_proxy"] }), 403);
    expect(await linkCount(s.asset)).toBe(0);
    await link(sharer.bearer, s.asset, { acl: ["read"] });
    expect(await linkCount(s.asset)).toBe(1);
    await expectError(await call(`/api/sl/create/${s.asset}`, { method: "POST", json: {} }), 401);
  });
});

describe("GET /api/sl/info/{id} and media", () => {
  it("opens anonymously, counts and audits every open with the client IP", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { acl: ["read"] });
    const ip = freshIp();
    const body = await openInfo(id, { ip });
    expect(body).toMatchObject({ password_required: false, acl: ["read"], asset: { asset_id: s.asset, size: 5000, download_url: null, proxy_download_url: null } });
    await openInfo(id);
    // The second open is answered from the edge cache: it is counted just after the answer (docs/security.md).
    await vi.waitFor(async () => expect((await linkRow(id)).views).toBe(2));
    const row = await linkRow(id);
    expect(row.last_opened_at).toBeGreaterThan(0);
    const opens = await audits("shortlink.open", id);
    expect(opens).toHaveLength(2);
    expect(opens[0]).toMatchObject({ ip, actor_id: null });
  });

  it("unknown and malformed ids are the same 404", async () => {
    for (const id of ["A".repeat(22), "short", "x".repeat(64), "..%2F..%2Fapi", newId()]) {
      const error = await expectError(await info(id), 404);
      expect(error.message).toBe(ru.sharing.notFound);
    }
    await expectError(await unlock("B".repeat(22), "x"), 404);
  });

  it("view-only links stream inline with Range seeking but refuse downloads", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset);
    const { asset } = await openInfo(id);
    const whole = await media(asset!.media_url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-disposition")).toMatch(/^inline/);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(s.bytes);
    const part = await media(asset!.media_url, { range: "bytes=1000-1999" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 1000-1999/5000");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(s.bytes.slice(1000, 2000));
    // A download URL signed for this link is still refused: the link does not allow it.
    const forged = `/api/sl/media/${id}/${s.asset}/original?${await signed("sl-media", `${id}:${s.asset}:original`, s.owner.id)}`;
    await expectError(await media(forged), 403);
    // Tampered and foreign signatures.
    await expectError(await media(asset!.media_url.replace(/sig=[^&]+/, "sig=AAAA")), 403);
    await expectError(await media(asset!.media_url.replace("/view?", "/original?")), 403);
    expect((await linkRow(id)).downloads).toBe(0);
  });

  it("download links serve the original as an attachment, count it and audit it with the IP", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { acl: ["read", "download"] });
    const { asset, acl } = await openInfo(id);
    expect(acl).toEqual(["read", "download"]);
    const ip = freshIp();
    const res = await media(asset!.download_url!, { ip });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(s.bytes);
    // A resumed download (a later range) is the same download: not counted again.
    expect((await media(asset!.download_url!, { range: "bytes=2500-" })).status).toBe(206);
    expect((await linkRow(id)).downloads).toBe(1);
    const [entry] = await audits("asset.download", id);
    expect(entry).toMatchObject({ ip, actor_id: null });
    // No proxy rendition exists: the proxy URL answers 404, not the original.
    await expectError(await media(asset!.proxy_download_url!), 404);
  });

  it("the time window: 403 before it opens, 410 once it has ended, open inside", async () => {
    const s = await shared();
    const start = Date.now() + 3600_000;
    const id = await link(s.owner.bearer, s.asset, { time_range: [new Date(start).toISOString(), new Date(start + 3600_000).toISOString()] });
    const early = await expectError(await info(id), 403);
    expect(early.message).toBe(ru.sharing.notYet(`${new Intl.DateTimeFormat("ru-RU", { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(new Date(start))} UTC`));
    // Just inside: opened a second ago, ends in a minute.
    await env.DB.prepare("UPDATE shortlinks SET not_before = ?, not_after = ? WHERE id = ?").bind(Date.now() - 1000, Date.now() + 60_000, id).run();
    const { asset } = await openInfo(id);
    // Just past the end: the page and its media both stop.
    await env.DB.prepare("UPDATE shortlinks SET not_after = ? WHERE id = ?").bind(Date.now() - 1, id).run();
    const late = await expectError(await info(id), 410);
    expect(late.message).toMatch(/^Срок действия ссылки истёк/);
    await expectError(await media(asset!.media_url), 410);
  });

  it("pages a folder's assets by 50 and never lists what the creator cannot see", async () => {
    const s = await shared();
    const reader = await ordinaryUser();
    await rule(reader.id, s.group, "group", ["read", "acl"]);
    const hidden = await createAsset(s.owner.bearer, { in_group: s.group, asset_name: "секрет.mp4" });
    await uploadVersion(s.owner.bearer, hidden, bytesOf(100), { file_name: "секрет.mp4", mime_type: "video/mp4" });
    await rule(reader.id, hidden, "asset", ["deny"]);
    const id = await link(reader.bearer, s.group);
    const body = await openInfo(id);
    expect(body.group!.items.map((i) => i.asset_id)).toEqual([s.asset]);
    // A media URL for the hidden asset, even correctly signed, is refused.
    const url = `/api/sl/media/${id}/${hidden}/view?${await signed("sl-media", `${id}:${hidden}:view`, reader.id)}`;
    await expectError(await media(url), 403);
    // An asset outside the folder is refused the same way.
    const outside = await createAsset(s.owner.bearer);
    const url2 = `/api/sl/media/${id}/${outside}/view?${await signed("sl-media", `${id}:${outside}:view`, reader.id)}`;
    await expectError(await media(url2), 403);
  });

  it("a folder with more than 50 assets pages them", async () => {
    const owner = await ordinaryUser();
    const group = await createGroup(owner, uniqueName());
    const stmts = Array.from({ length: 51 }, (_, i) => {
      const aid = newId();
      return [
        env.DB.prepare("INSERT INTO assets (id, name, mime, owner_id, creator_id, latest_version, ctime, mtime, atime) VALUES (?, ?, 'image/png', ?, ?, 0, 1, 1, 1)").bind(aid, `f${String(i).padStart(2, "0")}.png`, owner.id, owner.id),
        env.DB.prepare("INSERT INTO group_members (group_id, el_id, el_type, ctime, sort_name, el_mtime, el_size) VALUES (?, ?, 'asset', 1, ?, 1, 0)").bind(group, aid, `f${String(i).padStart(2, "0")}.png`),
      ];
    });
    await env.DB.batch(stmts.flat());
    const id = await link(owner.bearer, group);
    const first = await openInfo(id);
    expect(first.group).toMatchObject({ page_size: 50, has_more: true });
    expect(first.group!.items).toHaveLength(50);
    const second = await openInfo(id, { page: 1 });
    expect(second.group!.items.map((i) => i.name)).toEqual(["f50.png"]);
    expect(second.group!.has_more).toBe(false);
  });
});

describe("passwords", () => {
  it("GET reveals only that a password is needed; a wrong one is 401 and audited; the right one sets a signed HttpOnly cookie", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { password: "верный", acl: ["read", "download"] });
    const locked = await info(id);
    expect(locked.status).toBe(200);
    expect(await locked.json()).toEqual({ id, password_required: true });
    const ip = freshIp();
    const wrong = await expectError(await unlock(id, "неверный", ip), 401);
    expect(wrong.message).toBe(ru.sharing.wrongPassword);
    const [failed] = await audits("shortlink.password_failed", id);
    expect(failed).toMatchObject({ ip, actor_id: null });
    expect(failed.details).not.toContain("неверный");
    const opened = await unlock(id, "верный");
    const body = (await opened.json()) as Info;
    expect(opened.status).toBe(200);
    expect(body.asset?.asset_id).toBe(s.asset);
    const setCookie = opened.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^sl_${id}=\\d+\\.[A-Za-z0-9_-]+;`));
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Max-Age=7200/);
    const cookie = setCookie.split(";")[0];
    expect((await openInfo(id, { cookie })).asset?.asset_id).toBe(s.asset);
    // Media need the cookie too: a URL copied out of the page is useless without the password.
    expect((await media(body.asset!.download_url!, { cookie })).status).toBe(200);
    await expectError(await media(body.asset!.download_url!), 401);
    await expectError(await media(body.asset!.download_url!, { cookie: `sl_${id}=9999999999.forged` }), 401);
    // Changing the password signs out every browser that had unlocked the link.
    expect((await call(`/api/sl/${id}`, { method: "PATCH", bearer: s.owner.bearer, json: { password: "новый" } })).status).toBe(200);
    expect(await (await info(id, { cookie })).json()).toEqual({ id, password_required: true });
    // Removing it opens the link to everyone.
    expect((await call(`/api/sl/${id}`, { method: "PATCH", bearer: s.owner.bearer, json: { password: null } })).status).toBe(200);
    expect((await openInfo(id)).password_required).toBe(false);
  });

  it("throttles wrong passwords per (link, client address): the right one is refused there while locked, elsewhere it opens; the lock is audited", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { password: "верный" });
    const guesser = freshIp();
    for (let i = 0; i < 5; i++) await expectError(await unlock(id, `wrong-${i}`, guesser), 401);
    const locked = await unlock(id, "верный", guesser);
    await expectError(locked, 429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await audits("shortlink.password_failed", id)).toHaveLength(5);
    expect(await audits("shortlink.password_locked", id)).toHaveLength(1);
    // a visitor at another address who knows the password is not kept out by someone else's guessing
    expect((await unlock(id, "верный", freshIp())).status).toBe(200);

    // One IP across many links: 20 failures are free, the 21st attempt is locked out.
    const ip = freshIp();
    const links = await Promise.all(Array.from({ length: 5 }, () => link(s.owner.bearer, s.asset, { password: "p" })));
    for (const l of links) for (let i = 0; i < 4; i++) await expectError(await unlock(l, "x", ip), 401);
    const fresh = await link(s.owner.bearer, s.asset, { password: "p" });
    await expectError(await unlock(fresh, "p", ip), 429);
    expect((await unlock(fresh, "p", freshIp())).status).toBe(200);
  });

  it("refuses an over-long password body with 400", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { password: "p" });
    await expectError(await unlock(id, "x".repeat(10_000)), 400);
  });
});

describe("the link follows its creator and its item", () => {
  it("revoking stops the page and every media URL at once", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset, { acl: ["read", "download"] });
    const { asset } = await openInfo(id);
    const stranger = await ordinaryUser();
    await expectError(await call(`/api/sl/${id}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    const res = await call(`/api/sl/${id}`, { method: "DELETE", bearer: s.owner.bearer });
    expect(await res.json()).toEqual({ id, revoked: true });
    expect((await expectError(await info(id), 410)).message).toBe(ru.sharing.revoked);
    await expectError(await media(asset!.media_url), 410);
    await expectError(await media(asset!.download_url!), 410);
    await expectError(await call(`/api/sl/${id}`, { method: "DELETE", bearer: s.owner.bearer }), 404);
    expect(await (await call(`/api/sl/for-entity/${s.asset}`, { bearer: s.owner.bearer })).json()).toEqual([]);
    expect(await audits("shortlink.revoke", id)).toHaveLength(1);
  });

  it("drops downloads when the creator loses download, stops when the creator loses acl or read", async () => {
    const s = await shared();
    const sharer = await ordinaryUser();
    const ruleId = await rule(sharer.id, s.group, "group", ["read", "acl", "download"]);
    const id = await link(sharer.bearer, s.asset, { acl: ["read", "download"] });
    const { asset } = await openInfo(id);
    const setRule = (levels: AccessLevel[]) => env.DB.prepare("UPDATE access_rules SET acl = ? WHERE id = ?").bind(maskOf(levels), ruleId).run();
    await setRule(["read", "acl"]);
    expect((await openInfo(id)).acl).toEqual(["read"]);
    await expectError(await media(asset!.download_url!), 403);
    expect((await media(asset!.media_url)).status).toBe(200);
    await setRule(["read", "download"]);
    await expectError(await info(id), 404);
    await expectError(await media(asset!.media_url), 404);
    await setRule(["read", "acl", "download"]);
    expect((await openInfo(id)).acl).toEqual(["read", "download"]);
    await env.DB.prepare("DELETE FROM access_rules WHERE id = ?").bind(ruleId).run();
    await expectError(await info(id), 404);
    await expectError(await media(asset!.media_url), 404);
  });

  it("stops when the creator is disabled", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset);
    const { asset } = await openInfo(id);
    await env.DB.prepare("UPDATE users SET enabled = 0 WHERE id = ?").bind(s.owner.id).run();
    await expectError(await info(id), 404);
    await expectError(await media(asset!.media_url), 404);
  });

  it("stops when the item is trashed (asset, or the shared folder) or purged", async () => {
    const s = await shared();
    const assetLink = await link(s.owner.bearer, s.asset);
    const groupLink = await link(s.owner.bearer, s.group);
    const { group } = await openInfo(groupLink);
    expect((await call(`/api/asset/${s.asset}`, { method: "DELETE", bearer: s.owner.bearer })).status).toBeLessThan(300);
    await expectError(await info(assetLink), 404);
    expect((await openInfo(groupLink)).group!.items).toEqual([]);
    await expectError(await media(group!.items[0].media_url), 403);
    expect((await call(`/api/group/delete/${s.group}`, { method: "DELETE", bearer: s.owner.bearer })).status).toBeLessThan(300);
    await expectError(await info(groupLink), 404);
    await env.DB.prepare("DELETE FROM assets WHERE id = ?").bind(s.asset).run();
    await expectError(await info(assetLink), 404);
  });
});

describe("for-entity, edit and the administrators' list", () => {
  it("lists links with creator, range, password flag, rights and counts; others see only their own", async () => {
    const s = await shared();
    const end = new Date(Date.now() + 86_400_000).toISOString();
    const id = await link(s.owner.bearer, s.asset, { password: "p", acl: ["read", "download_proxy"], time_range: [null, end] });
    await unlock(id, "p");
    const sharer = await ordinaryUser();
    await rule(sharer.id, s.group, "group", ["read", "acl"]);
    const own = await link(sharer.bearer, s.asset);
    const list = (await (await call(`/api/sl/for-entity/${s.asset}`, { bearer: s.owner.bearer })).json()) as Record<string, unknown>[];
    expect(list.map((l) => l.id)).toEqual([own, id]);
    expect(list[0]).toMatchObject({ creator: sharer.id, has_password: false, acl: ["read"], views: 0 });
    expect(list[1]).toMatchObject({
      url: `https://mam.test/sl/${id}`,
      entity_id: s.asset,
      entity_type: "asset",
      creator: s.owner.id,
      time_range: [null, end],
      has_password: true,
      acl: ["read", "download_proxy"],
      views: 1,
      downloads: 0,
      last_opened: expect.any(String),
    });
    expect(JSON.stringify(list)).not.toContain("pbkdf2");
    // acl holders manage every link of the item; a reader sees only his own (none) and may change nothing.
    const all = (await (await call(`/api/sl/for-entity/${s.asset}`, { bearer: sharer.bearer })).json()) as { id: string }[];
    expect(all.map((l) => l.id)).toEqual([own, id]);
    const reader = await ordinaryUser();
    await rule(reader.id, s.group, "group", ["read"]);
    expect(await (await call(`/api/sl/for-entity/${s.asset}`, { bearer: reader.bearer })).json()).toEqual([]);
    await expectError(await call(`/api/sl/${id}`, { method: "PATCH", bearer: reader.bearer, json: { acl: ["read"] } }), 403);
    await expectError(await call(`/api/sl/${id}`, { method: "DELETE", bearer: reader.bearer }), 403);
    const stranger = await ordinaryUser();
    await expectError(await call(`/api/sl/for-entity/${s.asset}`, { bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/sl/for-entity/${newId()}`, { bearer: stranger.bearer }), 404);
  });

  it("edits the window and rights with the same checks as creation", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset);
    const later = new Date(Date.now() + 7200_000).toISOString();
    const res = await call(`/api/sl/${id}`, { method: "PATCH", bearer: s.owner.bearer, json: { acl: ["read", "download"], time_range: [null, later] } });
    expect(await res.json()).toMatchObject({ id, acl: ["read", "download"], time_range: [null, later] });
    await expectError(await call(`/api/sl/${id}`, { method: "PATCH", bearer: s.owner.bearer, json: { time_range: [later, later] } }), 400);
    await expectError(await call(`/api/sl/${id}`, { method: "PATCH", bearer: s.owner.bearer, json: { acl: ["all"] } }), 400);
    await expectError(await call(`/api/sl/${"Z".repeat(22)}`, { method: "PATCH", bearer: s.owner.bearer, json: {} }), 404);
    expect(await audits("shortlink.update", id)).toHaveLength(1);
  });

  it("administrators list every active link; others are refused", async () => {
    const s = await shared();
    const id = await link(s.owner.bearer, s.asset);
    const revoked = await link(s.owner.bearer, s.asset);
    await call(`/api/sl/${revoked}`, { method: "DELETE", bearer: s.owner.bearer });
    const a = await admin();
    const list = (await (await call("/api/sl/list?take=500", { bearer: a.bearer })).json()) as { id: string; entity_name: string; creator_name: string }[];
    expect(list.map((l) => l.id)).toContain(id);
    expect(list.map((l) => l.id)).not.toContain(revoked);
    expect(list.find((l) => l.id === id)?.entity_name).toMatch(/^Клип/);
    await expectError(await call("/api/sl/list", { bearer: s.owner.bearer }), 403);
    // Administrators may revoke anyone's link.
    expect((await call(`/api/sl/${id}`, { method: "DELETE", bearer: a.bearer })).status).toBe(200);
  });
});
