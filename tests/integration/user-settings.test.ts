import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { exec, rows } from "./catalog-fixtures";
import { call, expectError, signIn } from "./factories";
import { createGroup, insertAsset, uniqueName } from "./library-factories";

async function ok<T>(res: Response): Promise<T> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body as T;
}

describe.each(["ui_settings", "bookmarks"] as const)("GET and PATCH /api/user/%s", (kind) => {
  it("starts empty, merges one level deep, removes keys set to null, and is private to each user", async () => {
    const user = await signIn();
    const other = await signIn();
    expect(await ok(await call(`/api/user/${kind}`, { bearer: user.bearer }))).toEqual({});

    const first = await ok(
      await call(`/api/user/${kind}`, {
        method: "PATCH",
        bearer: user.bearer,
        json: { theme: "dark", grid: { size: 3, sort: "name" }, ключ: "значение" },
      }),
    );
    expect(first).toEqual({ theme: "dark", grid: { size: 3, sort: "name" }, ключ: "значение" });
    const second = await ok(
      await call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json: { grid: { size: 5 }, theme: null } }),
    );
    expect(second).toEqual({ grid: { size: 5 }, ключ: "значение" });
    expect(await ok(await call(`/api/user/${kind}`, { bearer: user.bearer }))).toEqual(second);
    expect(await ok(await call(`/api/user/${kind}`, { bearer: other.bearer }))).toEqual({});
  });

  it("keeps concurrent changes of different keys", async () => {
    const user = await signIn();
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json: { [`k${i}`]: i } }).then(ok),
      ),
    );
    expect(await ok(await call(`/api/user/${kind}`, { bearer: user.bearer }))).toEqual({ k0: 0, k1: 1, k2: 2, k3: 3 });
  });

  it("refuses a document over 64 KiB (413), non-objects (400) and anonymous callers (401), changing nothing", async () => {
    const user = await signIn();
    await ok(await call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json: { keep: true } }));
    const big = await expectError(
      await call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json: { blob: "я".repeat(40_000) } }),
      413,
    );
    expect(big.message).toBe(ru.users.settingsTooLarge(64));
    for (const json of [[1, 2], "text", 42, null]) {
      await expectError(await call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json }), 400);
    }
    await expectError(await call(`/api/user/${kind}`, { method: "PATCH", bearer: user.bearer, json: { ["k".repeat(201)]: 1 } }), 400);
    await expectError(await call(`/api/user/${kind}`, { method: "PATCH", json: { x: 1 } }), 401);
    await expectError(await call(`/api/user/${kind}`), 401);
    expect(await ok(await call(`/api/user/${kind}`, { bearer: user.bearer }))).toEqual({ keep: true });
    const stored = await rows(`select ${kind} as doc from user_settings where user_id = ?`, user.id);
    expect(stored).toEqual([{ doc: JSON.stringify({ keep: true }) }]);
  });
});

describe("PATCH /api/user/ui_settings: the screens' view settings", () => {
  it("keeps view mode, sort and panel state; refuses malformed bodies and wrong values (400) and huge ones (413), keeping what was saved", async () => {
    const user = await signIn();
    const saved = { mamView: "list", mamSort: "mtime", mamOrder: "desc", uploadPanelCollapsed: "1" };
    expect(await ok(await call("/api/user/ui_settings", { method: "PATCH", bearer: user.bearer, json: saved }))).toEqual(saved);

    const raw = (body: string) =>
      call("/api/user/ui_settings", { method: "PATCH", bearer: user.bearer, body, headers: { "content-type": "application/json" } });
    for (const body of ['{"mamView": "list"', "{mamView: list}", "", "\u0000"]) await expectError(await raw(body), 400);
    for (const json of [{ mamView: "table" }, { mamSort: 3 }, { mamOrder: ["asc"] }, { uploadPanelCollapsed: true }]) {
      const error = await expectError(await call("/api/user/ui_settings", { method: "PATCH", bearer: user.bearer, json }), 400);
      expect(error.message).toContain(Object.keys(json)[0]);
    }
    await expectError(await raw(JSON.stringify({ mamView: "grid", blob: "x".repeat(70_000) })), 413);
    expect(await ok(await call("/api/user/ui_settings", { bearer: user.bearer }))).toEqual(saved);
    // null still removes a known key.
    expect(await ok(await call("/api/user/ui_settings", { method: "PATCH", bearer: user.bearer, json: { mamView: null } }))).toEqual({
      mamSort: "mtime",
      mamOrder: "desc",
      uploadPanelCollapsed: "1",
    });
  });
});

describe("GET /api/user/bookmarks: favourites filtered on read", () => {
  it("shows starred folders and files with their current names; drops silently what was trashed, deleted or is not readable", async () => {
    const owner = await signIn();
    const stranger = await signIn();
    const kept = await createGroup(owner, uniqueName("Избранное"));
    const trashed = await createGroup(owner, uniqueName("В корзину"));
    const file = await insertAsset({ ownerId: owner.id, groups: [kept] });
    const missing = newId();
    const stars = {
      [kept]: { type: "group", at: 1 },
      [trashed]: { type: "group", at: 2 },
      [file.id]: { type: "asset", at: 3 },
      [missing]: { type: "asset", at: 4 },
      order: "name",
    };
    for (const who of [owner, stranger]) {
      await ok(await call("/api/user/bookmarks", { method: "PATCH", bearer: who.bearer, json: stars }));
    }
    const del = await call(`/api/group/delete/${trashed}`, { method: "DELETE", bearer: owner.bearer });
    expect(del.status, await del.text()).toBe(204);
    await exec("update groups set name = ? where id = ?", "Переименована", kept);

    expect(await ok(await call("/api/user/bookmarks", { bearer: owner.bearer }))).toEqual({
      [kept]: { type: "group", at: 1, name: "Переименована" },
      [file.id]: { type: "asset", at: 3, name: file.name },
      order: "name",
    });
    // Someone who cannot read them sees none of them, not even their names: only the key that is not a favourite.
    expect(await ok(await call("/api/user/bookmarks", { bearer: stranger.bearer }))).toEqual({ order: "name" });
    // The PATCH answer is filtered the same way; removing a star is `null`.
    expect(await ok(await call("/api/user/bookmarks", { method: "PATCH", bearer: owner.bearer, json: { [file.id]: null } }))).toEqual({
      [kept]: { type: "group", at: 1, name: "Переименована" },
      order: "name",
    });
  });
});
