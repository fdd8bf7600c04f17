import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { rows } from "./catalog-fixtures";
import { call, createUser, DEFAULT_PASSWORD, expectError, login, signIn, signInAdmin } from "./factories";

const patch = (id: string, bearer: string, json: unknown) => call(`/api/user/${id}`, { method: "PATCH", bearer, json });

async function expectOk(res: Response) {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Makes every other enabled administrator (the bootstrapped one included) a plain user, so `keep` is the last. */
async function makeLastAdmin(keepId: string) {
  await env.DB.prepare(`update users set is_admin = 0 where id <> ? and is_admin = 1`).bind(keepId).run();
}

describe("disabling a user", () => {
  it("ends the user's sessions at once: access tokens and refresh cookies stop working, sign-in is refused", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const second = await login(user.login, user.password);
    expect((await call("/api/auth/whoami", { bearer: user.bearer })).status).toBe(200);

    await expectOk(await patch(user.id, admin.bearer, { enabled: false }));

    expect((await expectError(await call("/api/auth/whoami", { bearer: user.bearer }), 401)).message).toBe(ru.errors.invalidToken);
    await expectError(await call("/api/auth/whoami", { bearer: second.bearer }), 401);
    await expectError(await call("/api/auth/refresh", { refresh: user.refresh }), 401);
    await expectError(await call("/api/auth/login", { method: "POST", json: { user: user.login, passwd: user.password } }), 401);
    const live = await rows(`select id from sessions where user_id = ? and revoked_at is null`, user.id);
    expect(live).toEqual([]);
    const audit = await rows(`select action from audit_log where object_id = ? and action = 'user.disable'`, user.id);
    expect(audit).toHaveLength(1);

    // Enabled again, the user signs in anew; old sessions stay ended.
    await expectOk(await patch(user.id, admin.bearer, { enabled: true }));
    await login(user.login, user.password);
    await expectError(await call("/api/auth/whoami", { bearer: second.bearer }), 401);
  });
});

describe("changing a password", () => {
  it("ends the user's other sessions but keeps the one that changed it", async () => {
    const user = await signIn();
    const other = await login(user.login, user.password);
    await expectOk(await patch(user.id, user.bearer, { user_passwd: "совсем-новый-пароль", current_passwd: DEFAULT_PASSWORD }));
    expect((await call("/api/auth/whoami", { bearer: user.bearer })).status).toBe(200);
    await expectError(await call("/api/auth/whoami", { bearer: other.bearer }), 401);
    await expectError(await call("/api/auth/refresh", { refresh: other.refresh }), 401);
    await expectError(await call("/api/auth/login", { method: "POST", json: { user: user.login, passwd: DEFAULT_PASSWORD } }), 401);
    await login(user.login, "совсем-новый-пароль");
  });

  it("set by an administrator ends every session of the user", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    await expectOk(await patch(user.id, admin.bearer, { user_passwd: "пароль-от-администратора" }));
    await expectError(await call("/api/auth/whoami", { bearer: user.bearer }), 401);
    expect((await call("/api/auth/whoami", { bearer: admin.bearer })).status).toBe(200);
  });
});

describe("the last enabled administrator", () => {
  it("cannot be disabled, demoted or made a robot (409), and nothing changes", async () => {
    const last = await signIn({ isAdmin: true });
    await makeLastAdmin(last.id);
    for (const json of [{ enabled: false }, { is_admin: false }, { is_robot: true }, { user_name: "Всё ещё я", enabled: false }]) {
      const error = await expectError(await patch(last.id, last.bearer, json), 409);
      expect(error.message).toBe(ru.users.lastAdmin);
    }
    const [row] = await rows(`select name, enabled, is_admin, is_robot from users where id = ?`, last.id);
    expect(row).toMatchObject({ enabled: 1, is_admin: 1, is_robot: 0, name: last.name });
    expect(await rows(`select action from audit_log where object_id = ? and action like 'user.%'`, last.id)).toEqual([]);
    expect((await call("/api/auth/whoami", { bearer: last.bearer })).status).toBe(200);
  });

  it("can step down once another enabled administrator exists; robots and disabled admins do not count", async () => {
    const first = await signIn({ isAdmin: true });
    await makeLastAdmin(first.id);
    await createUser({ isAdmin: true, isRobot: true });
    await createUser({ isAdmin: true, enabled: false });
    await expectError(await patch(first.id, first.bearer, { is_admin: false }), 409);

    const second = await createUser({ isAdmin: true });
    const demoted = (await expectOk(await patch(first.id, first.bearer, { is_admin: false }))) as { is_admin: boolean };
    expect(demoted.is_admin).toBe(false);
    // Now `second` is the last one.
    const secondSession = await login(second.login, second.password);
    await expectError(await patch(second.id, secondSession.bearer, { enabled: false }), 409);
  });

  it("cannot be removed by two concurrent demotions: exactly one wins", async () => {
    const a = await signIn({ isAdmin: true });
    await makeLastAdmin(a.id);
    const b = await signIn({ isAdmin: true });
    const [ra, rb] = await Promise.all([patch(a.id, a.bearer, { is_admin: false }), patch(b.id, b.bearer, { is_admin: false })]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const admins = await rows(`select id from users where is_admin = 1 and enabled = 1 and is_robot = 0`);
    expect(admins).toHaveLength(1);
  });
});

describe("audit of sign-ins", () => {
  // An address of its own: other files of the group try failed sign-ins from theirs until its limit answers 429.
  const IP = "198.51.100.47";
  it("records sign-in, failed sign-in (login only, never the password, no actor) and logout", async () => {
    const user = await createUser();
    const session = await login(user.login, user.password, { "cf-connecting-ip": IP });
    await call("/api/auth/login", {
      method: "POST",
      json: { user: `  ${user.login} `, passwd: "неправильный-пароль" },
      headers: { "cf-connecting-ip": IP },
    });
    await call("/api/auth/login", { method: "POST", json: { user: "нет-такого-логина", passwd: "секрет-123" } });
    await call("/api/auth/logout", { bearer: session.bearer, refresh: session.refresh });

    const own = await rows<{ action: string; actor_id: string | null; ip: string | null }>(
      `select action, actor_id, ip from audit_log where object_id = ? order by ctime, id`,
      user.id,
    );
    expect(own.map((r) => r.action)).toEqual(["auth.login", "auth.logout"]);
    expect(own[0]).toMatchObject({ actor_id: user.id, ip: IP });
    const failed = (
      await rows<{ actor_id: string | null; details: string; ip: string | null }>(
        `select actor_id, details, ip from audit_log where action = 'auth.login_failed' order by ctime, id`,
      )
    ).filter((f) => [user.login, "нет-такого-логина"].includes(JSON.parse(f.details).login));
    expect(failed.map((f) => JSON.parse(f.details).login)).toEqual([user.login, "нет-такого-логина"]);
    expect(failed.every((f) => f.actor_id === null)).toBe(true);
    expect(failed[0].ip).toBe(IP);
    expect(failed.map((f) => f.details).join()).not.toMatch(/неправильный|секрет/);
  });
});
