import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { exec, insertAsset, insertGroup, rows } from "./catalog-fixtures";
import { call, createUser, expectError, login, signIn, signInAdmin } from "./factories";

interface User {
  user_id: string;
  user_name: string;
  login: string;
  enabled: boolean;
  is_admin: boolean;
  is_robot: boolean;
  chroot_groups: string[];
  default_storage: string | null;
  acl_count: number;
  has_password: boolean;
}

const DEFAULT_STORAGE = "0".repeat(32);

async function ok<T>(res: Response): Promise<T> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

function uniqueLogin(prefix = "u"): string {
  return `${prefix}-${newId().slice(-10)}`;
}

async function create(bearer: string, extra: Record<string, unknown> = {}): Promise<User> {
  const json = { user_name: "Мария Иванова", user_login: uniqueLogin(), user_passwd: "пароль-надёжный-1", enabled: true, ...extra };
  return ok<User>(await call("/api/user", { method: "POST", bearer, json }));
}

const userRow = (id: string) =>
  rows(`select login, name, enabled, is_admin, is_robot, chroot_groups, password_hash from users where id = ?`, id);

describe("POST /api/user", () => {
  it("creates a user that can sign in, with every SPEC field in the answer, and audits it", async () => {
    const admin = await signInAdmin();
    const group = await insertGroup({ ownerId: null });
    const user = await create(admin.bearer, {
      user_login: "Maria-" + newId().slice(-6),
      chroot_groups: [group],
      default_storage: DEFAULT_STORAGE,
    });
    expect(user).toMatchObject({
      user_name: "Мария Иванова",
      enabled: true,
      is_admin: false,
      is_robot: false,
      chroot_groups: [group],
      default_storage: DEFAULT_STORAGE,
      acl_count: 0,
      has_password: true,
    });
    expect(user.user_id).toMatch(/^[0-9a-f]{32}$/);
    const [row] = await userRow(user.user_id);
    expect(String(row.password_hash)).toMatch(/^pbkdf2-sha256\$/);
    expect(String(row.password_hash)).not.toContain("пароль");
    await login(user.login.toUpperCase(), "пароль-надёжный-1");
    const audit = await rows(
      `select action, actor_id, details from audit_log where object_id = ? and action = 'user.create'`,
      user.user_id,
    );
    expect(audit).toHaveLength(1);
    expect(String(audit[0].details)).not.toContain("пароль");
  });

  it("refuses a login that exists, regardless of case (409), and adds nothing", async () => {
    const admin = await signInAdmin();
    const existing = await createUser({ login: uniqueLogin("Dup") });
    const before = await rows(`select count(*) as n from users`);
    const error = await expectError(
      await call("/api/user", {
        method: "POST",
        bearer: admin.bearer,
        json: { user_name: "Двойник", user_login: existing.login.toLowerCase(), user_passwd: "пароль-надёжный-1", enabled: true },
      }),
      409,
    );
    expect(error.message).toBe(ru.users.loginTaken(existing.login.toLowerCase()));
    expect(await rows(`select count(*) as n from users`)).toEqual(before);
  });

  it.each([
    ["no user_name", { user_login: "x1", user_passwd: "пароль-надёжный-1", enabled: true }, "user_name"],
    ["no user_login", { user_name: "X", user_passwd: "пароль-надёжный-1", enabled: true }, "user_login"],
    ["no user_passwd", { user_name: "X", user_login: "x2", enabled: true }, "user_passwd"],
    ["no enabled", { user_name: "X", user_login: "x3", user_passwd: "пароль-надёжный-1" }, "enabled"],
    ["a short password", { user_name: "X", user_login: "x4", user_passwd: "short", enabled: true }, "user_passwd"],
    ["a login with a space", { user_name: "X", user_login: "a b", user_passwd: "пароль-надёжный-1", enabled: true }, "user_login"],
    ["a name of spaces", { user_name: "   ", user_login: "x5", user_passwd: "пароль-надёжный-1", enabled: true }, "user_name"],
    ["enabled as a string", { user_name: "X", user_login: "x6", user_passwd: "пароль-надёжный-1", enabled: "yes" }, "enabled"],
    [
      "a bad chroot id",
      { user_name: "X", user_login: "x7", user_passwd: "пароль-надёжный-1", enabled: true, chroot_groups: ["nope"] },
      "chroot_groups",
    ],
    ["an unknown field", { user_name: "X", user_login: "x8", user_passwd: "пароль-надёжный-1", enabled: true, is_god: true }, ""],
  ])("refuses %s (400)", async (_label, json, field) => {
    const admin = await signInAdmin();
    const error = await expectError(await call("/api/user", { method: "POST", bearer: admin.bearer, json }), 400);
    if (field) expect(error.message).toContain(`«${field}`);
  });

  it("refuses a chroot to a missing or trashed group and an unknown storage (404), adding nothing", async () => {
    const admin = await signInAdmin();
    const trashed = await insertGroup({ ownerId: null, deletedAt: Date.now() });
    for (const [extra, message] of [
      [{ chroot_groups: [newId()] }, /Группа для ограничения/],
      [{ chroot_groups: [trashed] }, /Группа для ограничения/],
      [{ chroot_groups: [ROOT_GROUP_ID] }, /Группа для ограничения/],
      [{ default_storage: newId() }, new RegExp(ru.users.storageNotFound)],
    ] as const) {
      const login = uniqueLogin();
      const error = await expectError(
        await call("/api/user", {
          method: "POST",
          bearer: admin.bearer,
          json: { user_name: "X", user_login: login, user_passwd: "пароль-надёжный-1", enabled: true, ...extra },
        }),
        404,
      );
      expect(error.message).toMatch(message);
      expect(await rows(`select id from users where login = ?`, login)).toEqual([]);
    }
  });

  it("is for administrators only (403, nothing added) and needs a token (401)", async () => {
    const user = await signIn();
    const login = uniqueLogin();
    const json = { user_name: "X", user_login: login, user_passwd: "пароль-надёжный-1", enabled: true, is_admin: true };
    expect((await expectError(await call("/api/user", { method: "POST", bearer: user.bearer, json }), 403)).message).toBe(
      ru.users.adminOnly,
    );
    await expectError(await call("/api/user", { method: "POST", json }), 401);
    expect(await rows(`select id from users where login = ?`, login)).toEqual([]);
  });
});

describe("GET /api/user", () => {
  it("lists by name with filters, search (Cyrillic, case-insensitive), paging and X-Total-Count", async () => {
    const admin = await signInAdmin();
    const tag = newId().slice(-6);
    const active = await create(admin.bearer, { user_name: `Пётр ${tag} А`, user_login: uniqueLogin("petr") });
    const inactive = await create(admin.bearer, { user_name: `Пётр ${tag} Б`, enabled: false });
    const robot = await create(admin.bearer, { user_name: `Пётр ${tag} В`, is_robot: true });

    const all = await call(`/api/user?q=${encodeURIComponent(`пЁтр ${tag}`)}`, { bearer: admin.bearer });
    expect((await ok<User[]>(all)).map((u) => u.user_id)).toEqual([active.user_id, inactive.user_id, robot.user_id]);
    expect(all.headers.get("x-total-count")).toBe("3");

    const enabled = await ok<User[]>(await call(`/api/user?enabled=true&q=${tag}`, { bearer: admin.bearer }));
    expect(enabled.map((u) => u.user_id)).toEqual([active.user_id, robot.user_id]);
    const disabled = await ok<User[]>(await call(`/api/user?enabled=false&q=${tag}`, { bearer: admin.bearer }));
    expect(disabled.map((u) => u.user_id)).toEqual([inactive.user_id]);
    const robots = await ok<User[]>(await call(`/api/user?is_robot=true&q=${tag}`, { bearer: admin.bearer }));
    expect(robots.map((u) => u.user_id)).toEqual([robot.user_id]);

    const byLogin = await ok<User[]>(await call(`/api/user?q=${active.login.toUpperCase()}`, { bearer: admin.bearer }));
    expect(byLogin.map((u) => u.user_id)).toEqual([active.user_id]);

    const page = await call(`/api/user?q=${tag}&skip=1&take=1`, { bearer: admin.bearer });
    expect((await ok<User[]>(page)).map((u) => u.user_id)).toEqual([inactive.user_id]);
    expect(page.headers.get("x-total-count")).toBe("3");
  });

  it("counts the user's access rules in acl_count", async () => {
    const admin = await signInAdmin();
    const user = await create(admin.bearer);
    const group = await insertGroup({ ownerId: null });
    await exec(
      `insert into access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) values (?, ?, 'user', ?, 'group', 2, ?), (?, ?, 'user', ?, 'group', 4, ?)`,
      newId(),
      user.user_id,
      group,
      Date.now(),
      newId(),
      user.user_id,
      ROOT_GROUP_ID,
      Date.now(),
    );
    expect((await ok<User>(await call(`/api/user/${user.user_id}`, { bearer: admin.bearer }))).acl_count).toBe(2);
  });

  it("refuses bad paging and filters (400), non-administrators (403) and anonymous callers (401)", async () => {
    const admin = await signInAdmin();
    await expectError(await call(`/api/user?take=0`, { bearer: admin.bearer }), 400);
    await expectError(await call(`/api/user?skip=-1`, { bearer: admin.bearer }), 400);
    await expectError(await call(`/api/user?enabled=maybe`, { bearer: admin.bearer }), 400);
    const user = await signIn();
    await expectError(await call(`/api/user`, { bearer: user.bearer }), 403);
    await expectError(await call(`/api/user`), 401);
  });
});

describe("GET /api/user/{id}", () => {
  it("answers administrators and the user themselves; others get 403; unknown 404, bad id 400", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const other = await signIn();
    expect((await ok<User>(await call(`/api/user/${user.id}`, { bearer: admin.bearer }))).login).toBe(user.login);
    expect((await ok<User>(await call(`/api/user/${user.id}`, { bearer: user.bearer }))).user_id).toBe(user.id);
    await expectError(await call(`/api/user/${user.id}`, { bearer: other.bearer }), 403);
    await expectError(await call(`/api/user/${newId()}`, { bearer: admin.bearer }), 404);
    await expectError(await call(`/api/user/not-an-id`, { bearer: admin.bearer }), 400);
  });
});

describe("PATCH /api/user/{id}", () => {
  it("lets an administrator change every field and audits what changed (never the password)", async () => {
    const admin = await signInAdmin();
    const user = await create(admin.bearer);
    const group = await insertGroup({ ownerId: null });
    const newLogin = uniqueLogin("renamed");
    const changed = await ok<User>(
      await call(`/api/user/${user.user_id}`, {
        method: "PATCH",
        bearer: admin.bearer,
        json: {
          user_name: "Мария Петрова",
          user_login: newLogin,
          is_admin: true,
          chroot_groups: [group, group],
          default_storage: DEFAULT_STORAGE,
          user_passwd: "новый-пароль-123",
        },
      }),
    );
    expect(changed).toMatchObject({
      user_name: "Мария Петрова",
      login: newLogin,
      is_admin: true,
      chroot_groups: [group],
      default_storage: DEFAULT_STORAGE,
    });
    await login(newLogin, "новый-пароль-123");
    const audit = await rows<{ action: string; details: string }>(
      `select action, details from audit_log where object_id = ? and action like 'user.%' order by ctime, id`,
      user.user_id,
    );
    // The update and the password change are one batch (same millisecond), so compare as a set.
    expect(audit.map((a) => a.action).sort()).toEqual(["user.create", "user.password_change", "user.update"]);
    expect(JSON.parse(audit.find((a) => a.action === "user.update")!.details).fields).toEqual(
      expect.arrayContaining(["user_name", "user_login", "is_admin", "chroot_groups", "default_storage"]),
    );
    expect(audit.map((a) => a.details).join()).not.toContain("новый-пароль");
  });

  it("lets users change their own name and password (with the current one), and nothing else", async () => {
    const user = await signIn();
    const renamed = await ok<User>(
      await call(`/api/user/${user.id}`, { method: "PATCH", bearer: user.bearer, json: { user_name: "Новое имя" } }),
    );
    expect(renamed.user_name).toBe("Новое имя");
    for (const json of [
      { is_admin: true },
      { enabled: false },
      { user_login: uniqueLogin() },
      { chroot_groups: [] },
      { user_name: "X", is_robot: true },
    ]) {
      await expectError(await call(`/api/user/${user.id}`, { method: "PATCH", bearer: user.bearer, json }), 403);
    }
    const [row] = await userRow(user.id);
    expect(row).toMatchObject({ name: "Новое имя", is_admin: 0, enabled: 1, is_robot: 0, login: user.login });

    const missing = await expectError(
      await call(`/api/user/${user.id}`, { method: "PATCH", bearer: user.bearer, json: { user_passwd: "другой-пароль-1" } }),
      400,
    );
    expect(missing.message).toBe(ru.users.currentPasswordRequired);
    const wrong = await expectError(
      await call(`/api/user/${user.id}`, {
        method: "PATCH",
        bearer: user.bearer,
        json: { user_passwd: "другой-пароль-1", current_passwd: "не тот" },
      }),
      403,
    );
    expect(wrong.message).toBe(ru.users.currentPasswordWrong);
    expect((await userRow(user.id))[0].password_hash).toBe(row.password_hash);
  });

  it("refuses a user changing someone else (403, nothing changed)", async () => {
    const user = await signIn();
    const other = await createUser();
    await expectError(await call(`/api/user/${other.id}`, { method: "PATCH", bearer: user.bearer, json: { user_name: "Взлом" } }), 403);
    expect((await userRow(other.id))[0].name).toBe(other.name);
  });

  it("refuses a login taken by another user (409), an unknown chroot group (404), an unknown user (404), bad input (400)", async () => {
    const admin = await signInAdmin();
    const a = await createUser();
    const b = await createUser();
    await expectError(
      await call(`/api/user/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { user_login: b.login.toUpperCase() } }),
      409,
    );
    await expectError(await call(`/api/user/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { chroot_groups: [newId()] } }), 404);
    await expectError(await call(`/api/user/${newId()}`, { method: "PATCH", bearer: admin.bearer, json: { user_name: "X" } }), 404);
    await expectError(await call(`/api/user/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { enabled: "no" } }), 400);
    await expectError(await call(`/api/user/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { user_passwd: "short" } }), 400);
    expect((await userRow(a.id))[0]).toMatchObject({ login: a.login, chroot_groups: "[]", enabled: 1 });
    // Keeping one's own login in another case is not a conflict.
    const same = await ok<User>(
      await call(`/api/user/${a.id}`, { method: "PATCH", bearer: admin.bearer, json: { user_login: a.login.toUpperCase() } }),
    );
    expect(same.login).toBe(a.login.toUpperCase());
  });
});

describe("DELETE /api/user/{id}", () => {
  it("refuses an enabled user (409) and non-administrators (403), deleting nothing", async () => {
    const admin = await signInAdmin();
    const user = await createUser();
    const error = await expectError(await call(`/api/user/${user.id}`, { method: "DELETE", bearer: admin.bearer }), 409);
    expect(error.message).toBe(ru.users.disableFirst);
    const caller = await signIn();
    await exec(`update users set enabled = 0 where id = ?`, user.id);
    await expectError(await call(`/api/user/${user.id}`, { method: "DELETE", bearer: caller.bearer }), 403);
    expect(await userRow(user.id)).toHaveLength(1);
  });

  it("needs new_owner when the user owns anything (409), then reassigns files and folders in one go", async () => {
    const admin = await signInAdmin();
    const heir = await createUser();
    const user = await createUser({ enabled: false });
    const asset = await insertAsset({ ownerId: user.id });
    const trashed = await insertAsset({ ownerId: user.id, deletedAt: Date.now() });
    const group = await insertGroup({ ownerId: user.id });
    const rule = newId();
    await exec(
      `insert into access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime) values (?, ?, 'user', ?, 'group', 2, ?)`,
      rule,
      user.id,
      group,
      Date.now(),
    );
    await exec(`insert into user_group_members (group_id, user_id, ctime) values (?, ?, ?)`, group, user.id, Date.now());

    const refused = await expectError(await call(`/api/user/${user.id}`, { method: "DELETE", bearer: admin.bearer }), 409);
    expect(refused.message).toBe(ru.users.newOwnerRequired(3));
    await expectError(await call(`/api/user/${user.id}?new_owner=${newId()}`, { method: "DELETE", bearer: admin.bearer }), 404);
    await expectError(await call(`/api/user/${user.id}?new_owner=${user.id}`, { method: "DELETE", bearer: admin.bearer }), 400);
    await expectError(await call(`/api/user/${user.id}?new_owner=bad`, { method: "DELETE", bearer: admin.bearer }), 400);
    const disabledHeir = await createUser({ enabled: false });
    await expectError(await call(`/api/user/${user.id}?new_owner=${disabledHeir.id}`, { method: "DELETE", bearer: admin.bearer }), 409);
    expect(await rows(`select owner_id from assets where id = ?`, asset.id)).toEqual([{ owner_id: user.id }]);

    const done = await ok<{ reassigned: Record<string, number> }>(
      await call(`/api/user/${user.id}?new_owner=${heir.id}`, { method: "DELETE", bearer: admin.bearer }),
    );
    expect(done.reassigned).toMatchObject({ assets: 2, groups: 1 });
    expect(await rows(`select owner_id from assets where id in (?, ?)`, asset.id, trashed.id)).toEqual([
      { owner_id: heir.id },
      { owner_id: heir.id },
    ]);
    expect(await rows(`select owner_id from groups where id = ?`, group)).toEqual([{ owner_id: heir.id }]);
    expect(await userRow(user.id)).toEqual([]);
    expect(await rows(`select id from access_rules where id = ?`, rule)).toEqual([]);
    expect(await rows(`select user_id from user_group_members where user_id = ?`, user.id)).toEqual([]);
    const audit = await rows(`select actor_id from audit_log where action = 'user.delete' and object_id = ?`, user.id);
    expect(audit).toHaveLength(1);
  });

  it("deletes a user who owns nothing without new_owner, with its sessions, tokens and settings; unknown ids are 404", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    await ok(await call(`/api/user/bookmarks`, { method: "PATCH", bearer: user.bearer, json: { a: 1 } }));
    await ok(await call(`/api/user/${user.id}`, { method: "PATCH", bearer: admin.bearer, json: { is_robot: true, enabled: false } }));
    await ok(await call(`/api/user/${user.id}/tokens`, { method: "POST", bearer: admin.bearer, json: { name: "t" } }));
    await ok(await call(`/api/user/${user.id}`, { method: "DELETE", bearer: admin.bearer }));
    expect(await userRow(user.id)).toEqual([]);
    for (const table of ["sessions", "robot_tokens", "user_settings"]) {
      expect(await rows(`select user_id from ${table} where user_id = ?`, user.id)).toEqual([]);
    }
    await expectError(await call(`/api/user/${user.id}`, { method: "DELETE", bearer: admin.bearer }), 404);
  });
});

describe("GET /api/user/search-user-group/{name}", () => {
  it("finds enabled users and live groups by name; administrators also see logins", async () => {
    const admin = await signInAdmin();
    const tag = newId().slice(-6);
    const user = await createUser({ name: `Ольга ${tag}` });
    await createUser({ name: `Ольга ${tag} отключена`, enabled: false });
    const group = await insertGroup({ ownerId: user.id, name: `Ольгины ${tag}` });
    await insertGroup({ ownerId: user.id, name: `Ольгины ${tag} в корзине`, deletedAt: Date.now() });
    const found = await ok<{ id: string; type: string; login?: string }[]>(
      await call(`/api/user/search-user-group/${encodeURIComponent(`ольг`)}`, { bearer: admin.bearer }),
    ).then((all) => all.filter((e) => e.id === user.id || e.id === group || e.type === "user"));
    expect(found.filter((e) => [user.id, group].includes(e.id))).toEqual([
      { id: user.id, type: "user", name: `Ольга ${tag}`, login: user.login, is_robot: false },
      { id: group, type: "group", name: `Ольгины ${tag}` },
    ]);

    const someone = await signIn();
    const forUser = await ok<{ id: string; login?: string }[]>(
      await call(`/api/user/search-user-group/${tag}`, { bearer: someone.bearer }),
    );
    expect(forUser).toEqual([{ id: user.id, type: "user", name: `Ольга ${tag}`, is_robot: false }]);
    await expectError(await call(`/api/user/search-user-group/${tag}`), 401);

    // A read rule makes a group findable for that user; without it the group stays hidden.
    const ruled = await call("/api/user/acl", {
      method: "POST",
      bearer: admin.bearer,
      json: { subj: someone.id, obj: group, acl: ["read"] },
    });
    expect(ruled.status).toBe(201);
    const withRule = await ok<{ id: string }[]>(await call(`/api/user/search-user-group/${tag}`, { bearer: someone.bearer }));
    expect(withRule.map((e) => e.id)).toEqual([user.id, group]);
    await expectError(await call(`/api/user/search-user-group/${"x".repeat(101)}`, { bearer: admin.bearer }), 400);
  });
});
