import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { bytesOf, createAsset, rows, uploadVersion } from "./asset-fixtures";
import { fixture } from "./processing-fixtures";
import { call } from "./factories";
import { createGroup, ordinaryUser, uniqueName } from "./library-factories";

/** The public /sl/{id} page (issue 12), server-rendered by the Worker for visitors without a session. */

const LINK_URL = /\/sl\/([A-Za-z0-9_-]{22})$/;
let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter}`;

/** An owner's uploaded video and a link to it made with `body`; answers the link id and the asset's name. */
async function sharedVideo(body: Record<string, unknown> = {}) {
  const owner = await ordinaryUser();
  const group = await createGroup(owner, uniqueName());
  const name = `${uniqueName()}.mp4`;
  const asset = await createAsset(owner.bearer, { in_group: group, asset_name: name });
  await uploadVersion(owner.bearer, asset, bytesOf(3000, 3), { file_name: name, mime_type: "video/mp4" });
  const res = await call(`/api/sl/create/${asset}`, { method: "POST", bearer: owner.bearer, json: body });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { id: LINK_URL.exec(text)![1], name, owner, asset };
}

function page(id: string, init: { cookie?: string; method?: string; body?: URLSearchParams } = {}) {
  const headers: Record<string, string> = { "cf-connecting-ip": freshIp() };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.body) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers.origin = "https://mam.test";
    headers.host = "mam.test"; // Remix compares the Origin of an action with the Host
  }
  return call(`/sl/${id}`, { method: init.method ?? "GET", headers, body: init.body?.toString() });
}

/** A page's HTML with its status and the headers every /sl answer carries (never cached, never indexed). */
async function html(res: Response, status: number): Promise<string> {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-robots-tag")).toContain("noindex");
  expect(text).toMatch(/<meta name="robots" content="noindex, nofollow"/);
  return text;
}

describe("GET /sl/{id}", () => {
  it("renders an open link with the player, Open Graph and Twitter tags, and counts the open", async () => {
    const { id, name, owner, asset } = await sharedVideo({ acl: ["read", "download"] });
    // Without a preview there is no og:image (it would point at nothing): a summary card.
    const bare = await html(await page(id), 200);
    expect(bare).not.toContain("og:image");
    expect(bare).toContain('<meta name="twitter:card" content="summary"/>');
    // With its poster (the browser uploads one for videos), the large card.
    const poster = await call(`/api/asset/upload-preview/${asset}?size=medium`, {
      method: "POST",
      bearer: owner.bearer,
      body: fixture("png"),
      headers: { "content-type": "image/png" },
    });
    expect(poster.status, await poster.clone().text()).toBe(200);
    await poster.arrayBuffer();
    const text = await html(await page(id), 200);
    expect(text).toContain(`<meta property="og:title" content="${name}"/>`);
    // The video has no preview: no og:image that could only answer 404 (issue 24), a plain summary card.
    expect(text).not.toContain('property="og:image"');
    expect(text).toContain('<meta name="twitter:card" content="summary"/>');
    expect(text).toContain('data-testid="shared-video"');
    expect(text).toContain('data-testid="shared-download"');
    // No bearer and no app API in the page: only the link's own signed media URLs.
    expect(text).not.toMatch(/\/api\/asset\/content\//);
    const [row] = await rows<{ views: number }>("SELECT views FROM shortlinks WHERE id = ?", id);
    expect(row.views).toBe(2);
  });

  it("a view-only link offers no download", async () => {
    const { id } = await sharedVideo({ acl: ["read"] });
    expect(await html(await page(id), 200)).not.toContain('data-testid="shared-download"');
  });

  it("unknown and malformed ids are the same 404 page", async () => {
    for (const id of ["A".repeat(22), "short", "x-".repeat(40)]) {
      expect(await html(await page(id), 404)).toContain(ru.sharing.notFoundTitle);
    }
  });

  it("a revoked link is 410, a link not yet open 403 with the moment it opens", async () => {
    const { id, owner } = await sharedVideo();
    expect((await call(`/api/sl/${id}`, { method: "DELETE", bearer: owner.bearer })).status).toBe(200);
    expect(await html(await page(id), 410)).toContain(ru.sharing.revokedTitle);
    const opens = new Date(Date.now() + 86_400_000);
    const later = await sharedVideo({ time_range: [opens.toISOString(), null] });
    const text = await html(await page(later.id), 403);
    expect(text).toContain(ru.sharing.notYetTitle);
    expect(text).toContain(String(opens.getUTCFullYear()));
  });

  it("a password link shows only the form (no name, no preview); the right password opens it through a cookie", async () => {
    const { id, name } = await sharedVideo({ password: "пароль-1" });
    const locked = await html(await page(id), 200);
    expect(locked).toContain('data-testid="shared-password"');
    expect(locked).not.toContain(name);
    expect(locked).not.toContain("og:image");
    const wrong = await html(await page(id, { method: "POST", body: new URLSearchParams({ password: "нет" }) }), 200);
    expect(wrong).toContain(ru.sharing.wrongPassword);
    const right = await page(id, { method: "POST", body: new URLSearchParams({ password: "пароль-1" }) });
    expect(right.status).toBe(302);
    const setCookie = right.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^sl_${id}=\\d+\\.[A-Za-z0-9_-]+; Path=/; HttpOnly; SameSite=Lax; Max-Age=7200`));
    await right.body?.cancel();
    const opened = await html(await page(id, { cookie: setCookie.split(";")[0] }), 200);
    expect(opened).toContain(name);
    const [audit] = await rows<{ n: number }>(
      "SELECT count(*) AS n FROM audit_log WHERE action = 'shortlink.password_failed' AND json_extract(details, '$.shortlink') = ?",
      id,
    );
    expect(audit.n).toBe(1);
  });
});
