import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { createOneTimeToken } from "../../workers/services/access/auth.service";
import { createRequestContext } from "../../workers/services/access/context";
import { call, createUser, expectError, refreshTokenFrom, signIn, signInAdmin, type Session } from "./factories";

/**
 * A session made by trading a handed-over token (`/login?token=`) is bound to what it came from: it trades once, it
 * ends with its source (logout, new password, robot token revoked or expired), and it cannot be handed on again.
 * Each case here passed a second trade or kept a session alive before the binding.
 */

function exchange(token: string) {
  return call("/api/auth/exchange-token", { method: "POST", json: { token } });
}

async function traded(token: string): Promise<Session> {
  const res = await exchange(token);
  const body = (await res.json()) as { bearer: string; expire: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { bearer: body.bearer, expire: body.expire, refresh: refreshTokenFrom(res)! };
}

/** Whether a session still acts: its bearer on the API, its cookie on a page (the server-side guard) and on refresh. */
async function alive(session: Session): Promise<{ bearer: number; page: number; refresh: number }> {
  const bearer = (await call("/api/auth/whoami", { bearer: session.bearer })).status;
  const page = (await call("/jobs", { refresh: session.refresh, headers: { accept: "text/html" } })).status;
  const refresh = (await call("/api/auth/refresh", { refresh: session.refresh })).status;
  return { bearer, page, refresh };
}

const LIVE = { bearer: 200, page: 200, refresh: 200 };
const DEAD = { bearer: 401, page: 302, refresh: 401 };

async function robotWithToken(admin: Session, options: { isAdmin?: boolean; expires_at?: string } = {}) {
  const robot = await createUser({ isRobot: true, isAdmin: options.isAdmin ?? false });
  const made = await call(`/api/user/${robot.id}/tokens`, {
    method: "POST",
    bearer: admin.bearer,
    json: { name: "Вход по ссылке", ...(options.expires_at ? { expires_at: options.expires_at } : {}) },
  });
  const body = (await made.json()) as { token: string; token_id: string };
  expect(made.status, JSON.stringify(body)).toBe(200);
  return { robot, ...body };
}

describe("sign-in by a handed-over token", () => {
  it("trades a session's access token at most once", async () => {
    const person = await signIn();
    await traded(person.bearer);
    const again = await exchange(person.bearer);
    expect((await expectError(again, 401)).message).toBe(ru.errors.tokenAlreadyTraded);
    expect(refreshTokenFrom(again)).toBeUndefined();
  });

  it("trades a robot token at most once", async () => {
    const admin = await signInAdmin();
    const { token } = await robotWithToken(admin);
    await traded(token);
    expect((await expectError(await exchange(token), 401)).message).toBe(ru.errors.tokenAlreadyTraded);
    // the token itself still works as an API bearer: only the trade is spent
    expect((await call("/api/auth/whoami", { bearer: token })).status).toBe(200);
  });

  it("lets only one of two simultaneous trades of the same token through", async () => {
    const person = await signIn();
    const statuses = (await Promise.all([exchange(person.bearer), exchange(person.bearer), exchange(person.bearer)])).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(2);
  });

  it("ends the session made from a token when the original session logs out", async () => {
    const person = await signIn();
    const derived = await traded(person.bearer);
    expect(await alive({ ...derived, refresh: derived.refresh })).toMatchObject({ bearer: 200, page: 200 });
    // the original session refreshing (rotating its cookie) keeps the derived one alive
    const rotated = await call("/api/auth/refresh", { refresh: person.refresh });
    expect(rotated.status).toBe(200);
    expect((await call("/api/auth/whoami", { bearer: derived.bearer })).status).toBe(200);
    const parentRefresh = refreshTokenFrom(rotated)!;
    expect((await call("/api/auth/logout", { refresh: parentRefresh })).status).toBe(204);
    const fresh = await traded(await createOneTimeTokenFor(person.id)); // a separate sign-in of the same user is untouched
    expect(await alive(derived)).toEqual(DEAD);
    expect(await alive(fresh)).toEqual(LIVE);
  });

  it("ends the session made from a token when the user gets a new password", async () => {
    const admin = await signInAdmin();
    const person = await signIn();
    const derived = await traded(person.bearer);
    const changed = await call(`/api/user/${person.id}`, { method: "PATCH", bearer: admin.bearer, json: { user_passwd: "a brand new password 42" } });
    expect(changed.status).toBe(200);
    expect(await alive(derived)).toEqual(DEAD);
  });

  it("ends an administrator session made from a robot token when the token is revoked (the robot stays enabled)", async () => {
    const admin = await signInAdmin();
    const { robot, token, token_id } = await robotWithToken(admin, { isAdmin: true });
    const derived = await traded(token);
    expect(await (await call("/api/auth/whoami", { bearer: derived.bearer })).json()).toMatchObject({ id: robot.id, is_admin: true });
    const revoked = await call(`/api/user/${robot.id}/tokens/${token_id}`, { method: "DELETE", bearer: admin.bearer });
    expect(revoked.status).toBe(200);
    expect(await alive(derived)).toEqual(DEAD);
    // an administrator call with the derived bearer is refused, not only whoami
    expect((await call("/api/user", { bearer: derived.bearer })).status).toBe(401);
  });

  it("ends the session made from a robot token when the token expires", async () => {
    const admin = await signInAdmin();
    const { token, token_id } = await robotWithToken(admin, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const derived = await traded(token);
    expect((await call("/api/auth/whoami", { bearer: derived.bearer })).status).toBe(200);
    await env.DB.prepare("update robot_tokens set expires_at = ? where id = ?").bind(Date.now() - 1000, token_id).run();
    expect(await alive(derived)).toEqual(DEAD);
  });

  it("refuses to hand on a session that was itself made from a token", async () => {
    const person = await signIn();
    const derived = await traded(person.bearer);
    const res = await exchange(derived.bearer);
    expect((await expectError(res, 403)).message).toBe(ru.errors.derivedSessionToken);
    expect(refreshTokenFrom(res)).toBeUndefined();
  });

  it("names the account a token opens without spending it, and refuses what the trade would refuse", async () => {
    const person = await signIn();
    const oneTime = await createOneTimeTokenFor(person.id);
    const owner = await call("/api/auth/token-owner", { method: "POST", json: { token: oneTime } });
    expect(owner.status).toBe(200);
    expect(owner.headers.get("cache-control")).toBe("no-store");
    expect(await owner.json()).toEqual({ id: person.id, name: person.name, login: person.login });
    expect(refreshTokenFrom(owner)).toBeUndefined();
    await traded(oneTime); // still unspent
    await expectError(await call("/api/auth/token-owner", { method: "POST", json: { token: oneTime } }), 401);
    await traded(person.bearer);
    expect((await expectError(await call("/api/auth/token-owner", { method: "POST", json: { token: person.bearer } }), 401)).message).toBe(
      ru.errors.tokenAlreadyTraded,
    );
    await expectError(await call("/api/auth/token-owner", { method: "POST", json: { token: "x".repeat(32) } }), 401);
    await expectError(await call("/api/auth/token-owner", { method: "POST", json: { token: "short" } }), 400);
    await expectError(
      await call("/api/auth/token-owner", { method: "POST", json: { token: oneTime }, headers: { origin: "https://evil.example" } }),
      403,
    );
  });

  it("serves the sign-in link's page with no Referer policy, so the token in its address never leaves in a header", async () => {
    const page = await call(`/login?token=${"t".repeat(43)}&to=%2Fmam`, { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    await page.body?.cancel();
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const plain = await call("/login", { headers: { accept: "text/html" } });
    await plain.body?.cancel();
    expect(plain.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });
});

function createOneTimeTokenFor(userId: string): Promise<string> {
  const ctx = createExecutionContext();
  return createOneTimeToken(
    createRequestContext(env, (p) => ctx.waitUntil(p), "test"),
    userId,
  );
}
