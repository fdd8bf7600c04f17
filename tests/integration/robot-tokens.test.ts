import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { insertGroup, rows } from "./catalog-fixtures";
import { call, createUser, expectError, signIn, signInAdmin } from "./factories";

interface Token {
  /** only in the answer that created it */
  token_id: string;
  name: string;
  prefix: string;
  scope_groups: string[] | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  status: string;
  token?: string;
}

/** A token as the create call answers it. */
type NewToken = Token & { token: string };

async function ok<T>(res: Response): Promise<T> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

const createToken = (robotId: string, bearer: string, json: unknown) =>
  call(`/api/user/${robotId}/tokens`, { method: "POST", bearer, json });

describe("robot API tokens", () => {
  it("are shown once, stored hashed, listed without secrets, and authenticate as the robot", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true, name: "Робот импорта" });
    const created = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "CI" }));
    expect(created.token).toMatch(/^mamr_[A-Za-z0-9_-]{43}$/);
    expect(created.token!.startsWith(created.prefix)).toBe(true);
    expect(created).toMatchObject({ name: "CI", status: "active", scope_groups: null, expires_at: null });

    const [stored] = await rows<{ token_hash: string; prefix: string }>(
      `select token_hash, prefix from robot_tokens where id = ?`,
      created.token_id,
    );
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await rows(`select * from robot_tokens where id = ?`, created.token_id))).not.toContain(created.token);

    const whoami = await ok<{ id: string; name: string }>(await call("/api/auth/whoami", { bearer: created.token }));
    expect(whoami).toMatchObject({ id: robot.id, name: "Робот импорта" });

    const listed = await ok<Token[]>(await call(`/api/user/${robot.id}/tokens`, { bearer: admin.bearer }));
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty("token");
    expect(JSON.stringify(listed)).not.toContain(created.token);
    expect(listed[0].last_used_at).not.toBeNull();

    const audit = await rows<{ details: string }>(
      `select details from audit_log where action = 'robot_token.create' and object_id = ?`,
      robot.id,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0].details).not.toContain(created.token);
  });

  it("stop working at once when revoked (401 with its own message), and revoking twice changes nothing", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const { token, token_id } = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "Временный" }));
    expect((await call("/api/auth/whoami", { bearer: token })).status).toBe(200);
    const revoked = await ok<Token>(await call(`/api/user/${robot.id}/tokens/${token_id}`, { method: "DELETE", bearer: admin.bearer }));
    expect(revoked.status).toBe("revoked");
    expect((await expectError(await call("/api/auth/whoami", { bearer: token }), 401)).message).toBe(ru.users.tokenRevoked);
    const again = await ok<Token>(await call(`/api/user/${robot.id}/tokens/${token_id}`, { method: "DELETE", bearer: admin.bearer }));
    expect(again.revoked_at).toBe(revoked.revoked_at);
    expect(await rows(`select action from audit_log where action = 'robot_token.revoke' and object_id = ?`, robot.id)).toHaveLength(1);
    await expectError(await call(`/api/user/${robot.id}/tokens/${newId()}`, { method: "DELETE", bearer: admin.bearer }), 404);
    const other = await createUser({ isRobot: true });
    await expectError(await call(`/api/user/${other.id}/tokens/${token_id}`, { method: "DELETE", bearer: admin.bearer }), 404);
  });

  it("expire: a token past its expires_at is refused with 401 and its own message", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const { token, token_id } = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "Короткий", expires_at: expiresAt }));
    expect((await call("/api/auth/whoami", { bearer: token })).status).toBe(200);
    await env.DB.prepare(`update robot_tokens set expires_at = ? where id = ?`)
      .bind(Date.now() - 1, token_id)
      .run();
    expect((await expectError(await call("/api/auth/whoami", { bearer: token }), 401)).message).toBe(ru.users.tokenExpired);
    const [listed] = await ok<Token[]>(await call(`/api/user/${robot.id}/tokens`, { bearer: admin.bearer }));
    expect(listed.status).toBe("expired");
  });

  it("refuse unknown, forged and malformed tokens, and tokens of a disabled robot (401)", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const { token } = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "Основной" }));
    const forged = token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");
    await expectError(await call("/api/auth/whoami", { bearer: forged }), 401);
    await expectError(await call("/api/auth/whoami", { bearer: `mamr_${"x".repeat(43)}` }), 401);
    await expectError(await call("/api/auth/whoami", { bearer: "mamr_short" }), 401);
    await ok(await call(`/api/user/${robot.id}`, { method: "PATCH", bearer: admin.bearer, json: { enabled: false } }));
    expect((await expectError(await call("/api/auth/whoami", { bearer: token }), 401)).message).toBe(ru.users.accountDisabled);
  });

  it("carry the group scope to the actor; unknown scope groups are 404 and nothing is created", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const group = await insertGroup({ ownerId: null });
    const scoped = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "Папка", scope_groups: [group, group] }));
    expect(scoped.scope_groups).toEqual([group]);
    const { authenticateRobotToken } = await import("../../workers/services/access/robot-token.service");
    const { testContext } = await import("./catalog-fixtures");
    const actor = await authenticateRobotToken(testContext(), scoped.token!);
    expect(actor).toMatchObject({ id: robot.id, isRobot: true, scopeGroups: [group], sessionFamily: null });

    // A scoped token of an administrator robot is confined too: it acts without administrator rights.
    const adminRobot = await createUser({ isRobot: true, isAdmin: true });
    const adminScoped = await ok<NewToken>(
      await createToken(adminRobot.id, admin.bearer, { name: "Админ в папке", scope_groups: [group] }),
    );
    const adminWhole = await ok<NewToken>(await createToken(adminRobot.id, admin.bearer, { name: "Админ" }));
    expect(await authenticateRobotToken(testContext(), adminScoped.token)).toMatchObject({ isAdmin: false, scopeGroups: [group] });
    expect(await authenticateRobotToken(testContext(), adminWhole.token)).toMatchObject({ isAdmin: true, scopeGroups: null });
    await expectError(await call("/api/user", { bearer: adminScoped.token }), 403);
    expect((await call("/api/user", { bearer: adminWhole.token })).status).toBe(200);

    const before = await rows(`select count(*) as n from robot_tokens where user_id = ?`, robot.id);
    await expectError(await createToken(robot.id, admin.bearer, { name: "Нет папки", scope_groups: [newId()] }), 404);
    await expectError(await createToken(robot.id, admin.bearer, { name: "Пусто", scope_groups: [] }), 400);
    expect(await rows(`select count(*) as n from robot_tokens where user_id = ?`, robot.id)).toEqual(before);
  });

  it("refuse bad input (400), people that are not robots (409), unknown users (404)", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const person = await createUser();
    for (const json of [{}, { name: "" }, { name: "x".repeat(101) }, { name: "ok", expires_at: "завтра" }, { name: "ok", extra: 1 }]) {
      await expectError(await createToken(robot.id, admin.bearer, json), 400);
    }
    const past = await expectError(await createToken(robot.id, admin.bearer, { name: "old", expires_at: "2020-01-01T00:00:00Z" }), 400);
    expect(past.message).toBe(ru.users.tokenExpiryPast);
    expect((await expectError(await createToken(person.id, admin.bearer, { name: "x" }), 409)).message).toBe(ru.users.notRobot);
    await expectError(await createToken(newId(), admin.bearer, { name: "x" }), 404);
    await expectError(await call(`/api/user/${newId()}/tokens`, { bearer: admin.bearer }), 404);
    expect(await rows(`select id from robot_tokens where user_id in (?, ?)`, robot.id, person.id)).toEqual([]);
  });

  it("are managed by administrators only (403), including by the robot itself, and nothing changes", async () => {
    const admin = await signInAdmin();
    const robot = await createUser({ isRobot: true });
    const { token, token_id } = await ok<NewToken>(await createToken(robot.id, admin.bearer, { name: "Свой" }));
    const user = await signIn();
    for (const bearer of [user.bearer, token]) {
      await expectError(await createToken(robot.id, bearer, { name: "ещё" }), 403);
      await expectError(await call(`/api/user/${robot.id}/tokens`, { bearer }), 403);
      await expectError(await call(`/api/user/${robot.id}/tokens/${token_id}`, { method: "DELETE", bearer }), 403);
    }
    await expectError(await call(`/api/user/${robot.id}/tokens`), 401);
    expect(await rows(`select revoked_at from robot_tokens where user_id = ?`, robot.id)).toEqual([{ revoked_at: null }]);
  });

  it("cannot sign in with a password: robots use tokens only", async () => {
    const robot = await createUser({ isRobot: true });
    await expectError(await call("/api/auth/login", { method: "POST", json: { user: robot.login, passwd: robot.password } }), 401);
  });
});
