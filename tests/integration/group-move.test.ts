import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import type { Group } from "../../workers/services/library/group.service";
import { call, expectError } from "./factories";
import {
  admin,
  createGroup,
  expectTreeConsistent,
  getJson,
  groupRow,
  insertAsset,
  librarySnapshot,
  membersOf,
  ordinaryUser,
  ROOT_GROUP_ID,
  send,
  uniqueName,
} from "./library-factories";

// move-member and move-members: assets change membership, groups move with their subtree (closure in one batch).

const moveOne = (bearer: string, member: string, from: string, to: string) =>
  send("POST", `/api/group/move-member/${member}/${from}/${to}`, bearer);
const moveMany = (bearer: string, from: string, to: string, ids: string[]) =>
  send("POST", `/api/group/move-members/${from}/${to}`, bearer, { ids });

async function pathOf(id: string, bearer: string) {
  return (await getJson<Group>(`/api/group/get/${id}`, bearer)).path.map((p) => p.group_id);
}

describe("POST /api/group/move-member/{member}/{from}/{to}", () => {
  it("moves an asset's membership and keeps its sort keys", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const asset = await insertAsset({ ownerId: user.id, groups: [a], name: "Кадр.mp4", size: 77 });
    expect((await moveOne(user.bearer, asset.id, a, b)).status).toBe(204);
    expect(await membersOf(a)).toEqual({});
    expect(await membersOf(b)).toEqual({ [asset.id]: "asset" });
    const row = await env.DB.prepare("SELECT sort_name, el_size FROM group_members WHERE group_id = ? AND el_id = ?")
      .bind(b, asset.id)
      .first();
    expect(row).toEqual({ sort_name: "кадр.mp4", el_size: 77 });
  });

  it("moves a group with its whole subtree: closure, parent and membership", async () => {
    const user = await ordinaryUser();
    const a = await createGroup(user, uniqueName());
    const b = await createGroup(user, uniqueName());
    const moved = await createGroup(user, "ветка", a);
    const child = await createGroup(user, "лист", moved);
    const grandchild = await createGroup(user, "глубже", child);
    const asset = await insertAsset({ ownerId: user.id, groups: [child] });
    expect((await moveOne(user.bearer, moved, a, b)).status).toBe(204);
    expect((await groupRow(moved))?.parent_id).toBe(b);
    expect(await membersOf(a)).toEqual({});
    expect(await membersOf(b)).toEqual({ [moved]: "group" });
    expect(await pathOf(grandchild, user.bearer)).toEqual([ROOT_GROUP_ID, b, moved, child, grandchild]);
    expect(await membersOf(child)).toEqual({ [grandchild]: "group", [asset.id]: "asset" });
    await expectTreeConsistent();
  });

  it("moves a group to the top level and back below another group", async () => {
    const user = await ordinaryUser();
    const a = await createGroup(user, uniqueName());
    const sub = await createGroup(user, uniqueName(), a);
    expect((await moveOne(user.bearer, sub, a, ROOT_GROUP_ID)).status).toBe(204);
    expect(await pathOf(sub, user.bearer)).toEqual([ROOT_GROUP_ID, sub]);
    expect((await getJson<{ group_id: string }[]>("/api/group/roots", user.bearer)).map((g) => g.group_id)).toContain(sub);
    expect((await moveOne(user.bearer, sub, ROOT_GROUP_ID, a)).status).toBe(204);
    expect(await pathOf(sub, user.bearer)).toEqual([ROOT_GROUP_ID, a, sub]);
    await expectTreeConsistent();
  });

  it("answers 409 for a move into the group itself or below it, and changes nothing", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const g = await createGroup(user, "g", top);
    const child = await createGroup(user, "child", g);
    const deep = await createGroup(user, "deep", child);
    const before = await librarySnapshot();
    for (const target of [child, deep]) {
      expect(await moveOne(user.bearer, g, top, target)).toMatchObject({ status: 409, body: { message: ru.groups.cycle } });
    }
    expect((await moveOne(user.bearer, g, top, g)).status).toBe(409);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("answers 409 when the target already has a group with that name, or already lists the asset", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const g = await createGroup(user, "Отчёт", a);
    await createGroup(user, "ОТЧЁТ", b);
    const asset = await insertAsset({ ownerId: user.id, groups: [a, b] });
    const before = await librarySnapshot();
    expect(await moveOne(user.bearer, g, a, b)).toMatchObject({ status: 409, body: { message: ru.groups.nameTaken("Отчёт") } });
    expect(await moveOne(user.bearer, asset.id, a, b)).toMatchObject({ status: 409, body: { message: ru.groups.alreadyMember } });
    expect(await librarySnapshot()).toEqual(before);
  });

  it("answers 404 for a member that is not in the source, 400 for the same group or the virtual root as member", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const elsewhere = await insertAsset({ ownerId: user.id, groups: [b] });
    expect(await moveOne(user.bearer, elsewhere.id, a, b)).toMatchObject({ status: 404, body: { message: ru.groups.notMember } });
    expect(await moveOne(user.bearer, elsewhere.id, b, b)).toMatchObject({ status: 400, body: { message: ru.groups.sameGroup } });
    expect(await moveOne(user.bearer, ROOT_GROUP_ID, a, b)).toMatchObject({ status: 400, body: { message: ru.groups.rootImmutable } });
    expect((await moveOne(user.bearer, "bad", a, b)).status).toBe(400);
    expect((await moveOne(user.bearer, elsewhere.id, b, ROOT_GROUP_ID)).body).toMatchObject({ message: ru.groups.rootHoldsGroups });
  });

  it("answers 404 for a trashed target or source", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const asset = await insertAsset({ ownerId: user.id, groups: [a] });
    await send("DELETE", `/api/group/delete/${b}`, user.bearer);
    expect((await moveOne(user.bearer, asset.id, a, b)).status).toBe(404);
    await send("DELETE", `/api/group/delete/${a}`, user.bearer);
    const c = await createGroup(user, uniqueName());
    expect((await moveOne(user.bearer, asset.id, a, c)).status).toBe(404);
  });

  it("security: moving out of, into or within another user's groups is 404 and changes nothing", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const [a, b] = [await createGroup(owner, uniqueName()), await createGroup(owner, uniqueName())];
    const sub = await createGroup(owner, "sub", a);
    const asset = await insertAsset({ ownerId: owner.id, groups: [a] });
    const own = await createGroup(stranger, uniqueName());
    const ownAsset = await insertAsset({ ownerId: stranger.id, groups: [own] });
    const before = await librarySnapshot();
    await expectError(await call(`/api/group/move-member/${asset.id}/${a}/${b}`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/move-member/${asset.id}/${a}/${own}`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/move-member/${ownAsset.id}/${own}/${a}`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/move-member/${sub}/${a}/${own}`, { method: "POST", bearer: stranger.bearer }), 404);
    // Through the virtual root the caller still needs rights on the group itself.
    await expectError(await call(`/api/group/move-member/${a}/${ROOT_GROUP_ID}/${own}`, { method: "POST", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/move-member/${asset.id}/${a}/${b}`, { method: "POST" }), 401);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("lets an administrator move anyone's groups", async () => {
    const owner = await ordinaryUser();
    const boss = await admin();
    const [a, b] = [await createGroup(owner, uniqueName()), await createGroup(owner, uniqueName())];
    const sub = await createGroup(owner, "sub", a);
    expect((await moveOne(boss.bearer, sub, a, b)).status).toBe(204);
    expect((await groupRow(sub))?.parent_id).toBe(b);
  });
});

describe("POST /api/group/move-members/{from}/{to}", () => {
  it("moves assets and groups together", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const g1 = await createGroup(user, "g1", a);
    const g2 = await createGroup(user, "g2", a);
    const inner = await createGroup(user, "inner", g2);
    const x = await insertAsset({ ownerId: user.id, groups: [a] });
    const stays = await insertAsset({ ownerId: user.id, groups: [a] });
    expect((await moveMany(user.bearer, a, b, [g1, g2, x.id])).status).toBe(204);
    expect(await membersOf(a)).toEqual({ [stays.id]: "asset" });
    expect(await membersOf(b)).toEqual({ [g1]: "group", [g2]: "group", [x.id]: "asset" });
    expect(await pathOf(inner, user.bearer)).toEqual([ROOT_GROUP_ID, b, g2, inner]);
    await expectTreeConsistent();
  });

  it("is all or nothing: one member that cannot move keeps every other in place", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const g1 = await createGroup(user, "g1", a);
    const clash = await createGroup(user, "g2", a);
    await createGroup(user, "G2", b);
    const x = await insertAsset({ ownerId: user.id, groups: [a] });
    const notThere = await insertAsset({ ownerId: user.id });
    const before = await librarySnapshot();
    expect((await moveMany(user.bearer, a, b, [g1, x.id, clash])).status).toBe(409);
    expect((await moveMany(user.bearer, a, b, [g1, x.id, notThere.id])).status).toBe(404);
    expect(await librarySnapshot()).toEqual(before);
  });

  it("refuses a group onto a same-named sibling whichever way round, and allows it once the name is free", async () => {
    const user = await ordinaryUser();
    const [a, b, c] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    const one = await createGroup(user, "Дубль", a);
    const two = await createGroup(user, "дубль", b);
    expect((await moveOne(user.bearer, two, b, a)).status).toBe(409);
    expect((await moveOne(user.bearer, one, a, c)).status).toBe(204);
    expect((await moveOne(user.bearer, two, b, c)).status).toBe(409);
    expect((await moveOne(user.bearer, two, b, a)).status).toBe(204);
    await expectTreeConsistent();
  });

  it("answers 400 for bad id lists", async () => {
    const user = await ordinaryUser();
    const [a, b] = [await createGroup(user, uniqueName()), await createGroup(user, uniqueName())];
    for (const json of [{ ids: [] }, { ids: ["x"] }, {}, { ids: Array(501).fill(a) }]) {
      await expectError(await call(`/api/group/move-members/${a}/${b}`, { method: "POST", bearer: user.bearer, json }), 400);
    }
    await expectError(await call(`/api/group/move-members/${a}/nope`, { method: "POST", bearer: user.bearer, json: { ids: [a] } }), 400);
  });

  it("security: another user's members cannot be moved and nothing changes", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const a = await createGroup(owner, uniqueName());
    const sub = await createGroup(owner, "sub", a);
    const target = await createGroup(stranger, uniqueName());
    const before = await librarySnapshot();
    await expectError(
      await call(`/api/group/move-members/${a}/${target}`, { method: "POST", bearer: stranger.bearer, json: { ids: [sub] } }),
      404,
    );
    expect(await librarySnapshot()).toEqual(before);
  });
});
