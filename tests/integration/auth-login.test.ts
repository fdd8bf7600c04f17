import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { THROTTLE_POLICY, accountThrottleKey, ipThrottleKey } from "../../durable-objects/login-throttle.policy";
import { call, createUser, DEFAULT_PASSWORD, expectError, REFRESH_COOKIE, refreshTokenFrom, setCookies, signInAdmin } from "./factories";

function postLogin(body: unknown, headers?: Record<string, string>) {
  return call("/api/auth/login", { method: "POST", json: body, headers });
}

function throttleStub(kind: "account" | "ip", key: string, ip: string | null = null) {
  return env.LOGIN_THROTTLE.get(env.LOGIN_THROTTLE.idFromName(kind === "account" ? accountThrottleKey(key, ip) : ipThrottleKey(key)));
}

interface ThrottleState {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

describe("POST /api/auth/login: happy", () => {
  it("signs in the bootstrapped administrator with ADMIN_LOGIN / ADMIN_PASSWORD", async () => {
    const session = await signInAdmin();
    const whoami = await call("/api/auth/whoami", { bearer: session.bearer });
    expect(await whoami.json()).toMatchObject({ name: "Администратор", is_admin: true });
  });

  it("answers {bearer, expire} and sets an HttpOnly, SameSite=Lax refresh cookie", async () => {
    const user = await createUser();
    const before = Date.now();
    const res = await postLogin({ user: user.login, passwd: user.password });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { bearer: string; expire: string };
    expect(Object.keys(body).sort()).toEqual(["bearer", "expire"]);

    expect(decodeProtectedHeader(body.bearer)).toMatchObject({ alg: "HS256", typ: "at+jwt" });
    const claims = decodeJwt(body.bearer);
    expect(claims).toMatchObject({ sub: user.id, iss: "edge-mam", aud: "edge-mam-api", sid: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const expireMs = Date.parse(body.expire);
    expect(expireMs).toBe(claims.exp! * 1000);
    expect(expireMs - before).toBeGreaterThan(14 * 60_000);
    expect(expireMs - before).toBeLessThanOrEqual(15 * 60_000 + 5000);

    const cookie = setCookies(res).find((c) => c.startsWith(`${REFRESH_COOKIE}=`));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Secure/i); // the test origin is https
    expect(refreshTokenFrom(res)).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
  });

  it("matches the login case-insensitively", async () => {
    const user = await createUser({ login: `Mixed-${crypto.randomUUID().slice(0, 8)}` });
    const res = await postLogin({ user: user.login.toUpperCase(), passwd: user.password });
    expect(res.status).toBe(200);
  });
});

describe("POST /api/auth/login: invalid input", () => {
  it.each([
    ["user", { passwd: "x" }],
    ["passwd", { user: "someone" }],
  ])("names the missing field «%s»", async (field, body) => {
    const error = await expectError(await postLogin(body), 400);
    expect(error.message).toBe(`Поле «${field}»: обязательное поле`);
    expect(error.error).toBe("Bad Request");
  });

  it.each([
    ["user", { user: 123, passwd: "x" }],
    ["user", { user: null, passwd: "x" }],
    ["passwd", { user: "someone", passwd: ["x"] }],
    ["passwd", { user: "someone", passwd: { $ne: "" } }],
    ["user", { user: "", passwd: "x" }],
  ])("rejects a wrong type or empty value in «%s»", async (field, body) => {
    const error = await expectError(await postLogin(body), 400);
    expect(error.message).toContain(`«${field}»`);
  });

  it("words a wrong type in Russian", async () => {
    const error = await expectError(await postLogin({ user: 123, passwd: "x" }), 400);
    expect(error.message).toBe("Поле «user»: ожидается строка");
  });

  it("rejects a 10,000-character login with 400 before any work", async () => {
    const error = await expectError(await postLogin({ user: "a".repeat(10_000), passwd: "x" }), 400);
    expect(error.message).toContain("«user»");
  });

  it("rejects a body that is not an object", async () => {
    await expectError(await postLogin(["admin", "x"]), 400);
    await expectError(await postLogin("admin"), 400);
  });

  it("rejects malformed JSON with 400", async () => {
    const res = await call("/api/auth/login", {
      method: "POST",
      body: '{"user": "admin", ',
      headers: { "content-type": "application/json" },
    });
    const error = await expectError(res, 400);
    expect(error.message).toBe(ru.errors.malformedJson);
  });

  it("rejects an empty body with 400", async () => {
    await expectError(await call("/api/auth/login", { method: "POST", body: "", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("/api/auth/login", { method: "POST" }), 400);
  });
});

describe("POST /api/auth/login: security", () => {
  it("answers a wrong password and an unknown user identically (no user enumeration)", async () => {
    const user = await createUser();
    const wrong = await expectError(await postLogin({ user: user.login, passwd: "wrong password" }), 401);
    const unknown = await expectError(await postLogin({ user: `nobody-${user.id}`, passwd: "wrong password" }), 401);
    expect(wrong.message).toBe(ru.errors.badCredentials);
    expect(unknown.message).toBe(wrong.message);
    expect({ ...unknown, requestId: undefined }).toEqual({ ...wrong, requestId: undefined });
  });

  it("refuses a disabled user and a robot account with the same 401", async () => {
    const disabled = await createUser({ enabled: false });
    const robot = await createUser({ isRobot: true });
    for (const user of [disabled, robot]) {
      const res = await postLogin({ user: user.login, passwd: DEFAULT_PASSWORD });
      expect(refreshTokenFrom(res)).toBeUndefined();
      expect((await expectError(res, 401)).message).toBe(ru.errors.badCredentials);
    }
  });

  it("refuses an account whose stored hash is missing or corrupt with 401, never a 500", async () => {
    for (const hash of [null, "pbkdf2-sha256$1000$***$***", "md5$abc"]) {
      const user = await createUser();
      await env.DB.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(hash, user.id).run();
      expect((await expectError(await postLogin({ user: user.login, passwd: user.password }), 401)).message).toBe(ru.errors.badCredentials);
    }
  });

  it("throttles an account after repeated failures with 429 + Retry-After, and lets the owner in once the lock expires", async () => {
    const user = await createUser();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await postLogin({ user: user.login, passwd: `wrong-${i}` });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter ??= res.headers.get("retry-after");
        expect((await res.json()) as object).toMatchObject({ statusCode: 429, error: "Too Many Requests" });
      } else {
        await res.body?.cancel();
      }
    }
    const free = THROTTLE_POLICY.account.freeFailures;
    expect(statuses.slice(0, free)).toEqual(Array(free).fill(401));
    expect(statuses.slice(free)).toEqual(Array(20 - free).fill(429));
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(THROTTLE_POLICY.baseLockMs / 1000);

    // While locked even the right password is refused: the lock is not a password oracle.
    const locked = await postLogin({ user: user.login, passwd: user.password });
    expect(locked.status).toBe(429);
    expect(refreshTokenFrom(locked)).toBeUndefined();

    // Let the lock run out (move its timestamps into the past), then the owner signs in.
    const stub = throttleStub("account", user.login.toLowerCase());
    await runInDurableObject(stub, async (_instance, state) => {
      const stored = (await state.storage.get<ThrottleState>("state"))!;
      expect(stored.failures).toBe(free);
      await state.storage.put("state", { ...stored, lastFailureAt: stored.lastFailureAt - 60_000, lockedUntil: Date.now() - 1 });
    });
    const ok = await postLogin({ user: user.login, passwd: user.password });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    // A success forgets the failures (done in waitUntil; poll briefly).
    await expect.poll(() => runInDurableObject(stub, (_i, state) => state.storage.get("state"))).toBeUndefined();
  });

  it("counts parallel wrong passwords before checking them: a burst gets no more guesses than the allowance", async () => {
    const user = await createUser();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => postLogin({ user: user.login, passwd: `burst-${i}` })));
    const statuses = answers.map((r) => r.status);
    await Promise.all(answers.map((r) => r.body?.cancel()));
    expect(statuses.filter((s) => s === 401)).toHaveLength(THROTTLE_POLICY.account.freeFailures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - THROTTLE_POLICY.account.freeFailures);
  });

  it("gives an IP its attempt back after a successful sign-in", async () => {
    const user = await createUser();
    const ip = "192.0.2.44";
    const ok = await postLogin({ user: user.login, passwd: user.password }, { "cf-connecting-ip": ip });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    await expect
      .poll(() =>
        runInDurableObject(throttleStub("ip", ip), async (_i, state) => (await state.storage.get<ThrottleState>("state"))?.failures),
      )
      .toBe(0);
  });

  it("throttles per client IP (cf-connecting-ip) across accounts, without touching other IPs", async () => {
    const user = await createUser();
    const ip = "203.0.113.7";
    // Twenty different unknown logins stay under the per-account limit but add up for the IP.
    for (let i = 0; i < THROTTLE_POLICY.ip.freeFailures; i++) {
      const res = await postLogin({ user: `spray-${i}-${user.id}`, passwd: "guess" }, { "cf-connecting-ip": ip });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    const fromSprayer = await postLogin({ user: user.login, passwd: user.password }, { "cf-connecting-ip": ip });
    await expectError(fromSprayer, 429);
    expect(Number(fromSprayer.headers.get("retry-after"))).toBeGreaterThan(0);

    const fromElsewhere = await postLogin({ user: user.login, passwd: user.password }, { "cf-connecting-ip": "198.51.100.4" });
    expect(fromElsewhere.status).toBe(200);
    await fromElsewhere.body?.cancel();

    const failures = await runInDurableObject(
      throttleStub("ip", ip),
      async (_i, state) => (await state.storage.get<ThrottleState>("state"))?.failures,
    );
    expect(failures).toBe(THROTTLE_POLICY.ip.freeFailures);
  });

  it("locks an account per (login, address): failures from one address never keep the owner out elsewhere, and the lock is audited", async () => {
    const user = await createUser({ isAdmin: true });
    const attacker = "203.0.113.66";
    const owner = "198.51.100.77";
    for (let i = 0; i < THROTTLE_POLICY.account.freeFailures + 3; i++) {
      const res = await postLogin({ user: user.login.toUpperCase(), passwd: `wrong-${i}` }, { "cf-connecting-ip": attacker });
      expect([401, 429]).toContain(res.status);
      await res.body?.cancel();
    }
    // the attacker's address is locked out of the account, even with the right password
    await expectError(await postLogin({ user: user.login, passwd: user.password }, { "cf-connecting-ip": attacker }), 429);
    // the owner, from an address that has not failed, signs in at once
    const ok = await postLogin({ user: user.login, passwd: user.password }, { "cf-connecting-ip": owner });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    // the lock was recorded once, when it began, naming the account and the address; administrators read it in the audit log
    const admin = await signInAdmin();
    const audit = await call(`/api/audit?action=auth.login_locked&take=500`, { bearer: admin.bearer });
    expect(audit.status).toBe(200);
    const rows = ((await audit.json()) as { action: string; object_id: string | null; ip: string | null; details: Record<string, unknown> }[]).filter(
      (r) => r.object_id === user.id,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: "auth.login_locked", ip: attacker, details: { scope: "account_address" } });
  });
});
