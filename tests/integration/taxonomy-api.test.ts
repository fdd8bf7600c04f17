import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { insertAsset, insertGroup, rows } from "./catalog-fixtures";
import { call, expectError, signIn, signInAdmin } from "./factories";
import { ok } from "./metadata-fixtures";

interface Node {
  taxon_id: string;
  name: string;
  members: number;
  children: Node[];
}

const names = (node: Node): unknown => ({ [node.name]: node.children.map(names) });

async function newTree(bearer: string, path: string) {
  return ok<{ taxon_id: string; tree_id: string; created: number }>(`/api/taxonomy/create/${ROOT_GROUP_ID}`, bearer, {
    json: { path: `${path} ${newId().slice(-6)}` },
  });
}

describe("taxonomy trees", () => {
  it("creates a tree and paths below it like mkdir -p, lists trees and answers the nested tree", async () => {
    const admin = await signInAdmin();
    const tree = await newTree(admin.bearer, "Темы");
    expect(tree.created).toBe(1);
    const deep = await ok<{ taxon_id: string; created: number }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, {
      json: { path: "Спорт / Футбол / Клубы" },
    });
    expect(deep.created).toBe(3);
    const again = await ok<{ created: number }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Спорт/Хоккей" } });
    expect(again.created).toBe(1);
    const dup = await expectError(
      await call(`/api/taxonomy/create/${tree.tree_id}`, { method: "POST", bearer: admin.bearer, json: { path: "спорт/футбол" } }),
      409,
    );
    expect(dup.message).toBe(ru.metadata.taxonExists("футбол"));

    const root = await ok<Node>(`/api/taxonomy/tree/${tree.tree_id}`, admin.bearer);
    expect(names(root)).toEqual({ [root.name]: [{ Спорт: [{ Футбол: [{ Клубы: [] }] }, { Хоккей: [] }] }] });
    const list = await ok<{ tree_id: string }[]>("/api/taxonomy/tree-list", (await signIn()).bearer);
    expect(list.map((t) => t.tree_id)).toContain(tree.tree_id);

    for (const path of ["", "a//b", "x".repeat(101), "bad\u0007"]) {
      await expectError(await call(`/api/taxonomy/create/${tree.tree_id}`, { method: "POST", bearer: admin.bearer, json: { path } }), 400);
    }
    await expectError(await call(`/api/taxonomy/create/${newId()}`, { method: "POST", bearer: admin.bearer, json: { path: "x" } }), 404);
    await expectError(await call(`/api/taxonomy/tree/${deep.taxon_id}`, { bearer: admin.bearer }), 404);
  });

  it("renames and moves within the tree; refuses circular moves, moves into another tree and name clashes", async () => {
    const admin = await signInAdmin();
    const tree = await newTree(admin.bearer, "Места");
    const europe = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Европа" } });
    const russia = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, {
      json: { path: "Европа/Россия" },
    });
    const moscow = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, {
      json: { path: "Европа/Россия/Москва" },
    });
    const asia = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Азия" } });
    const change = (taxonId: string, json: unknown, treeId = tree.tree_id) =>
      call(`/api/taxonomy/change/${treeId}/${taxonId}`, { method: "PATCH", bearer: admin.bearer, json });

    for (const target of [europe.taxon_id, russia.taxon_id, moscow.taxon_id]) {
      const error = await expectError(await change(europe.taxon_id, { parent_id: target }), 400);
      expect(error.message).toBe(ru.metadata.taxonCycle);
    }
    const other = await newTree(admin.bearer, "Чужое");
    expect((await expectError(await change(russia.taxon_id, { parent_id: other.tree_id }), 400)).message).toBe(ru.metadata.taxonOtherTree);
    expect((await expectError(await change(tree.tree_id, { parent_id: asia.taxon_id }), 400)).message).toBe(ru.metadata.taxonRootMove);
    expect((await expectError(await change(asia.taxon_id, { name: "европа" }), 409)).message).toBe(ru.metadata.taxonExists("европа"));
    await expectError(await change(asia.taxon_id, { name: "a/b" }), 400);
    await expectError(await change(asia.taxon_id, { name: "Азия-2" }, other.tree_id), 404);

    const moved = await ok<{ parent_id: string }>(`/api/taxonomy/change/${tree.tree_id}/${russia.taxon_id}`, admin.bearer, {
      method: "PATCH",
      json: { parent_id: asia.taxon_id, name: "Россия (Азия)" },
    });
    expect(moved.parent_id).toBe(asia.taxon_id);
    expect(await rows(`select parent_id, name from taxa where id = ?`, russia.taxon_id)).toEqual([
      { parent_id: asia.taxon_id, name: "Россия (Азия)" },
    ]);
    expect(await rows(`select parent_id from taxa where id = ?`, europe.taxon_id)).toEqual([{ parent_id: tree.tree_id }]);
  });

  it("refuses deleting a taxon with members or sub-taxa unless forced; forced, removes the subtree and memberships", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const tree = await newTree(admin.bearer, "Жанры");
    const doc = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, {
      json: { path: "Документальное/Природа" },
    });
    const docId = (await rows<{ id: string }>(`select id from taxa where tree_id = ? and name = 'Документальное'`, tree.tree_id))[0].id;
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    await ok(`/api/taxonomy/add-member/${doc.taxon_id}`, owner.bearer, { json: { objectId: assetId } });

    const refused = await expectError(
      await call(`/api/taxonomy/delete/${tree.tree_id}/${docId}/false`, { method: "DELETE", bearer: admin.bearer }),
      409,
    );
    expect(refused.message).toBe(ru.metadata.taxonHasContent(1, 1));
    expect(await rows(`select count(*) as n from taxon_members where taxon_id = ?`, doc.taxon_id)).toEqual([{ n: 1 }]);

    const forced = await ok<{ taxa_removed: number; members_removed: number }>(
      `/api/taxonomy/delete/${tree.tree_id}/${docId}/true`,
      admin.bearer,
      {
        method: "DELETE",
      },
    );
    expect(forced).toMatchObject({ taxa_removed: 2, members_removed: 1 });
    expect(await rows(`select id from taxa where id in (?, ?)`, docId, doc.taxon_id)).toEqual([]);
    // An empty leaf goes without force.
    const leaf = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Пустой" } });
    await ok(`/api/taxonomy/delete/${tree.tree_id}/${leaf.taxon_id}/false`, admin.bearer, { method: "DELETE" });
    await expectError(
      await call(`/api/taxonomy/delete/${tree.tree_id}/${leaf.taxon_id}/false`, { method: "DELETE", bearer: admin.bearer }),
      404,
    );
    await expectError(
      await call(`/api/taxonomy/delete/${tree.tree_id}/${tree.tree_id}/maybe`, { method: "DELETE", bearer: admin.bearer }),
      400,
    );
  });

  it("is managed by administrators only (403, nothing changed); reading needs a sign-in", async () => {
    const admin = await signInAdmin();
    const user = await signIn();
    const tree = await newTree(admin.bearer, "Закрытое");
    await expectError(
      await call(`/api/taxonomy/create/${ROOT_GROUP_ID}`, { method: "POST", bearer: user.bearer, json: { path: "Моё" } }),
      403,
    );
    await expectError(
      await call(`/api/taxonomy/change/${tree.tree_id}/${tree.tree_id}`, { method: "PATCH", bearer: user.bearer, json: { name: "x" } }),
      403,
    );
    await expectError(
      await call(`/api/taxonomy/delete/${tree.tree_id}/${tree.tree_id}/true`, { method: "DELETE", bearer: user.bearer }),
      403,
    );
    expect(await rows(`select count(*) as n from taxa where id = ?`, tree.tree_id)).toEqual([{ n: 1 }]);
    await ok(`/api/taxonomy/tree/${tree.tree_id}`, user.bearer);
    await expectError(await call(`/api/taxonomy/tree-list`), 401);
  });
});

describe("taxonomy member counts", () => {
  it("tree-list and tree count only the members the caller may read; an administrator counts all", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const tree = await newTree(admin.bearer, "Счёт");
    const leaf = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Лист" } });
    const { id: assetId } = await insertAsset({ ownerId: owner.id });
    const groupId = await insertGroup({ ownerId: owner.id });
    const { id: ownAsset } = await insertAsset({ ownerId: stranger.id });
    await ok(`/api/taxonomy/add-member/${tree.tree_id}`, owner.bearer, { json: { objectId: assetId } });
    await ok(`/api/taxonomy/add-member/${leaf.taxon_id}`, owner.bearer, { json: { objectId: groupId } });
    await ok(`/api/taxonomy/add-member/${leaf.taxon_id}`, stranger.bearer, { json: { objectId: ownAsset } });

    const counts = async (bearer: string) => {
      const listed = (await ok<{ tree_id: string; members: number }[]>("/api/taxonomy/tree-list", bearer)).find((t) => t.tree_id === tree.tree_id);
      const root = await ok<Node>(`/api/taxonomy/tree/${tree.tree_id}`, bearer);
      return [listed?.members, root.members, root.children[0].members];
    };
    expect(await counts(stranger.bearer)).toEqual([0, 0, 1]);
    expect(await counts(owner.bearer)).toEqual([1, 1, 1]);
    expect(await counts(admin.bearer)).toEqual([1, 1, 2]);
  });
});

describe("taxon members", () => {
  it("adds, lists (with deep) and removes members; needs update on the object", async () => {
    const admin = await signInAdmin();
    const owner = await signIn();
    const stranger = await signIn();
    const tree = await newTree(admin.bearer, "Люди");
    const top = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Артисты" } });
    const sub = await ok<{ taxon_id: string }>(`/api/taxonomy/create/${tree.tree_id}`, admin.bearer, { json: { path: "Артисты/Певцы" } });
    const { id: assetId } = await insertAsset({ ownerId: owner.id, name: "Концерт.mp4" });
    const groupId = await insertGroup({ ownerId: owner.id, name: "Афиши" });

    expect(await ok(`/api/taxonomy/add-member/${top.taxon_id}`, owner.bearer, { json: { objectId: groupId } })).toEqual({ added: true });
    expect(await ok(`/api/taxonomy/add-member/${sub.taxon_id}`, owner.bearer, { json: { objectId: assetId } })).toEqual({ added: true });
    expect(await ok(`/api/taxonomy/add-member/${sub.taxon_id}`, owner.bearer, { json: { objectId: assetId } })).toEqual({ added: false });

    const direct = await ok<{ object_id: string }[]>(`/api/taxonomy/list-members/${top.taxon_id}/${tree.tree_id}`, owner.bearer);
    expect(direct.map((m) => m.object_id)).toEqual([groupId]);
    const deep = await ok<{ object_id: string; name: string; object_type: string }[]>(
      `/api/taxonomy/list-members/${top.taxon_id}/${tree.tree_id}?deep=true`,
      owner.bearer,
    );
    expect(deep.map((m) => [m.name, m.object_type])).toEqual([
      ["Афиши", "group"],
      ["Концерт.mp4", "asset"],
    ]);
    // Others see only what they may read.
    expect(await ok(`/api/taxonomy/list-members/${top.taxon_id}/${tree.tree_id}?deep=true`, stranger.bearer)).toEqual([]);
    expect(await ok<{ taxon_id: string }[]>(`/api/taxonomy/for-entity/${assetId}`, owner.bearer)).toEqual([
      { taxon_id: sub.taxon_id, name: "Певцы", tree_id: tree.tree_id },
    ]);

    await expectError(
      await call(`/api/taxonomy/add-member/${top.taxon_id}`, { method: "POST", bearer: stranger.bearer, json: { objectId: assetId } }),
      404,
    );
    await expectError(
      await call(`/api/taxonomy/del-member/${sub.taxon_id}/${assetId}`, { method: "DELETE", bearer: stranger.bearer }),
      404,
    );
    expect(await rows(`select count(*) as n from taxon_members where object_id = ?`, assetId)).toEqual([{ n: 1 }]);
    await expectError(
      await call(`/api/taxonomy/add-member/${newId()}`, { method: "POST", bearer: owner.bearer, json: { objectId: assetId } }),
      404,
    );
    await expectError(
      await call(`/api/taxonomy/add-member/${top.taxon_id}`, { method: "POST", bearer: owner.bearer, json: { objectId: newId() } }),
      404,
    );
    await expectError(await call(`/api/taxonomy/add-member/${top.taxon_id}`, { method: "POST", bearer: owner.bearer, json: {} }), 400);

    await ok(`/api/taxonomy/del-member/${sub.taxon_id}/${assetId}`, owner.bearer, { method: "DELETE" });
    await expectError(await call(`/api/taxonomy/del-member/${sub.taxon_id}/${assetId}`, { method: "DELETE", bearer: owner.bearer }), 404);
    await expectError(await call(`/api/taxonomy/list-members/${top.taxon_id}/${newId()}`, { bearer: owner.bearer }), 404);
  });
});
