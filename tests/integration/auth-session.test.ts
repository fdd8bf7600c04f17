import { env } from "cloudflare:workers";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { call, expectError, ORIGIN, REFRESH_COOKIE, refreshTokenFrom, setCookies, signIn } from "./factories";

function refresh(token: string | undefined, headers?: Record<string, string>) {
  return call("/api/auth/refresh", { refresh: token, headers });
}

function whoamiStatus(bearer: string) {
  return call("/api/auth/whoami", { bearer }).then(async (res) => {
    await res.body?.cancel();
    return res.status;
  });
}

async function tokensFrom(res: Response) {
  const body = (await res.json()) as { bearer: string; expire: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { ...body, refresh: refreshTokenFrom(res)! };
}

describe("GET /api/auth/refresh", () => {
  it("rotates the cookie and issues a new access token of the same session", async () => {
    const user = await signIn();
    const res = await refresh(user.refresh);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const next = await tokensFrom(res);
    expect(next.refresh).toBeTruthy();
    expect(next.refresh).not.toBe(user.refresh);
    expect(setCookies(res).find((c) => c.startsWith(`${REFRESH_COOKIE}=`))).toMatch(/HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/i);
    expect(decodeJwt(next.bearer)).toMatchObject({ sub: user.id, sid: decodeJwt(user.bearer).sid });
    expect(await whoamiStatus(next.bearer)).toBe(200);
    // The rotated token works in turn.
    await tokensFrom(await refresh(next.refresh));
  });

  it("accepts a same-origin request", async () => {
    const user = await signIn();
    await tokensFrom(await refresh(user.refresh, { origin: ORIGIN, "sec-fetch-site": "same-origin" }));
  });

  it("answers 401 without a cookie", async () => {
    expect((await expectError(await refresh(undefined), 401)).message).toBe(ru.errors.refreshMissing);
  });

  it("answers 401 for an unknown token and clears the cookie", async () => {
    const res = await refresh("a".repeat(43));
    expect((await expectError(res, 401)).message).toBe(ru.errors.refreshInvalid);
    expect(setCookies(res).some((c) => c.startsWith(`${REFRESH_COOKIE}=;`) && /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c))).toBe(true);
  });

  it("answers 401 for an expired refresh token", async () => {
    const user = await signIn();
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1, user.id)
      .run();
    await expectError(await refresh(user.refresh), 401);
  });

  it("answers 401 and ends the session once the user is disabled", async () => {
    const user = await signIn();
    await env.DB.prepare("UPDATE users SET enabled = 0 WHERE id = ?").bind(user.id).run();
    await expectError(await refresh(user.refresh), 401);
    await env.DB.prepare("UPDATE users SET enabled = 1 WHERE id = ?").bind(user.id).run();
    expect(await whoamiStatus(user.bearer)).toBe(401);
  });

  it("detects reuse of a rotated token and revokes the whole family", async () => {
    const user = await signIn();
    const rotated = await tokensFrom(await refresh(user.refresh));
    const other = await signIn({ login: `${user.login}-2` });

    const replay = await refresh(user.refresh);
    expect((await expectError(replay, 401)).message).toBe(ru.errors.refreshReused);

    // The newest refresh token and every access token of that sign-in are dead now.
    expect((await refresh(rotated.refresh)).status).toBe(401);
    expect(await whoamiStatus(rotated.bearer)).toBe(401);
    expect(await whoamiStatus(user.bearer)).toBe(401);
    // Other sign-ins are untouched.
    expect(await whoamiStatus(other.bearer)).toBe(200);
    await tokensFrom(await refresh(other.refresh));
  });

  it("keeps the access token valid while its refresh token rotates (no gap without a live token)", async () => {
    const user = await signIn();
    const [rotated, status] = await Promise.all([refresh(user.refresh).then(tokensFrom), whoamiStatus(user.bearer)]);
    expect(status).toBe(200);
    expect(await whoamiStatus(user.bearer)).toBe(200);
    expect(await whoamiStatus(rotated.bearer)).toBe(200);
  });

  it("lets only one of two concurrent refreshes with the same token win, and treats the loser as reuse", async () => {
    const user = await signIn();
    const answers = await Promise.all([refresh(user.refresh), refresh(user.refresh)]);
    const statuses = answers.map((r) => r.status).sort();
    await Promise.all(answers.map((r) => r.body?.cancel()));
    expect(statuses).toEqual([200, 401]);
    // The family is revoked: the winner's access token no longer works either.
    expect(await whoamiStatus(user.bearer)).toBe(401);
  });

  it.each([
    ["an Origin of another site", { origin: "https://evil.example" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
  ])("refuses %s with 403 and does not rotate", async (_what, headers) => {
    const user = await signIn();
    const res = await refresh(user.refresh, headers);
    expect((await expectError(res, 403)).message).toBe(ru.errors.crossOrigin);
    expect(refreshTokenFrom(res)).toBeUndefined();
    await tokensFrom(await refresh(user.refresh)); // still unused
  });
});

describe("GET /api/auth/logout", () => {
  it("revokes the session: the access token and the cookie stop working", async () => {
    const user = await signIn();
    const res = await call("/api/auth/logout", { bearer: user.bearer, refresh: user.refresh });
    expect(res.status).toBe(204);
    expect(setCookies(res).some((c) => c.startsWith(`${REFRESH_COOKIE}=;`))).toBe(true);
    expect(await whoamiStatus(user.bearer)).toBe(401);
    await expectError(await refresh(user.refresh), 401);
  });

  it("ends the session with the cookie alone", async () => {
    const user = await signIn();
    expect((await call("/api/auth/logout", { refresh: user.refresh })).status).toBe(204);
    expect(await whoamiStatus(user.bearer)).toBe(401);
  });

  it("ends the session with the access token alone", async () => {
    const user = await signIn();
    expect((await call("/api/auth/logout", { bearer: user.bearer })).status).toBe(204);
    await expectError(await refresh(user.refresh), 401);
  });

  it("is harmless without credentials or with garbage", async () => {
    expect((await call("/api/auth/logout")).status).toBe(204);
    expect((await call("/api/auth/logout", { bearer: "not-a-jwt", refresh: "nope" })).status).toBe(204);
  });

  it("leaves other sessions of the same user alone", async () => {
    const user = await signIn();
    const second = await call("/api/auth/login", { method: "POST", json: { user: user.login, passwd: user.password } });
    const other = await tokensFrom(second);
    await call("/api/auth/logout", { bearer: user.bearer, refresh: user.refresh });
    expect(await whoamiStatus(other.bearer)).toBe(200);
  });

  it("refuses a cross-site logout with 403 (no forced sign-out)", async () => {
    const user = await signIn();
    await expectError(await call("/api/auth/logout", { refresh: user.refresh, headers: { origin: "https://evil.example" } }), 403);
    expect(await whoamiStatus(user.bearer)).toBe(200);
  });
});
