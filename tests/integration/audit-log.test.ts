import { describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { exec } from "./catalog-fixtures";
import { call, createUser, expectError, signIn, signInAdmin } from "./factories";
import { admin as libraryAdmin, createGroup, uniqueName } from "./library-factories";

interface Entry {
  id: string;
  ctime: string;
  action: string;
  actor_id: string | null;
  actor_name: string | null;
  object_id: string | null;
  details: Record<string, unknown> | null;
}

async function ok<T>(res: Response): Promise<T> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

/** Writes entries with known times for one made-up actor, so filters can be checked exactly. */
async function seed(actorId: string, base: number) {
  const entries = [
    ["auth.login", base],
    ["user.create", base + 1_000],
    ["user.update", base + 2_000],
    ["auth.logout", base + 3_000],
  ] as const;
  for (const [action, ctime] of entries) {
    await exec(
      `insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details) values (?, ?, ?, ?, 'user', ?, '{"n":1}')`,
      newId(),
      ctime,
      actorId,
      action,
      actorId,
    );
  }
}

describe("GET /api/audit", () => {
  it("pages newest first with the acting user's name and the total in X-Total-Count", async () => {
    const admin = await signInAdmin();
    const actor = await createUser({ name: "Аудитор" });
    const base = Date.UTC(2030, 0, 1);
    await seed(actor.id, base);
    const res = await call(`/api/audit?actor=${actor.id}&take=3`, { bearer: admin.bearer });
    const page = await ok<Entry[]>(res);
    expect(res.headers.get("x-total-count")).toBe("4");
    expect(page.map((e) => e.action)).toEqual(["auth.logout", "user.update", "user.create"]);
    expect(page[0]).toMatchObject({
      actor_id: actor.id,
      actor_name: "Аудитор",
      object_id: actor.id,
      details: { n: 1 },
      ctime: new Date(base + 3_000).toISOString(),
    });
    const next = await ok<Entry[]>(await call(`/api/audit?actor=${actor.id}&take=3&skip=3`, { bearer: admin.bearer }));
    expect(next.map((e) => e.action)).toEqual(["auth.login"]);
  });

  it("filters by exact action, action family, and time range (inclusive)", async () => {
    const admin = await signInAdmin();
    const actor = await createUser();
    const base = Date.UTC(2031, 5, 1);
    await seed(actor.id, base);
    const q = (query: string) => call(`/api/audit?actor=${actor.id}&${query}`, { bearer: admin.bearer }).then((r) => ok<Entry[]>(r));
    expect((await q("action=user.update")).map((e) => e.action)).toEqual(["user.update"]);
    expect((await q("action=user.*")).map((e) => e.action)).toEqual(["user.update", "user.create"]);
    expect((await q("action=auth.*")).map((e) => e.action)).toEqual(["auth.logout", "auth.login"]);
    const from = new Date(base + 1_000).toISOString();
    const to = new Date(base + 2_000).toISOString();
    expect((await q(`from=${from}&to=${to}`)).map((e) => e.action)).toEqual(["user.update", "user.create"]);
  });

  it("shows real entries written by the product (user creation by an administrator)", async () => {
    const admin = await signInAdmin();
    const login = `audited-${newId().slice(-8)}`;
    const since = new Date(Date.now() - 60_000).toISOString();
    await ok(
      await call("/api/user", {
        method: "POST",
        bearer: admin.bearer,
        json: { user_name: "Новый", user_login: login, user_passwd: "пароль-надёжный", enabled: true },
      }),
    );
    const [entry] = await ok<Entry[]>(
      await call(`/api/audit?action=user.create&take=1&from=${since}&to=${new Date(Date.now() + 60_000).toISOString()}`, {
        bearer: admin.bearer,
      }),
    );
    expect(entry.details).toMatchObject({ login });
    expect(entry.actor_name).toBe("Администратор");
  });

  it("names the users and folders an entry mentions (object and ids in details), in one answer; deleted ones are left out", async () => {
    const admin = await signInAdmin();
    const actor = await createUser({ name: "Раздающий" });
    const subject = await createUser({ name: "Получатель прав" });
    const folderName = uniqueName("Аудит");
    const folder = await createGroup(await libraryAdmin(), folderName);
    const gone = newId();
    await exec(
      `insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details) values (?, ?, ?, 'acl.create', 'group', ?, ?)`,
      newId(),
      Date.UTC(2032, 0, 1),
      actor.id,
      folder,
      JSON.stringify({ rule_id: newId(), subj_id: subject.id, acl: ["read"], users: [subject.id, gone] }),
    );
    const [entry] = await ok<(Entry & { names: Record<string, { type: string; name: string }> })[]>(
      await call(`/api/audit?actor=${actor.id}`, { bearer: admin.bearer }),
    );
    expect(entry.names).toEqual({
      [folder]: { type: "group", name: folderName },
      [subject.id]: { type: "user", name: "Получатель прав" },
    });
  });

  it("refuses bad filters (400), non-administrators and robots (403), anonymous callers (401)", async () => {
    const admin = await signInAdmin();
    for (const query of ["action=DROP TABLE", "actor=nope", "from=yesterday", "take=0", "take=501", "skip=-1"]) {
      await expectError(await call(`/api/audit?${query}`, { bearer: admin.bearer }), 400);
    }
    const user = await signIn();
    await expectError(await call(`/api/audit`, { bearer: user.bearer }), 403);
    await expectError(await call(`/api/audit`), 401);
  });
});
