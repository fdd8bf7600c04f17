import { exports } from "cloudflare:workers";
import * as build from "remix-server-build";
import { describe, expect, it, vi } from "vitest";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { expectConsoleError } from "../setup/fail-on-console-error";
import { call, expectError, ORIGIN, REFRESH_COOKIE } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, uniqueName } from "./library-factories";

/**
 * The browser policy of every page (security tier): each route of the Remix route table, signed in and anonymous,
 * answers with a strict CSP whose nonce every inline script carries, no framing, and the isolation headers; API
 * answers carry the base set. Cross-site form posts and cookie calls are refused; expensive calls are rate-limited.
 */

type RouteEntry = { id: string; path?: string; index?: boolean; parentId?: string };
const routes = build.routes as unknown as Record<string, RouteEntry>;

/** Every page path of the route table, with `:params` filled from `fill` (optional segments filled too). */
function pagePaths(fill: Record<string, string>): string[] {
  const fullPath = (route: RouteEntry): string => {
    const parent = route.parentId ? routes[route.parentId] : undefined;
    const prefix = parent ? fullPath(parent) : "";
    return route.path ? `${prefix.replace(/\/$/, "")}/${route.path}` : prefix;
  };
  const hasChildren = new Set(Object.values(routes).map((r) => r.parentId));
  const paths = Object.values(routes)
    .filter((r) => r.index || (r.path !== undefined && !hasChildren.has(r.id)))
    .map((r) => fullPath(r).replace(/:(\w+)\??/g, (_, name: string) => fill[name] ?? fill.id) || "/");
  return [...new Set(paths)].sort();
}

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
}

/** Fails on a missing or weakened directive of a page's policy; returns the nonce. */
function expectStrictPage(res: Response, where: string): string {
  const csp = res.headers.get("content-security-policy");
  expect(csp, `${where}: CSP`).toBeTruthy();
  const d = directives(csp!);
  const script = d.get("script-src") ?? [];
  expect(script, where).not.toContain("'unsafe-inline'");
  expect(script, where).not.toContain("'unsafe-eval'");
  expect(script.some((s) => s === "*" || s.startsWith("http:") || s === "https:"), where).toBe(false);
  const nonce = script.find((s) => s.startsWith("'nonce-"))?.slice(7, -1);
  expect(nonce, `${where}: nonce`).toMatch(/^[A-Za-z0-9+/=]{20,}$/);
  expect(d.get("object-src"), where).toEqual(["'none'"]);
  expect(d.get("base-uri"), where).toEqual(["'none'"]);
  expect(d.get("default-src"), where).toEqual(["'self'"]);
  expect(d.get("report-uri"), where).toEqual(["/api/csp-report"]);
  if (!where.includes("/sl/")) expect(d.get("frame-ancestors"), where).toEqual(["'none'"]);
  if (!where.includes("/sl/")) expect(res.headers.get("x-frame-options"), where).toBe("DENY");
  expect(res.headers.get("x-content-type-options"), where).toBe("nosniff");
  expect(res.headers.get("referrer-policy"), where).toBe("strict-origin-when-cross-origin");
  expect(res.headers.get("cross-origin-opener-policy"), where).toBe("same-origin");
  expect(res.headers.get("permissions-policy"), where).toMatch(/camera=\(\)/);
  expect(res.headers.get("strict-transport-security"), where).toMatch(/max-age=31536000/); // ORIGIN is https
  return nonce!;
}

/** Every inline <script> of the page carries the response's nonce; external ones come from our origin. */
function expectScriptsCarry(html: string, nonce: string, where: string) {
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
  expect(scripts.length, where).toBeGreaterThan(0);
  for (const attrs of scripts) {
    const src = /\bsrc="([^"]*)"/.exec(attrs)?.[1];
    if (src) expect(src.startsWith("/") && !src.startsWith("//"), `${where}: ${src}`).toBe(true);
    else expect(attrs, `${where}: inline script`).toContain(`nonce="${nonce}"`);
  }
}

async function expectSecured(path: string, refresh?: string) {
  const res = await call(path, { refresh });
  const where = `${refresh ? "signed in" : "anonymous"} ${path} (${res.status})`;
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get("x-content-type-options"), where).toBe("nosniff");
  if ((res.headers.get("content-type") ?? "").startsWith("text/html")) {
    const nonce = expectStrictPage(res, where);
    expectScriptsCarry(await res.text(), nonce, where);
  } else {
    expect(res.headers.get("x-frame-options"), where).toBe("DENY");
    await res.body?.cancel();
  }
}

describe("page headers", () => {
  it("every route of the route table, signed in and anonymous, answers with the strict policy", async () => {
    const me = await admin();
    const group = await createGroup(me, uniqueName());
    const asset = await insertAsset({ ownerId: me.id, groups: [group], name: "clip.mp4" });
    const paths = pagePaths({ idGroup: group, id: asset.id });
    expect(paths).toEqual(expect.arrayContaining(["/login", "/mam", `/mam/${group}`, "/admin/active-users", "/search", `/sl/${asset.id}`]));
    for (const path of paths) {
      await expectSecured(path, me.refresh);
      await expectSecured(path);
    }
  });

  it("error states carry the same policy: an unknown page, a missing folder, the root group", async () => {
    const me = await admin();
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const path of ["/no-such-page", `/mam/${"a".repeat(32)}`, `/mam/${ROOT_GROUP_ID}`, "/jobs/not-an-id"]) {
      await expectSecured(path, me.refresh);
    }
    const missing = await call("/no-such-page", { refresh: me.refresh });
    expect(missing.status).toBe(404);
    await missing.body?.cancel();
  });

  it("uses a fresh nonce for every response", async () => {
    const a = await call("/login");
    const b = await call("/login");
    const nonceOf = (res: Response) => /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonceOf(a)).toBeTruthy();
    expect(nonceOf(a)).not.toBe(nonceOf(b));
    await Promise.all([a.body?.cancel(), b.body?.cancel()]);
  });

  it("sends no HSTS over plain http, and HSTS over https", async () => {
    const plain = await exports.default.fetch(new Request("http://mam.local/login"));
    expect(plain.headers.get("strict-transport-security")).toBeNull();
    expect(plain.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    await plain.body?.cancel();
  });

  it("the API reference page runs its boot script by nonce", async () => {
    const res = await call("/api/docs");
    const nonce = expectStrictPage(res, "/api/docs");
    expectScriptsCarry(await res.text(), nonce, "/api/docs");
  });

  it("API answers, errors included, carry nosniff, SAMEORIGIN framing and HSTS", async () => {
    for (const res of [await call("/api/health"), await call("/api/auth/whoami"), await call("/api/no-such-call")]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      expect(res.headers.get("strict-transport-security")).toMatch(/max-age/);
      await res.body?.cancel();
    }
  });
});

describe("cookies", () => {
  it("the refresh cookie is __Host- prefixed, Secure, HttpOnly, SameSite=Lax and Path=/ over https", async () => {
    expect(REFRESH_COOKIE).toBe("__Host-mam_refresh");
    const res = await call("/api/auth/login", { method: "POST", json: { user: "admin", passwd: "test-admin-password-0123" } });
    const line = res.headers.getSetCookie().find((c) => c.startsWith("__Host-mam_refresh="));
    expect(line).toMatch(/; Secure/i);
    expect(line).toMatch(/; HttpOnly/i);
    expect(line).toMatch(/; SameSite=Lax/i);
    expect(line).toMatch(/; Path=\/(;|$)/);
    expect(line).not.toMatch(/Domain=/i);
  });
});

describe("CSRF", () => {
  const crossSite: Record<string, string>[] = [
    { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    { origin: "https://evil.example" },
    { "sec-fetch-site": "cross-site" },
    { origin: "null" },
  ];

  it("a form posted to any page from another site never reaches an action", async () => {
    const me = await admin();
    for (const headers of crossSite) {
      for (const path of ["/mam", "/login", "/admin/active-users"]) {
        const res = await call(path, { method: "POST", refresh: me.refresh, headers: { ...headers, "content-type": "application/x-www-form-urlencoded" }, body: "intent=delete" });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
        await res.body?.cancel();
      }
    }
  });

  it("a same-origin post still reaches Remix (no action there: 405)", async () => {
    const me = await admin();
    expectConsoleError(); // Remix logs the missing action
    const res = await call("/mam", { method: "POST", refresh: me.refresh, headers: { origin: ORIGIN, host: new URL(ORIGIN).host, "sec-fetch-site": "same-origin" }, body: "" });
    expect(res.status).toBe(405);
    await res.body?.cancel();
  });

  it("refresh and logout refuse cross-site requests and keep the session", async () => {
    const me = await admin();
    for (const headers of crossSite) {
      for (const path of ["/api/auth/refresh", "/api/auth/logout"]) {
        await expectError(await call(path, { refresh: me.refresh, headers }), 403);
      }
    }
    const still = await call("/api/auth/refresh", { refresh: me.refresh, headers: { "sec-fetch-site": "same-origin" } });
    expect(still.status).toBe(200);
    await still.body?.cancel();
  });

  it("a shortlink password cannot be posted from another site (it would plant an unlock cookie)", async () => {
    const path = "/api/sl/info/AAAAAAAAAAAAAAAAAAAAAA";
    for (const headers of crossSite) {
      await expectError(await call(path, { method: "POST", headers, json: { password: "guess" } }), 403);
    }
    // the same call from the page itself reaches the link lookup
    await expectError(await call(path, { method: "POST", headers: { origin: ORIGIN }, json: { password: "guess" } }), 404);
  });
});

describe("rate limits of expensive calls", () => {
  // buckets refill while a test runs (2 calls a second at 120 per minute), so a refusal comes a little after the allowance
  it("group-size answers 429 with Retry-After past the per-user allowance; another user is not affected", async () => {
    const me = await admin();
    const group = await createGroup(me, uniqueName());
    const ask = (bearer: string, ip: string) =>
      call("/api/group/group-size", { method: "POST", bearer, json: { ids: [group] }, headers: { "cf-connecting-ip": ip } });
    let refused: Response | undefined;
    let calls = 0;
    // a new address every call: only the user's bucket can run out
    while (!refused && calls < 400) {
      const res = await ask(me.bearer, `198.51.100.${calls % 250}`);
      calls += 1;
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        await res.body?.cancel();
      }
    }
    expect(refused, "refused within 400 calls").toBeDefined();
    expect(calls).toBeGreaterThan(120);
    const body = await expectError(refused!, 429);
    expect(body.message).toMatch(/Слишком много запросов/);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const other = await ordinaryUser();
    const fine = await call("/api/group/group-size", { method: "POST", bearer: other.bearer, json: { ids: [group] }, headers: { "cf-connecting-ip": "198.51.100.251" } });
    expect(fine.status).not.toBe(429);
    await fine.body?.cancel();
  });

  it("a client IP is limited across users at twice the per-user allowance", async () => {
    const me = await admin();
    const group = await createGroup(me, uniqueName());
    const users = await Promise.all([ordinaryUser(), ordinaryUser(), ordinaryUser(), ordinaryUser()]);
    let refusedAt = -1;
    // four users in turn from one address: none comes near his own 120, the address's 240 runs out
    for (let i = 0; i < 400 && refusedAt < 0; i++) {
      const res = await call("/api/group/group-size", {
        method: "POST",
        bearer: users[i % users.length].bearer,
        json: { ids: [group] },
        headers: { "cf-connecting-ip": "203.0.113.9" },
      });
      if (res.status === 429) refusedAt = i;
      await res.body?.cancel();
    }
    expect(refusedAt).toBeGreaterThanOrEqual(240);
    expect(refusedAt / users.length).toBeLessThan(120);
  });
});

describe("CSP reports", () => {
  it("logs a violation report and answers 204; refuses malformed and oversized ones", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const ok = await call("/api/csp-report", {
      method: "POST",
      headers: { "content-type": "application/csp-report" },
      body: JSON.stringify({ "csp-report": { "document-uri": `${ORIGIN}/mam`, "blocked-uri": "inline", "effective-directive": "script-src-elem" } }),
    });
    expect(ok.status).toBe(204);
    expect(warn.mock.calls.some((args) => String(args[0]).includes("csp.violation") && String(args[0]).includes("script-src-elem"))).toBe(true);
    const modern = await call("/api/csp-report", {
      method: "POST",
      headers: { "content-type": "application/reports+json" },
      body: JSON.stringify([{ type: "csp-violation", url: `${ORIGIN}/mam`, body: { blockedURL: "eval", effectiveDirective: "script-src" } }]),
    });
    expect(modern.status).toBe(204);
    await expectError(await call("/api/csp-report", { method: "POST", headers: { "content-type": "application/csp-report" }, body: "{not json" }), 400);
    await expectError(await call("/api/csp-report", { method: "POST", headers: { "content-type": "application/csp-report" }, body: JSON.stringify({ other: 1 }) }), 400);
    await expectError(
      await call("/api/csp-report", { method: "POST", headers: { "content-type": "application/csp-report" }, body: JSON.stringify({ "csp-report": { x: "y".repeat(20_000) } }) }),
      400,
    );
    warn.mockRestore();
  });
});
