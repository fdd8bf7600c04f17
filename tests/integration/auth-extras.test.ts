import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { createApiApp } from "../../workers/api/app";
import { ACCESS_LEVELS } from "../../workers/services/access/access.service";
import { createOneTimeToken } from "../../workers/services/access/auth.service";
import { createRequestContext } from "../../workers/services/access/context";
import { call, createUser, expectError, ORIGIN, refreshTokenFrom, signIn, signInAdmin } from "./factories";

function oneTimeToken(userId: string, ttlMs?: number) {
  const ctx = createExecutionContext();
  return createOneTimeToken(
    createRequestContext(env, (p) => ctx.waitUntil(p), "test"),
    userId,
    ttlMs,
  );
}

function exchange(token: unknown, headers?: Record<string, string>) {
  return call("/api/auth/exchange-token", { method: "POST", json: { token }, headers });
}

describe("POST /api/auth/exchange-token", () => {
  it("trades a one-time token for a session with a refresh cookie", async () => {
    const user = await createUser();
    const res = await exchange(await oneTimeToken(user.id));
    const body = (await res.json()) as { bearer: string; expire: string };
    expect(res.status).toBe(200);
    expect(refreshTokenFrom(res)).toBeTruthy();
    const whoami = await call("/api/auth/whoami", { bearer: body.bearer });
    expect(await whoami.json()).toMatchObject({ id: user.id });
  });

  it("accepts a token once only", async () => {
    const user = await createUser();
    const token = await oneTimeToken(user.id);
    expect((await exchange(token)).status).toBe(200);
    const again = await exchange(token);
    expect((await expectError(again, 401)).message).toBe(ru.errors.exchangeInvalid);
    expect(refreshTokenFrom(again)).toBeUndefined();
  });

  it("refuses an expired token and a token of a disabled user", async () => {
    const user = await createUser();
    await expectError(await exchange(await oneTimeToken(user.id, -1000)), 401);
    const disabled = await createUser({ enabled: false });
    await expectError(await exchange(await oneTimeToken(disabled.id)), 401);
  });

  it("trades an access token handed over (a robot's API token, a session's JWT) for a new session of that user (issue 29)", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const made = await call(`/api/user/${robot.id}/tokens`, { method: "POST", bearer: admin.bearer, json: { name: "Интеграция" } });
    const { token } = (await made.json()) as { token: string };
    const person = await signIn();
    for (const [credential, userId] of [
      [token, robot.id],
      [person.bearer, person.id],
    ] as const) {
      const res = await exchange(credential);
      const body = (await res.json()) as { bearer: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(await (await call("/api/auth/whoami", { bearer: body.bearer })).json()).toMatchObject({ id: userId });
      // A session of its own: the refresh cookie rotates, and ending it leaves the handed-over token working.
      const refresh = refreshTokenFrom(res)!;
      expect((await call("/api/auth/refresh", { refresh })).status).toBe(200);
    }
    expect((await call("/api/auth/whoami", { bearer: token })).status).toBe(200);
  });

  it("refuses forged, revoked and expired access tokens (401), and a robot token limited to groups (403): no cookie set", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const newToken = async (json: Record<string, unknown>) =>
      (await (await call(`/api/user/${robot.id}/tokens`, { method: "POST", bearer: admin.bearer, json })).json()) as { token: string; token_id: string };
    const person = await signIn();
    const forgedJwt = person.bearer.slice(0, -4) + (person.bearer.endsWith("AAAA") ? "BBBB" : "AAAA");
    const revoked = await newToken({ name: "Отозван" });
    await call(`/api/user/${robot.id}/tokens/${revoked.token_id}`, { method: "DELETE", bearer: admin.bearer });
    const expired = await newToken({ name: "Истёк", expires_at: new Date(Date.now() + 60_000).toISOString() });
    await env.DB.prepare("update robot_tokens set expires_at = ? where id = ?").bind(Date.now() - 1000, expired.token_id).run();
    for (const bad of [forgedJwt, `mamr_${"x".repeat(43)}`, revoked.token, expired.token]) {
      const res = await exchange(bad);
      await expectError(res, 401);
      expect(refreshTokenFrom(res)).toBeUndefined();
    }
    const group = (await (await call("/api/group/create", { method: "POST", bearer: admin.bearer, json: { parent: "f".repeat(32), group_name: `Папка ${Date.now()}` } })).json()) as { group_id: string };
    const scoped = await newToken({ name: "Папка", scope_groups: [group.group_id] });
    const res = await exchange(scoped.token);
    expect((await expectError(res, 403)).message).toBe(ru.errors.scopedTokenSession);
    expect(refreshTokenFrom(res)).toBeUndefined();
  });

  it("answers 400 for malformed input and 401 for an unknown token", async () => {
    await expectError(await exchange("short"), 400);
    await expectError(await exchange(12345678901234567890), 400);
    await expectError(await exchange("x".repeat(4097)), 400);
    await expectError(await call("/api/auth/exchange-token", { method: "POST", json: {} }), 400);
    await expectError(await exchange("garbage-garbage-garbage-garbage"), 401);
  });

  it("refuses a cross-site exchange with 403 and leaves the token usable", async () => {
    const user = await createUser();
    const token = await oneTimeToken(user.id);
    await expectError(await exchange(token, { origin: "https://evil.example" }), 403);
    expect((await exchange(token)).status).toBe(200);
  });
});

describe("GET /api/auth/list-acl-perms", () => {
  it("lists the ten access levels in order with titles", async () => {
    const user = await signIn();
    const res = await call("/api/auth/list-acl-perms", { bearer: user.bearer });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { perm: string; title: string }[];
    expect(body.map((p) => p.perm)).toEqual([
      "deny",
      "read",
      "update",
      "create",
      "delete",
      "acl",
      "group",
      "superuser",
      "download",
      "execute",
    ]);
    expect(body.map((p) => p.perm)).toEqual([...ACCESS_LEVELS]);
    for (const p of body) expect(p.title.length).toBeGreaterThan(0);
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/auth/list-acl-perms"), 401);
  });
});

describe("GET /api/auth/user-abilities", () => {
  it("differs between the administrator and an ordinary user", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const forAdmin = (await (await call("/api/auth/user-abilities", { bearer: admin.bearer })).json()) as {
      is_admin: boolean;
      abilities: Record<string, boolean>;
    };
    const forUser = (await (await call("/api/auth/user-abilities", { bearer: user.bearer })).json()) as typeof forAdmin;
    expect(forAdmin.is_admin).toBe(true);
    expect(forUser.is_admin).toBe(false);
    expect(forAdmin.abilities).toMatchObject({ browse: true, manageUsers: true, manageAccess: true, manageAutomations: true });
    expect(forUser.abilities).toMatchObject({ browse: true, manageUsers: false, manageAccess: false, manageAutomations: false });
  });

  it("requires sign-in", async () => {
    await expectError(await call("/api/auth/user-abilities", { bearer: "a.b.c" }), 401);
  });
});

describe("GET /api/auth/sso-providers", () => {
  it("is an empty list when none are configured, without sign-in", async () => {
    const res = await call("/api/auth/sso-providers");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it("lists configured providers by id and name only (no client ids or issuers)", async () => {
    const providers = [{ id: "corp", name: "Корпоративный вход", issuer: "https://id.example", client_id: "client-123" }];
    const ctx = createExecutionContext();
    const res = await createApiApp().fetch(
      new Request(`${ORIGIN}/api/auth/sso-providers`),
      { ...env, SSO_PROVIDERS: JSON.stringify(providers) },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await res.json()).toEqual([{ id: "corp", name: "Корпоративный вход" }]);
  });
});
