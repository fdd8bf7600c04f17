import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { rows } from "./catalog-fixtures";
import { call, expectError, signIn } from "./factories";

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
