import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { bytesOf, createAsset, rows, uploadVersion } from "./asset-fixtures";
import { fixture } from "./processing-fixtures";
import { call } from "./factories";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { createGroup, ordinaryUser, uniqueName } from "./library-factories";

/**
 * The edge cache of anonymous shared-link answers (issue 27 item 4): `/sl/{id}`, `/api/sl/info/{id}` and the link's
 * previews come from `caches.default` (miniflare's cache here) while nothing they show has changed, never for a
 * password link without its unlock, never for a signed-in request, and keys ignore what a visitor could vary.
 */

const LINK_URL = /\/sl\/([A-Za-z0-9_-]{22})$/;
let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

/** An owner's uploaded image with a thumbnail, shared with `body`; answers the link id, names and the owner. */
async function sharedImage(body: Record<string, unknown> = {}) {
  const owner = await ordinaryUser();
  const group = await createGroup(owner, uniqueName());
  const name = `${uniqueName("Файл")}.png`;
  const asset = await createAsset(owner.bearer, { in_group: group, asset_name: name });
  await uploadVersion(owner.bearer, asset, bytesOf(3000, 5), { file_name: name, mime_type: "image/png" });
  const thumb = await call(`/api/asset/upload-preview/${asset}?size=thumb`, {
    method: "POST",
    bearer: owner.bearer,
    body: fixture("png"),
    headers: { "content-type": "image/png" },
  });
  expect(thumb.status, await thumb.clone().text()).toBe(200);
  await thumb.arrayBuffer();
  const res = await call(`/api/sl/create/${asset}`, { method: "POST", bearer: owner.bearer, json: body });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { id: LINK_URL.exec(text)![1], name, owner, asset, group };
}

function page(path: string, headers: Record<string, string> = {}) {
  return call(path, { headers: { "cf-connecting-ip": freshIp(), ...headers } });
}

/** The answer's status, cache verdict and HTML with this answer's nonce taken out (each answer has its own). */
async function read(res: Response) {
  const text = await res.text();
  const nonce = /nonce="([^"]+)"/.exec(text)?.[1];
  return {
    status: res.status,
    cache: res.headers.get("x-mam-cache"),
    csp: res.headers.get("content-security-policy") ?? "",
    nonce,
    body: nonce ? text.replaceAll(nonce, "NONCE") : text,
  };
}

async function views(id: string): Promise<number> {
  const [row] = await rows<{ views: number }>("SELECT views FROM shortlinks WHERE id = ?", id);
  return row.views;
}

describe("edge cache of /sl pages", () => {
  it("reuses the anonymous answer, with a fresh nonce each time, and still counts every open", async () => {
    const { id, name } = await sharedImage({ acl: ["read", "download"] });
    const first = await read(await page(`/sl/${id}`));
    expect(first.status).toBe(200);
    expect(first.cache).toBe("miss");
    expect(first.body).toContain(name);
    const second = await read(await page(`/sl/${id}`));
    expect(second.cache).toBe("hit");
    expect(second.body).toBe(first.body);
    // A nonce is never served twice, and the policy names the one in the page.
    expect(second.nonce).not.toBe(first.nonce);
    expect(second.csp).toContain(`'nonce-${second.nonce}'`);
    await vi.waitFor(async () => expect(await views(id)).toBe(2));
    const [audit] = await rows<{ n: number }>(
      "SELECT count(*) AS n FROM audit_log WHERE action = 'shortlink.open' AND json_extract(details, '$.shortlink') = ?",
      id,
    );
    expect(audit.n).toBe(2);
  });

  it("repeated hits (the isolate's copy) each get their own nonce and count; a password or a revocation stops them at once", async () => {
    const { id, name, owner } = await sharedImage({ acl: ["read"] });
    const first = await read(await page(`/sl/${id}`));
    expect(first.cache).toBe("miss");
    const nonces = new Set([first.nonce]);
    for (let open = 0; open < 4; open++) {
      const again = await read(await page(`/sl/${id}`));
      expect(again.cache).toBe("hit");
      expect(again.body).toBe(first.body);
      expect(again.csp).toContain(`'nonce-${again.nonce}'`);
      nonces.add(again.nonce);
    }
    expect(nonces.size).toBe(5);
    await vi.waitFor(async () => expect(await views(id)).toBe(5));

    // A password set on the link: the next open is the password form, never the held page.
    const locked = await call(`/api/sl/${id}`, { method: "PATCH", bearer: owner.bearer, json: { password: "пароль-9" } });
    expect(locked.status, await locked.text()).toBe(200);
    const form = await read(await page(`/sl/${id}`));
    expect(form.cache).toBe("bypass");
    expect(form.body).toContain('data-testid="shared-password"');
    expect(form.body).not.toContain(name);
  });

  it("a revoked link is gone (410) on the next open though its page was held", async () => {
    const { id, owner, name } = await sharedImage({ acl: ["read"] });
    await read(await page(`/sl/${id}`));
    expect((await read(await page(`/sl/${id}`))).cache).toBe("hit");
    const revoked = await call(`/api/sl/${id}`, { method: "DELETE", bearer: owner.bearer });
    expect(revoked.status, await revoked.text()).toBe(200);
    const closed = await read(await page(`/sl/${id}`));
    expect(closed.status).toBe(410);
    expect(closed.cache).not.toBe("hit");
    expect(closed.body).not.toContain(name);
  });

  it("a change to the link, the file or the creator's rights makes the next answer fresh", async () => {
    const { id, owner, asset, name } = await sharedImage({ acl: ["read", "download"] });
    await read(await page(`/sl/${id}`));
    const cached = await read(await page(`/sl/${id}`));
    expect(cached.cache).toBe("hit");
    expect(cached.body).toContain('data-testid="shared-download"');

    // The link's own rights: view only.
    const patched = await call(`/api/sl/${id}`, { method: "PATCH", bearer: owner.bearer, json: { acl: ["read"] } });
    expect(patched.status, await patched.text()).toBe(200);
    const viewOnly = await read(await page(`/sl/${id}`));
    expect(viewOnly.cache).toBe("miss");
    expect(viewOnly.body).not.toContain('data-testid="shared-download"');

    // The file: renamed.
    const renamed = `${uniqueName("Новое")}.png`;
    const patch = await call(`/api/asset/${asset}`, { method: "PATCH", bearer: owner.bearer, json: { asset_name: renamed } });
    expect(patch.status, await patch.text()).toBe(200);
    expect((await read(await page(`/sl/${id}`))).cache).toBe("miss");
    const after = await read(await page(`/sl/${id}`));
    expect(after.cache).toBe("hit");
    expect(after.body).toContain(renamed);
    expect(after.body).not.toContain(name);

    // The creator's rights: an administrator disables him, and the link closes at once.
    await env.DB.prepare("UPDATE users SET enabled = 0 WHERE id = ?").bind(owner.id).run();
    const closed = await read(await page(`/sl/${id}`));
    expect(closed.status).toBe(404);
    expect(closed.body).not.toContain(renamed);
  });

  it("an access rule, a folder or a membership change bumps the revision; counting an open does not", async () => {
    const { id } = await sharedImage();
    const revision = async () => (await rows<{ revision: number }>("SELECT revision FROM cache_revisions WHERE scope = 'shared'"))[0].revision;
    let before = await revision();
    await read(await page(`/sl/${id}`));
    await read(await page(`/sl/${id}`));
    await vi.waitFor(async () => expect(await views(id)).toBe(2));
    expect(await revision()).toBe(before);
    const { owner } = await sharedImage();
    before = await revision();
    await env.DB.prepare(
      "INSERT INTO access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by) VALUES (?, ?, 'user', ?, 'group', 1, 0, NULL)",
    )
      .bind(`rule-${id}`, owner.id, "f".repeat(32))
      .run();
    expect(await revision()).toBeGreaterThan(before);
    before = await revision();
    await createGroup(owner, uniqueName());
    expect(await revision()).toBeGreaterThan(before);
  });

  it("never serves a password link from the cache, even with a forged unlock cookie; unlocked answers are not stored", async () => {
    const { id, name } = await sharedImage({ password: "пароль-7" });
    for (let i = 0; i < 2; i++) {
      const locked = await read(await page(`/sl/${id}`));
      // The password form answers 200 (no 401s in the browser's console), and is never cached.
      expect(locked.status).toBe(200);
      expect(locked.body).toContain('data-testid="shared-password"');
      expect(locked.cache).toBe("bypass");
      expect(locked.body).not.toContain(name);
    }
    const forged = await read(await page(`/sl/${id}`, { cookie: `sl_${id}=9999999999.${"A".repeat(43)}` }));
    expect(forged.status).toBe(200);
    expect(forged.body).toContain('data-testid="shared-password"');
    expect(forged.body).not.toContain(name);
    const unlock = await call(`/api/sl/info/${id}`, {
      method: "POST",
      json: { password: "пароль-7" },
      headers: { origin: "https://mam.test", "cf-connecting-ip": freshIp() },
    });
    expect(unlock.status, await unlock.clone().text()).toBe(200);
    await unlock.arrayBuffer();
    const cookie = (unlock.headers.get("set-cookie") ?? "").split(";")[0];
    const opened = await read(await page(`/sl/${id}`, { cookie }));
    expect(opened.status).toBe(200);
    expect(opened.cache).toBe("bypass");
    expect(opened.body).toContain(name);
    // The unlocked answer was not stored: without the cookie, the form again.
    const again = await read(await page(`/sl/${id}`));
    expect(again.status).toBe(200);
    expect(again.body).toContain('data-testid="shared-password"');
    expect(again.body).not.toContain(name);
    const info = await call(`/api/sl/info/${id}`);
    expect(info.headers.get("x-mam-cache")).toBe("bypass");
    expect(await info.json()).toEqual({ id, password_required: true });
  });

  it("forged query strings, unknown parameters, unlock cookies and casing give the answer without them", async () => {
    const { id, name } = await sharedImage();
    const plain = await read(await page(`/sl/${id}`));
    expect(plain.cache).toBe("miss");
    for (const variant of [`/sl/${id}?utm_source=x&b=2&a=1`, `/sl/${id}?page=0`, `/sl/${id}?page=abc&zz=1`]) {
      const answer = await read(await page(variant));
      expect(answer.cache, variant).toBe("hit");
      expect(answer.body, variant).toBe(plain.body);
    }
    const withCookie = await read(await page(`/sl/${id}`, { cookie: `sl_${id}=1.forged; other=1` }));
    expect(withCookie.cache).toBe("hit");
    expect(withCookie.body).toBe(plain.body);
    // Ids are case-sensitive secrets: another casing is another (here unknown) link, never this one's cached page.
    const swapped = id.replace(/[a-z]/g, (c) => c.toUpperCase()) === id ? id.toLowerCase() : id.replace(/[a-z]/g, (c) => c.toUpperCase());
    const other = await read(await page(`/sl/${swapped}`));
    expect(other.status).toBe(404);
    expect(other.body).not.toContain(name);
    // Page order does not split the key either: ?folder=&page= in any order is one entry (a folder link).
    const owner = await ordinaryUser();
    const top = await createGroup(owner, uniqueName());
    const inner = await createGroup(owner, uniqueName(), top);
    const made = await call(`/api/sl/create/${top}`, { method: "POST", bearer: owner.bearer, json: {} });
    const folderLink = LINK_URL.exec(await made.text())![1];
    const a = await read(await page(`/sl/${folderLink}?folder=${inner}&page=0`));
    const b = await read(await page(`/sl/${folderLink}?page=0&x=1&folder=${inner}`));
    expect(a.status).toBe(200);
    expect(a.cache).toBe("miss");
    expect(b.cache).toBe("hit");
    expect(b.body).toBe(a.body);
  });

  it("Remix data requests (?_data=, ?_routes=) are never answered with the cached page nor stored", async () => {
    const { id, name } = await sharedImage();
    const plain = await read(await page(`/sl/${id}`));
    expect(plain.cache).toBe("miss");
    expect((await read(await page(`/sl/${id}`))).cache).toBe("hit");
    // Remix warns that ?_data is legacy under single fetch, and still answers it with JSON.
    expectConsoleError();
    for (const variant of [`/sl/${id}?_data=${encodeURIComponent("routes/sl.$id")}`, `/sl/${id}?_data=root&page=0`]) {
      const res = await page(variant);
      const answer = await read(res);
      expect(answer.cache, variant).toBe("bypass");
      expect(answer.body, variant).not.toContain("<!DOCTYPE html>");
      expect(res.headers.get("content-type") ?? "", variant).not.toMatch(/^text\/html/);
    }
    expect((await read(await page(`/sl/${id}?_routes=root`))).cache).toBe("bypass");
    // The data answers were not stored under the page's key: the document is still the document.
    const again = await read(await page(`/sl/${id}`));
    expect(again.cache).toBe("hit");
    expect(again.body).toBe(plain.body);
    expect(again.body).toContain(name);
  });

  it("a signed-in request is never answered from the cache nor stored", async () => {
    const { id } = await sharedImage();
    await read(await page(`/sl/${id}`));
    const viewer = await ordinaryUser();
    const signedIn = await read(await page(`/sl/${id}`, { authorization: `Bearer ${viewer.bearer}` }));
    expect(signedIn.cache).toBe("bypass");
    const withSession = await read(await call(`/sl/${id}`, { refresh: viewer.refresh }));
    expect(withSession.cache).toBe("bypass");
  });
});

describe("edge cache of /api/sl/info and previews", () => {
  it("the info answer is reused and equal", async () => {
    const { id } = await sharedImage();
    const first = await call(`/api/sl/info/${id}`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(first.headers.get("x-mam-cache")).toBe("miss");
    const a = await first.json();
    const second = await call(`/api/sl/info/${id}?junk=1`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(second.status).toBe(200);
    expect(second.headers.get("x-mam-cache")).toBe("hit");
    expect(second.headers.get("cache-control")).toBe("no-store");
    expect(await second.json()).toEqual(a);
    await vi.waitFor(async () => expect(await views(id)).toBe(2));
  });

  it("a link's thumbnail is cached, carries an ETag and answers 304 to If-None-Match", async () => {
    const { id } = await sharedImage();
    const info = (await (await call(`/api/sl/info/${id}`)).json()) as { asset: { thumb_url: string } };
    const first = await call(info.asset.thumb_url);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-mam-cache")).toBe("miss");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    const bytes = new Uint8Array(await first.arrayBuffer());
    const second = await call(info.asset.thumb_url);
    expect(second.headers.get("x-mam-cache")).toBe("hit");
    expect(second.headers.get("etag")).toBe(etag);
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(bytes);
    const notModified = await call(info.asset.thumb_url, { headers: { "if-none-match": `W/${etag}` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    // A forged signature never reaches the cache.
    const forged = await call(info.asset.thumb_url.replace(/sig=[^&]+/, "sig=AAAA"));
    expect(forged.status).toBe(403);
    await forged.arrayBuffer();
  });

  it("a signed-in preview is private, with an ETag and 304", async () => {
    const owner = await ordinaryUser();
    const group = await createGroup(owner, uniqueName());
    const asset = await createAsset(owner.bearer, { in_group: group, asset_name: "x.png" });
    await uploadVersion(owner.bearer, asset, bytesOf(2000, 9), { file_name: "x.png", mime_type: "image/png" });
    const up = await call(`/api/asset/upload-preview/${asset}?size=thumb`, {
      method: "POST",
      bearer: owner.bearer,
      body: fixture("png"),
      headers: { "content-type": "image/png" },
    });
    expect(up.status, await up.text()).toBe(200);
    const first = await call(`/api/asset/content/preview/${asset}/1/thumb`, { bearer: owner.bearer });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toMatch(/^private/);
    const etag = first.headers.get("etag")!;
    await first.arrayBuffer();
    const again = await call(`/api/asset/content/preview/${asset}/1/thumb`, { bearer: owner.bearer, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});
