import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DbSession } from "../../workers/db/session";
import { BOOKMARK_COOKIE, BOOKMARK_HEADER, BookmarkSchema, sessionStartOf } from "../../workers/lib/d1-bookmark";
import { roundTripsOf } from "../../workers/db/round-trips";
import { ORIGIN, REFRESH_COOKIE, call, signIn, signInAdmin } from "./factories";
import { TIMING_KEY_HEADER } from "../../workers/lib/server-timing";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { authenticateBearer } from "../../workers/services/access/auth.service";
import { createRequestContext } from "../../workers/services/access/context";

// Decision 030: every request runs in its own D1 session (env.DB.withSession) that starts from the caller's bookmark
// and hands the latest one back — header for API clients, HttpOnly cookie for browsers. Locally there are no
// replicas, so these tests pin the plumbing: what is sent, what is accepted, what is ignored.

function bookmarkCookie(res: Response): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${BOOKMARK_COOKIE}=`));
}

async function createFolder(bearer: string, name: string, headers: Record<string, string> = {}) {
  return call("/api/group/create", { method: "POST", bearer, json: { parent: ROOT_GROUP_ID, group_name: name }, headers });
}

describe("D1 sessions and bookmarks", () => {
  it("answers an API call with a well-formed x-d1-bookmark and no cookie for a bearer caller", async () => {
    const user = await signIn();
    const res = await call("/api/auth/whoami", { bearer: user.bearer });
    expect(res.status).toBe(200);
    const bookmark = res.headers.get(BOOKMARK_HEADER);
    expect(BookmarkSchema.safeParse(bookmark).success, String(bookmark)).toBe(true);
    expect(bookmarkCookie(res)).toBeUndefined();
  });

  it("reads its own write in the next request when the bookmark is sent back", async () => {
    const user = await signIn();
    const name = `Папка ${crypto.randomUUID()}`;
    const created = await createFolder(user.bearer, name);
    expect(created.status).toBe(200);
    const { group_id: id } = (await created.json()) as { group_id: string };
    const afterWrite = created.headers.get(BOOKMARK_HEADER)!;
    expect(BookmarkSchema.safeParse(afterWrite).success).toBe(true);

    const read = await call(`/api/group/get/${id}`, { bearer: user.bearer, headers: { [BOOKMARK_HEADER]: afterWrite } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { group_name: string }).group_name).toBe(name);
    // a session never goes back in time: the read's bookmark is at least the write's (bookmarks sort in commit order)
    expect(read.headers.get(BOOKMARK_HEADER)! >= afterWrite).toBe(true);
  });

  it("gives a browser the bookmark as an HttpOnly, SameSite=Lax cookie on pages and API calls, and takes it back", async () => {
    const user = await signIn();
    const page = await call("/mam", { refresh: user.refresh });
    expect(page.status).toBe(200);
    await page.body?.cancel();
    const cookie = bookmarkCookie(page)!;
    expect(cookie).toMatch(/^mam_d1b=[0-9a-f-]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const value = cookie.split(";")[0]!.slice(BOOKMARK_COOKIE.length + 1);

    // the same bookmark coming back as a cookie is not set again; the answer still carries it in the header
    const again = await call("/mam", { headers: { cookie: `${REFRESH_COOKIE}=${user.refresh}; ${BOOKMARK_COOKIE}=${value}` } });
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect(again.headers.get(BOOKMARK_HEADER)! >= value).toBe(true);
    if (again.headers.get(BOOKMARK_HEADER) === value) expect(bookmarkCookie(again)).toBeUndefined();

    // the UI's API calls carry a bearer and the cookies: a write there moves the cookie too, so the next page sees it
    const write = await createFolder(user.bearer, `Папка ${crypto.randomUUID()}`, {
      cookie: `${REFRESH_COOKIE}=${user.refresh}; ${BOOKMARK_COOKIE}=${value}`,
    });
    expect(write.status).toBe(200);
    expect(bookmarkCookie(write)).toBe(`${BOOKMARK_COOKIE}=${write.headers.get(BOOKMARK_HEADER)}; Path=/; HttpOnly; SameSite=Lax; Secure`);
  });

  it.each([
    ["garbage", "not a bookmark; drop table users"],
    ["an oversized value", "0".repeat(5_000)],
    ["a well-formed bookmark of another database", `ffffffff-ffffffff-ffffffff-${"ab".repeat(16)}`],
    ["a stale bookmark", `00000000-00000000-00000000-${"00".repeat(16)}`],
  ])("ignores %s in the header or the cookie: a normal answer, a fresh bookmark", async (_label, bad) => {
    const user = await signIn();
    const viaHeader = await call("/api/auth/whoami", { bearer: user.bearer, headers: { [BOOKMARK_HEADER]: bad } });
    expect(viaHeader.status).toBe(200);
    expect(((await viaHeader.json()) as { id: string }).id).toBe(user.id);
    expect(BookmarkSchema.safeParse(viaHeader.headers.get(BOOKMARK_HEADER)).success).toBe(true);

    const write = await createFolder(user.bearer, `Папка ${crypto.randomUUID()}`, { [BOOKMARK_HEADER]: bad });
    expect(write.status).toBe(200);

    const viaCookie = await call("/login", { headers: { cookie: `${BOOKMARK_COOKIE}=${encodeURIComponent(bad)}` } });
    expect(viaCookie.status).toBe(200);
    await viaCookie.body?.cancel();
  });

  it("starts anonymous reads anywhere, everything signed in or writing at the primary, a valid bookmark where it points", () => {
    const at = (init: RequestInit & { headers?: Record<string, string> }) => sessionStartOf(new Request(`${ORIGIN}/sl/x`, init));
    expect(at({})).toEqual({ bookmark: null, constraint: "first-unconstrained" });
    expect(at({ method: "POST" })).toEqual({ bookmark: null, constraint: "first-primary" });
    expect(at({ headers: { authorization: "Bearer x" } })).toEqual({ bookmark: null, constraint: "first-primary" });
    expect(at({ headers: { cookie: `${REFRESH_COOKIE}=abc` } })).toEqual({ bookmark: null, constraint: "first-primary" });
    const valid = `0000000a-00000002-00004e5e-${"c1".repeat(16)}`;
    expect(at({ headers: { [BOOKMARK_HEADER]: valid } })).toEqual({ bookmark: valid, constraint: "first-unconstrained" });
    expect(at({ headers: { cookie: `other=1; ${BOOKMARK_COOKIE}=${valid}` } }).bookmark).toBe(valid);
    expect(at({ headers: { cookie: `${BOOKMARK_COOKIE}=${valid}'--` } }).bookmark).toBeNull();
  });

  it("never lets a client bookmark move a signed-in request or a write off the primary", () => {
    const at = (init: RequestInit & { headers?: Record<string, string> }) => sessionStartOf(new Request(`${ORIGIN}/api/x`, init));
    const valid = `0000000a-00000002-00004e5e-${"c1".repeat(16)}`;
    const primary = { bookmark: null, constraint: "first-primary" };
    expect(at({ headers: { authorization: "Bearer x", [BOOKMARK_HEADER]: valid } })).toEqual(primary);
    expect(at({ headers: { authorization: "Bearer mamr_x", cookie: `${BOOKMARK_COOKIE}=${valid}` } })).toEqual(primary);
    expect(at({ headers: { cookie: `${REFRESH_COOKIE}=abc; ${BOOKMARK_COOKIE}=${valid}` } })).toEqual(primary);
    expect(at({ headers: { cookie: `mam_refresh=abc`, [BOOKMARK_HEADER]: valid } })).toEqual(primary);
    // an anonymous sign-in or token trade reads users and tokens too: a write, so the primary
    expect(at({ method: "POST", headers: { [BOOKMARK_HEADER]: valid } })).toEqual(primary);
  });

  it("authenticates a bearer carrying an old bookmark in a session that started at the primary", async () => {
    const user = await signIn();
    const starts: string[] = [];
    const recording = {
      withSession(start: string) {
        starts.push(start);
        // local D1 has no replicas: the real session is started at the primary whatever was asked, the ask is what is tested
        return env.DB.withSession("first-primary");
      },
    } as unknown as D1Database;
    const stale = `00000001-00000001-00000001-${"ab".repeat(16)}`;
    const request = new Request(`${ORIGIN}/api/auth/whoami`, { headers: { authorization: `Bearer ${user.bearer}`, [BOOKMARK_HEADER]: stale } });
    const ctx = createExecutionContext();
    const rc = createRequestContext({ ...env, DB: recording }, (p) => ctx.waitUntil(p), "test", sessionStartOf(request));
    const actor = await authenticateBearer(rc, user.bearer);
    expect(actor.id).toBe(user.id);
    expect(starts).toEqual(["first-primary"]);
  });

  it("reports the request's D1 round trips in Server-Timing on API answers, error answers and pages (to the operator)", async () => {
    const user = await signIn();
    const operator = { [TIMING_KEY_HEADER]: env.METRICS_TOKEN };
    for (const res of [
      await call("/api/auth/whoami", { bearer: user.bearer, headers: operator }),
      await call("/api/group/get/00000000000000000000000000000000", { bearer: user.bearer, headers: operator }),
      await call("/login", { headers: operator }),
      await call("/api/ping", { headers: operator }),
    ]) {
      await res.body?.cancel();
      const timing = res.headers.get("server-timing");
      expect(timing).toMatch(/db;dur=\d+\.\d;desc="\d+ round trips?, \d+ quer(?:y|ies)", total;dur=\d+\.\d/);
      expect(roundTripsOf(timing)).toBeGreaterThanOrEqual(0);
    }
  });

  it("gives the database detail of Server-Timing to administrators only: others get the plain total", async () => {
    const user = await signIn();
    const admin = await signInAdmin();
    const missing = "/api/group/get/00000000000000000000000000000000";
    const plain = /^total;dur=\d+\.\d$/;
    for (const res of [
      await call("/api/auth/whoami", { bearer: user.bearer }),
      await call(missing, { bearer: user.bearer }),
      await call("/api/ping"),
      await call("/login"),
      await call("/mam", { refresh: user.refresh }),
      await call(missing, { bearer: user.bearer, headers: { [TIMING_KEY_HEADER]: "wrong-key-0123456789" } }),
    ]) {
      await res.body?.cancel();
      expect(res.headers.get("server-timing")).toMatch(plain);
    }
    for (const res of [await call(missing, { bearer: admin.bearer }), await call("/mam", { refresh: admin.refresh })]) {
      await res.body?.cancel();
      expect(roundTripsOf(res.headers.get("server-timing"))).toBeGreaterThan(0);
    }
  });

  it("never hands a bookmark to an anonymous caller (header or cookie); signed-in callers get it", async () => {
    const user = await signIn();
    for (const res of [await call("/login"), await call("/api/ping"), await call("/api/health"), await call("/sl/AAAAAAAAAAAAAAAAAAAAAA")]) {
      await res.body?.cancel();
      expect(res.headers.get(BOOKMARK_HEADER)).toBeNull();
      expect(bookmarkCookie(res)).toBeUndefined();
    }
    const signedIn = await call("/api/auth/whoami", { bearer: user.bearer });
    await signedIn.body?.cancel();
    expect(BookmarkSchema.safeParse(signedIn.headers.get(BOOKMARK_HEADER)).success).toBe(true);
  });

  it("counts calls made together as one round trip and calls made after each other as more", async () => {
    const session = new DbSession(env.DB, { constraint: "first-primary" });
    const one = () => session.client.prepare("select 1 as x").first();
    await Promise.all([one(), one(), session.client.batch([session.client.prepare("select 2"), session.client.prepare("select 3")])]);
    expect(session.meter).toMatchObject({ roundTrips: 1, calls: 3, statements: 4 });
    await one();
    await one();
    expect(session.meter).toMatchObject({ roundTrips: 3, calls: 5, statements: 6 });
    expect(roundTripsOf(session.meter.serverTiming())).toBe(3);
  });

  it("starts again without a bookmark the database refuses, once, and keeps other errors", async () => {
    // The runtime's refusal of a bookmark it cannot honour, as production D1 answers it: the first call fails.
    const refusing = {
      withSession(start: string) {
        if (start === "first-primary" || start === "first-unconstrained") return env.DB.withSession(start);
        return { prepare: () => ({ bind: () => ({ first: () => Promise.reject(new Error("D1_ERROR: invalid bookmark")) }) }), getBookmark: () => null };
      },
    } as unknown as D1Database;
    const session = new DbSession(refusing, { bookmark: `0000000a-00000002-00004e5e-${"c1".repeat(16)}`, constraint: "first-primary" });
    expect(await session.client.prepare("select ? as x").bind(7).first("x")).toBe(7);
    expect(session.meter.bookmarkRetried).toBe(true);
    expect(BookmarkSchema.safeParse(session.bookmark()).success).toBe(true);
    await expect(session.client.prepare("select * from no_such_table").all()).rejects.toThrow(/no such table/);
  });
});
