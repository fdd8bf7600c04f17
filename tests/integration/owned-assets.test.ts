import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../workers/lib/errors";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { ownedByUser } from "../../workers/services/access/owned.service";
import { call, signIn, signInAdmin, type TestUser } from "./factories";

const actorOf = (u: TestUser): Actor => ({
  id: u.id,
  name: u.name,
  login: u.login,
  isAdmin: u.isAdmin,
  isRobot: false,
  sessionFamily: null,
});
const rc = () => createRequestContext(env, () => undefined, "owned-test");
const paging = { groupSkip: 0, assetSkip: 0, take: 25 };

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBeLessThan(300);
  return (text ? JSON.parse(text) : null) as T;
}

/** A user owning two folders (one of them trashed) and a file. */
async function owner() {
  const user = await signIn();
  // Top-level folder names are unique across the tree's root, whoever owns them.
  const name = `Мои съёмки ${user.id.slice(-8)}`;
  const kept = await json<{ group_id: string }>(
    await call("/api/group/create", { method: "POST", bearer: user.bearer, json: { parent: ROOT_GROUP_ID, group_name: name } }),
  );
  const trashed = await json<{ group_id: string }>(
    await call("/api/group/create", {
      method: "POST",
      bearer: user.bearer,
      json: { parent: ROOT_GROUP_ID, group_name: `В корзину ${user.id.slice(-8)}` },
    }),
  );
  await json(await call(`/api/group/delete/${trashed.group_id}`, { method: "DELETE", bearer: user.bearer }));
  const asset = await json<{ asset_id: string }>(
    await call("/api/asset/create", {
      method: "POST",
      bearer: user.bearer,
      json: { asset_name: "кадр.png", asset_mime: "image/png", in_group: kept.group_id },
    }),
  );
  return { user, name, kept: kept.group_id, asset: asset.asset_id };
}

describe("what a user owns (the admin user page)", () => {
  it("lists the live folders and files of the user for an administrator, and for the user themselves", async () => {
    const { user, name, kept, asset } = await owner();
    const admin: Actor = { id: newId(), name: "a", login: "a", isAdmin: true, isRobot: false, sessionFamily: null };
    const seen = await ownedByUser(rc(), admin, user.id, paging);
    expect(seen.groups).toEqual([{ group_id: kept, group_name: name, mtime: expect.any(String) }]);
    expect(seen.assets).toEqual([{ asset_id: asset, name: "кадр.png", mimetype: "image/png", ver: 0, mtime: expect.any(String) }]);
    expect(await ownedByUser(rc(), actorOf(user), user.id, paging)).toEqual(seen);
  });

  it("pages each list on its own", async () => {
    const { user } = await owner();
    const admin: Actor = { id: newId(), name: "a", login: "a", isAdmin: true, isRobot: false, sessionFamily: null };
    const next = await ownedByUser(rc(), admin, user.id, { groupSkip: 1, assetSkip: 0, take: 25 });
    expect(next.groups).toEqual([]);
    expect(next.assets).toHaveLength(1);
  });

  it("refuses another user (403) and answers 404 for an unknown user", async () => {
    const { user } = await owner();
    const other = await signIn();
    await expect(ownedByUser(rc(), actorOf(other), user.id, paging)).rejects.toMatchObject({ status: 403 });
    const admin: Actor = { id: newId(), name: "a", login: "a", isAdmin: true, isRobot: false, sessionFamily: null };
    const missing = ownedByUser(rc(), admin, newId(), paging);
    await expect(missing).rejects.toBeInstanceOf(AppError);
    await expect(missing).rejects.toMatchObject({ status: 404 });
  });

  it("the page serves an administrator and sends anyone else to /mam", async () => {
    const { user, kept } = await owner();
    const admin = await signInAdmin();
    const page = await call(`/admin/user/${user.id}/assets`, { refresh: admin.refresh, headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    // The loader's data travels in the page's stream (escaped text, so the ASCII id is what is looked for).
    expect(await page.text()).toContain(kept);
    const other = await signIn();
    const refused = await call(`/admin/user/${user.id}/assets`, { refresh: other.refresh, headers: { accept: "text/html" } });
    expect(refused.status).toBe(302);
    expect(refused.headers.get("location")).toBe("/mam");
  });
});
