import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { worker } from "./worker-handlers";
import { rollupDrift } from "../../workers/db/repositories/folder-rollup.repository";
import { subtreeSize } from "../../workers/db/repositories/group-reads.repository";
import { createDb } from "../../workers/db/client";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import type { TaskMessageInput } from "../../workers/queue/messages";
import { repairFolderRollups } from "../../workers/services/library/folder-rollups.service";
import { readMove } from "../../workers/db/repositories/library-move.repository";
import { SqlStorageClient } from "../../workers/db/sql-storage-client";
import { createGroup as createGroupIn } from "../../workers/services/library";
import { actorOf, exec, testContext } from "./catalog-fixtures";
import { admin, createGroup, insertAsset, send, uniqueName } from "./library-factories";
import { inShard } from "./through-shards";
import { propertyRuns } from "./property-runs";

// Folder rollups (decision record 017) under random operation sequences through the real write paths: group create,
// move, trash, restore and purge; asset insert, listing, unlisting, moving, copying, trashing, restoring; variants
// appearing and failing. After every sequence the stored totals equal a from-scratch recomputation (drift 0) and
// group-size from the rollups equals the old aggregate scan for every group.

afterEach(() => vi.restoreAllMocks());

/** Runs a purge-group message and its continuations through the Worker's queue handler. */
async function runQueue(first: TaskMessageInput) {
  vi.spyOn(console, "log").mockImplementation(() => undefined);
  const queued: unknown[] = [first];
  const TASKS = {
    send: vi.fn(async (body: unknown) => void queued.push(body)),
    sendBatch: vi.fn(async (messages: { body: unknown }[]) => void queued.push(...messages.map((m) => m.body))),
  } as unknown as Queue;
  for (let round = 0; queued.length > 0; round++) {
    expect(round).toBeLessThan(50);
    const batch = createMessageBatch("edge-mam-tasks", [{ id: `m${round}`, timestamp: Date.now(), attempts: 1, body: queued.shift() }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, TASKS }, ctx);
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([]);
  }
}

type Op =
  | { kind: "group"; parent: number }
  | { kind: "moveGroup"; node: number; target: number }
  | { kind: "trashGroup"; node: number }
  | { kind: "restoreGroup"; node: number }
  | { kind: "purgeGroup"; node: number }
  | { kind: "asset"; groups: number[]; size: number; initial: boolean }
  | { kind: "list"; asset: number; group: number }
  | { kind: "unlist"; asset: number; group: number }
  | { kind: "moveAsset"; asset: number; target: number }
  | { kind: "copy"; asset: number; group: number }
  | { kind: "trashAsset"; asset: number }
  | { kind: "restoreAsset"; asset: number }
  | { kind: "variant"; asset: number; size: number }
  | { kind: "failVariant"; asset: number };

const n = fc.nat(50);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("group" as const), parent: n }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("moveGroup" as const), node: n, target: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trashGroup" as const), node: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restoreGroup" as const), node: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("purgeGroup" as const), node: n }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("asset" as const),
      groups: fc.array(n, { minLength: 0, maxLength: 3 }),
      size: fc.integer({ min: 1, max: 10_000 }),
      initial: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("list" as const), asset: n, group: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unlist" as const), asset: n, group: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("moveAsset" as const), asset: n, target: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("copy" as const), asset: n, group: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trashAsset" as const), asset: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restoreAsset" as const), asset: n }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("variant" as const), asset: n, size: fc.integer({ min: 1, max: 5000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("failVariant" as const), asset: n }) },
);

async function memberGroups(assetId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("select group_id from group_members where el_id = ? and trashed_at is null").bind(assetId).all<{
    group_id: string;
  }>();
  return results.map((r) => r.group_id);
}

describe("folder rollups under random operations", () => {
  it("stay equal to a recomputation (drift 0) and answer group-size like the aggregate scan", async () => {
    const who = await admin();
    const db = createDb(env.DB);
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 24 }), async (ops) => {
        const top = await createGroup(who, uniqueName());
        const groups = [top];
        const assets: string[] = [];
        const pickGroup = (i: number) => groups[i % groups.length];
        const pickAsset = (i: number) => (assets.length ? assets[i % assets.length] : null);
        for (const op of ops) {
          // Answers may be 4xx (a trashed target, a cycle, a name taken): the rollups must stay exact either way.
          if (op.kind === "group") {
            const res = await send<{ group_id: string }>("POST", "/api/group/create", who.bearer, {
              parent: pickGroup(op.parent),
              group_name: `g${newId().slice(-8)}`,
            });
            if (res.status === 200) groups.push(res.body.group_id);
          } else if (op.kind === "moveGroup") {
            const node = pickGroup(op.node);
            if (node === top) continue;
            const from = (await env.DB.prepare("select parent_id from groups where id = ?").bind(node).first<{ parent_id: string }>())
              ?.parent_id;
            if (from) await send("POST", `/api/group/move-member/${node}/${from}/${pickGroup(op.target)}`, who.bearer);
          } else if (op.kind === "trashGroup") {
            if (pickGroup(op.node) !== top) await send("DELETE", `/api/group/delete/${pickGroup(op.node)}`, who.bearer);
          } else if (op.kind === "restoreGroup") {
            await send("POST", `/api/group/restore/${pickGroup(op.node)}`, who.bearer);
          } else if (op.kind === "purgeGroup") {
            const node = pickGroup(op.node);
            if (node === top) continue;
            const res = await send("DELETE", `/api/group/purge/${node}`, who.bearer);
            if (res.status >= 300) continue;
            await runQueue({ op: "purge-group", groupId: node, actorId: who.id } as TaskMessageInput);
            // Gone for good: no later operation may name it (only rows written behind the API's back could, into a
            // folder that no longer exists).
            const { results } = await env.DB.prepare("select id from groups where id in (select value from json_each(?))")
              .bind(JSON.stringify(groups))
              .all<{ id: string }>();
            const left = new Set(results.map((r) => r.id));
            groups.splice(0, groups.length, ...groups.filter((g) => left.has(g)));
          } else if (op.kind === "asset") {
            const listed = [...new Set(op.groups.map(pickGroup))];
            assets.push((await insertAsset({ ownerId: who.id, groups: listed, size: op.size, withInitial: op.initial })).id);
          } else if (op.kind === "list" || op.kind === "unlist") {
            const asset = pickAsset(op.asset);
            if (!asset) continue;
            if (op.kind === "list") {
              await send("POST", `/api/group/insert-members/${pickGroup(op.group)}`, who.bearer, {
                members: [{ el_id: asset, el_type: "asset" }],
              });
            } else {
              await send("DELETE", `/api/group/delete-members/${pickGroup(op.group)}?ids=${asset}`, who.bearer);
            }
          } else if (op.kind === "moveAsset") {
            const asset = pickAsset(op.asset);
            const from = asset ? (await memberGroups(asset))[0] : undefined;
            if (asset && from) await send("POST", `/api/group/move-member/${asset}/${from}/${pickGroup(op.target)}`, who.bearer);
          } else if (op.kind === "copy") {
            const asset = pickAsset(op.asset);
            if (!asset) continue;
            const res = await send<{ asset_id: string }>("POST", `/api/asset/copy/${asset}/${pickGroup(op.group)}`, who.bearer);
            if (res.status === 200) assets.push(res.body.asset_id);
          } else if (op.kind === "trashAsset" || op.kind === "restoreAsset") {
            const asset = pickAsset(op.asset);
            if (asset)
              await send(
                op.kind === "trashAsset" ? "DELETE" : "POST",
                `/api/asset/${op.kind === "trashAsset" ? "" : "restore/"}${asset}`,
                who.bearer,
              );
          } else if (op.kind === "variant") {
            const asset = pickAsset(op.asset);
            if (!asset) continue;
            await exec(
              `insert into variants (id, asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, storage_id, storage_key, user_id, ctime)
               select ?, id, null, 'proxy_lowres', 'ready', 'p', 'video/mp4', 'p.mp4', ?, '00000000000000000000000000000000', ?, owner_id, 0 from assets where id = ?`,
              newId(),
              op.size,
              `k/${newId()}`,
              asset,
            );
          } else if (op.kind === "failVariant") {
            const asset = pickAsset(op.asset);
            if (asset)
              await exec("update variants set status = 'failed' where id = (select id from variants where asset_id = ? limit 1)", asset);
          }
        }
        expect(await rollupDrift(db)).toEqual({ assets: 0, folders: 0 });
        // With the library in its shard (the sharded tier), the shard's own rollups are exact too (its root is a
        // stand-in: the root's listing of libraries, and its totals, are the catalog's).
        const place = await readMove(env.DB, top);
        if (place)
          expect(
            await inShard(place.shard, (_sql, storage) => rollupDrift(createDb(new SqlStorageClient(storage)), [ROOT_GROUP_ID])),
          ).toEqual({ assets: 0, folders: 0 });
        const { results } = await env.DB.prepare(
          `select id from groups where deleted_at is null and id in (select value from json_each(?))`,
        )
          .bind(JSON.stringify(groups))
          .all<{ id: string }>();
        const ids = results.map((r) => r.id);
        if (ids.length === 0) return;
        const res = await send<{ group_id: string; bytes: number; assets: number; groups: number }[]>(
          "POST",
          "/api/group/group-size",
          who.bearer,
          { ids },
        );
        expect(res.status).toBe(200);
        for (const size of res.body) {
          const scan = (await subtreeSize(db, size.group_id, null))!;
          expect(size, size.group_id).toEqual({
            group_id: size.group_id,
            bytes: scan.bytes,
            assets: scan.assets,
            groups: Math.max(0, scan.groups),
          });
        }
      }),
      { numRuns: propertyRuns(20) },
    );
  }, 180_000);

  it("the repair reports drift made behind the triggers' back and puts it right", async () => {
    const who = await admin();
    const db = createDb(env.DB);
    // Made by the service: a library in the catalog in either tier (the catalog's repair is the subject).
    const boss = actorOf({ id: who.id, login: "admin", name: "admin", isAdmin: true });
    const { group_id: top } = await createGroupIn(testContext(), boss, { parent: ROOT_GROUP_ID, group_name: uniqueName() });
    const inner = await createGroup(who, "внутри", top);
    await insertAsset({ ownerId: who.id, groups: [inner], size: 700 });
    expect(await rollupDrift(db)).toEqual({ assets: 0, folders: 0 });
    // A bulk fix that bypasses the triggers: rewrite the stored totals.
    await env.DB.prepare("update folder_rollups set sub_bytes = sub_bytes + 5 where group_id = ?").bind(top).run();
    await env.DB.prepare("update asset_totals set listings = 9 where asset_id = (select el_id from group_members where group_id = ?)")
      .bind(inner)
      .run();
    const repair = await repairFolderRollups(db);
    expect(repair.before).toEqual({ assets: 1, folders: 1 });
    expect(repair.after).toEqual({ assets: 0, folders: 0 });
    const res = await send<{ bytes: number; assets: number; groups: number }[]>("POST", "/api/group/group-size", who.bearer, {
      ids: [top],
    });
    expect(res.body[0]).toMatchObject({ bytes: 700, assets: 1, groups: 1 });
  });
});
