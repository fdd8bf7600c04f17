import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { worker } from "./worker-handlers";
import { TRASH_RETENTION_DAYS } from "../../workers/lib/trash";
import type { TaskMessageInput } from "../../workers/queue/messages";
import { call } from "./factories";
import {
  createGroup,
  expectTreeConsistent,
  externalStorage,
  groupRow,
  insertAsset,
  insertStorage,
  insertTag,
  membersOf,
  ordinaryUser,
  send,
  uniqueName,
} from "./library-factories";

// The retention purge: `purge-trash`, queued by the cron trigger, deletes what has been in the trash for longer than
// TRASH_RETENTION_DAYS: group subtrees (through purge-group) and individually trashed assets.

const DAY = 86_400_000;
const EXPIRED = TRASH_RETENTION_DAYS + 1;
const RESTORABLE = TRASH_RETENTION_DAYS - 1;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/**
 * Runs queue messages through the Worker's queue handler until nothing more is queued (continuations and the
 * purge-group messages purge-trash hands out included, runs in libraries' shards not). Answers every message run and the log
 * summaries.
 */
async function runQueue(first: TaskMessageInput) {
  const summaries: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void summaries.push(JSON.parse(line).summary));
  const queued: unknown[] = [first];
  const ran: TaskMessageInput[] = [];
  const TASKS = {
    send: vi.fn(async (body: unknown) => void queued.push(body)),
    sendBatch: vi.fn(async (messages: { body: unknown }[]) => void queued.push(...messages.map((m) => m.body))),
  } as unknown as Queue;
  for (let round = 0; queued.length > 0; round++) {
    expect(round, "the purge must finish").toBeLessThan(200);
    const body = queued.shift();
    // The sweep queues a run in the shard of every library in one (with sharding on, other files' libraries): not
    // followed here. This file's libraries are an ordinary user's, in the catalog; library-move.test.ts purges a shard's.
    if ((body as { library?: string }).library) continue;
    ran.push(body as TaskMessageInput);
    const batch = createMessageBatch("edge-mam-tasks", [{ id: `m${round}`, timestamp: Date.now(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, TASKS }, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual([`m${round}`]);
  }
  return { summaries, ran };
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n;
}

/** Moves a trashed group's deletion (the whole subtree trashed with it) `days` into the past. */
async function backdateGroup(id: string, days: number) {
  const at = (await groupRow(id))!.deleted_at;
  expect(at).toBeGreaterThan(0);
  const past = Date.now() - days * DAY;
  const subtree = "SELECT descendant FROM group_closure WHERE ancestor = ?";
  await env.DB.batch([
    env.DB.prepare(`UPDATE groups SET deleted_at = ? WHERE deleted_at = ? AND id IN (${subtree})`).bind(past, at, id),
    env.DB.prepare(`UPDATE group_members SET trashed_at = ? WHERE trashed_at = ? AND el_type = 'group' AND el_id IN (${subtree})`).bind(
      past,
      at,
      id,
    ),
  ]);
}

/** Trashes an asset through the API and moves the deletion `days` into the past. */
async function trashAssetDaysAgo(bearer: string, id: string, days: number) {
  expect((await call(`/api/asset/${id}`, { method: "DELETE", bearer })).status).toBe(204);
  const at = (await env.DB.prepare("SELECT deleted_at FROM assets WHERE id = ?").bind(id).first<{ deleted_at: number }>())!.deleted_at;
  const past = Date.now() - days * DAY;
  await env.DB.batch([
    env.DB.prepare("UPDATE assets SET deleted_at = ? WHERE id = ?").bind(past, id),
    env.DB.prepare("UPDATE group_members SET trashed_at = ? WHERE el_id = ? AND trashed_at = ?").bind(past, id, at),
  ]);
}

/** Rows that hang off an asset, by table. */
async function assetRows(id: string) {
  const n = (table: string, column: string) => count(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, id);
  return {
    assets: await n("assets", "id"),
    versions: await n("asset_versions", "asset_id"),
    variants: await n("variants", "asset_id"),
    previews: await n("previews", "asset_id"),
    tags: await n("entity_tags", "entity_id"),
    members: await n("group_members", "el_id"),
  };
}
const NO_ROWS = { assets: 0, versions: 0, variants: 0, previews: 0, tags: 0, members: 0 };

async function tagAsset(assetId: string) {
  await env.DB.prepare("INSERT INTO entity_tags (tag_id, entity_id, entity_type) VALUES (?, ?, 'asset')")
    .bind(await insertTag(), assetId)
    .run();
}

describe("purge-trash operation: groups", () => {
  it("purges a subtree trashed 31 days ago with its exclusive assets, and leaves one trashed 29 days ago restorable", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const old = await createGroup(user, "давно удалена", top);
    const child = await createGroup(user, "внутри", old);
    const recent = await createGroup(user, "недавно удалена", top);

    const only = await insertAsset({ ownerId: user.id, groups: [child], withInitial: true, preview: true, putBytes: true });
    await tagAsset(only.id);
    const shared = await insertAsset({ ownerId: user.id, groups: [old, top], putBytes: true });
    const kept = await insertAsset({ ownerId: user.id, groups: [recent], preview: true, putBytes: true });
    await tagAsset(kept.id);

    for (const g of [old, recent]) expect((await send("DELETE", `/api/group/delete/${g}`, user.bearer)).status).toBe(204);
    await backdateGroup(old, EXPIRED);
    await backdateGroup(recent, RESTORABLE);

    const { summaries, ran } = await runQueue({ op: "purge-trash" });
    expect(summaries[0]).toMatch(/^purged the trash: [1-9]\d* groups handed to purge-group/);
    expect(ran).toContainEqual({ op: "purge-group", groupId: old });
    expect(ran.some((m) => m.op === "purge-group" && (m.groupId === child || m.groupId === recent))).toBe(false);

    for (const g of [old, child]) expect(await groupRow(g)).toBeNull();
    expect(await assetRows(only.id)).toEqual(NO_ROWS);
    for (const key of [...only.storageKeys, only.previewKey!]) expect(await env.MEDIA.head(key)).toBeNull();
    // Also listed outside the subtree: it stays, losing only the purged membership.
    expect(await assetRows(shared.id)).toMatchObject({ assets: 1, variants: 1, members: 1 });
    expect(await env.MEDIA.head(shared.storageKeys[0])).not.toBeNull();
    expect(await membersOf(top)).toEqual({ [shared.id]: "asset" });

    // Trashed 29 days ago: untouched, and restorable.
    expect(await assetRows(kept.id)).toEqual({ assets: 1, versions: 1, variants: 1, previews: 1, tags: 1, members: 1 });
    for (const key of [...kept.storageKeys, kept.previewKey!]) expect(await env.MEDIA.head(key)).not.toBeNull();
    expect(await send("POST", `/api/group/restore/${recent}`, user.bearer)).toMatchObject({ status: 200, body: { deleted_at: null } });
    expect(await membersOf(recent)).toEqual({ [kept.id]: "asset" });
    await expectTreeConsistent();
  });

  it("hands over only the top of an expired subtree; a group trashed earlier inside a restorable deletion goes on its own", async () => {
    const user = await ordinaryUser();
    const parent = await createGroup(user, uniqueName());
    const inner = await createGroup(user, "удалена раньше", parent);
    const expiredTop = await createGroup(user, uniqueName());
    const below = await createGroup(user, "ниже", expiredTop);
    const belowEarlier = await createGroup(user, "ещё ниже", below);
    // inner: its own deletion, long ago; parent: trashed recently (restorable).
    await send("DELETE", `/api/group/delete/${inner}`, user.bearer);
    await backdateGroup(inner, EXPIRED + 5);
    await send("DELETE", `/api/group/delete/${parent}`, user.bearer);
    await backdateGroup(parent, 1);
    // belowEarlier: trashed on its own before its ancestor's deletion, both long ago.
    await send("DELETE", `/api/group/delete/${belowEarlier}`, user.bearer);
    await backdateGroup(belowEarlier, EXPIRED + 10);
    await send("DELETE", `/api/group/delete/${expiredTop}`, user.bearer);
    await backdateGroup(expiredTop, EXPIRED);

    const { ran } = await runQueue({ op: "purge-trash" });
    const handed = ran.filter((m) => m.op === "purge-group").map((m) => (m as { groupId: string }).groupId);
    expect(handed).toContain(inner);
    expect(handed).toContain(expiredTop);
    expect(handed).not.toContain(belowEarlier);
    expect(handed).not.toContain(below);
    for (const g of [inner, expiredTop, below, belowEarlier]) expect(await groupRow(g)).toBeNull();
    expect((await groupRow(parent))?.deleted_at).toBeGreaterThan(0);
    expect((await send("POST", `/api/group/restore/${parent}`, user.bearer)).status).toBe(200);
    await expectTreeConsistent();
  });
});

describe("purge-trash operation: assets", () => {
  it("purges assets trashed over 30 days ago with previews, tags and bytes (R2 and S3), keeping objects a copy still uses", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const elsewhere = await createGroup(user, uniqueName());
    const original = await insertAsset({ ownerId: user.id, groups: [g], preview: true, putBytes: true });
    await tagAsset(original.id);
    const copied = await send<{ asset_id: string }>("POST", `/api/asset/copy/${original.id}/${elsewhere}`, user.bearer);
    expect(copied.status).toBe(200);
    const copy = copied.body.asset_id;
    const lone = await insertAsset({ ownerId: user.id, groups: [g], withInitial: true, putBytes: true });
    const recent = await insertAsset({ ownerId: user.id, groups: [g], putBytes: true });
    const s3 = await externalStorage();
    const onS3 = await insertAsset({ ownerId: user.id, groups: [g], storageKey: `s3/${uniqueName()}` });
    await env.DB.prepare("UPDATE variants SET storage_id = ? WHERE asset_id = ?").bind(s3.id, onS3.id).run();
    s3.fake.objects.set(onS3.storageKeys[0], { body: new TextEncoder().encode("far away"), contentType: "video/mp4", etag: '"x"' });

    for (const a of [original, lone, onS3]) await trashAssetDaysAgo(user.bearer, a.id, EXPIRED);
    await trashAssetDaysAgo(user.bearer, recent.id, RESTORABLE);

    const { summaries } = await runQueue({ op: "purge-trash" });
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatch(/^purged the trash: 0 groups handed to purge-group, \d+ assets and \d+ objects purged$/);

    for (const a of [original, lone, onS3]) expect(await assetRows(a.id)).toEqual(NO_ROWS);
    for (const key of [original.previewKey!, ...lone.storageKeys]) expect(await env.MEDIA.head(key)).toBeNull();
    expect(s3.fake.objects.has(onS3.storageKeys[0])).toBe(false);
    // The copy shares the original's object (copy-on-write): it stays, and the copy still downloads.
    expect(await env.MEDIA.head(original.storageKeys[0])).not.toBeNull();
    const download = await call(`/api/asset/content/download/${copy}/1/master`, { bearer: user.bearer });
    expect(download.status).toBe(200);
    expect(new TextDecoder().decode(await download.arrayBuffer())).toBe("bytes");
    expect(await assetRows(copy)).toMatchObject({ assets: 1, variants: 1, tags: 1, members: 1 });

    // Trashed 29 days ago: still there and restorable.
    expect(await env.MEDIA.head(recent.storageKeys[0])).not.toBeNull();
    expect((await call(`/api/asset/restore/${recent.id}`, { method: "POST", bearer: user.bearer })).status).toBe(200);
  });

  it("leaves an asset whose bytes cannot be deleted in the trash, logged, without holding back the others", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const broken = await insertAsset({ ownerId: user.id, groups: [g], storageKey: `nowhere/${uniqueName()}` });
    // A storage whose credentials do not open: its backend refuses every call.
    await env.DB.prepare("UPDATE variants SET storage_id = ? WHERE asset_id = ?")
      .bind(await insertStorage(), broken.id)
      .run();
    const fine = await insertAsset({ ownerId: user.id, groups: [g], putBytes: true });
    await trashAssetDaysAgo(user.bearer, broken.id, EXPIRED);
    await trashAssetDaysAgo(user.bearer, fine.id, EXPIRED);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const { summaries } = await runQueue({ op: "purge-trash" });
      expect(summaries[0]).toMatch(/, 1 assets left for the next run$/);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(JSON.parse(String(warn.mock.calls[0][0]))).toMatchObject({ message: "asset purge failed", asset: broken.id });
      expect(await assetRows(fine.id)).toEqual(NO_ROWS);
      expect(await env.MEDIA.head(fine.storageKeys[0])).toBeNull();
      expect(await assetRows(broken.id)).toMatchObject({ assets: 1, versions: 1, variants: 1, members: 1 });
    } finally {
      // Out of the trash, so later purges in this file do not meet it again.
      await env.DB.prepare("UPDATE assets SET deleted_at = NULL WHERE id = ?").bind(broken.id).run();
    }
  });

  it("never purges what is still restorable, whatever cutoff a message names", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const a = await insertAsset({ ownerId: user.id, groups: [g], putBytes: true });
    await trashAssetDaysAgo(user.bearer, a.id, 1);
    const trashedGroup = await createGroup(user, uniqueName());
    await send("DELETE", `/api/group/delete/${trashedGroup}`, user.bearer);
    await runQueue({ op: "purge-trash", before: Date.now(), phase: "groups" });
    expect(await assetRows(a.id)).toMatchObject({ assets: 1, variants: 1 });
    expect((await groupRow(trashedGroup))?.deleted_at).toBeGreaterThan(0);
  });
});

describe("purge-trash chunks", () => {
  it("re-queues itself when a chunk limit is hit, with the same cutoff, resuming where it stopped", async () => {
    const user = await ordinaryUser();
    const groups: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await createGroup(user, uniqueName());
      await insertAsset({ ownerId: user.id, groups: [g], putBytes: true });
      await send("DELETE", `/api/group/delete/${g}`, user.bearer);
      await backdateGroup(g, EXPIRED + i);
      groups.push(g);
    }
    const holder = await createGroup(user, uniqueName());
    const assets = [];
    for (let i = 0; i < 3; i++) {
      const a = await insertAsset({ ownerId: user.id, groups: [holder], putBytes: true });
      await trashAssetDaysAgo(user.bearer, a.id, EXPIRED + i);
      assets.push(a);
    }

    const { summaries, ran } = await runQueue({ op: "purge-trash", chunkSize: 1, budget: 1 });
    const trashRuns = ran.filter((m) => m.op === "purge-trash") as Extract<TaskMessageInput, { op: "purge-trash" }>[];
    // One group or asset per message, plus the runs that find a phase empty.
    expect(trashRuns.length).toBeGreaterThanOrEqual(7);
    const continuations = trashRuns.slice(1);
    expect(new Set(continuations.map((m) => m.before)).size).toBe(1);
    expect(continuations[0].before).toBeLessThanOrEqual(Date.now() - TRASH_RETENTION_DAYS * DAY);
    expect(continuations.every((m) => m.chunkSize === 1 && m.budget === 1)).toBe(true);
    expect(continuations.some((m) => m.phase === "assets" && m.after)).toBe(true);
    const trashSummaries = summaries.filter((s) => /the trash/.test(s));
    expect(trashSummaries.slice(0, -1).every((s) => /continued in a new message$/.test(s))).toBe(true);
    expect(trashSummaries.at(-1)).toMatch(/^purged the trash/);

    expect(ran.filter((m) => m.op === "purge-group").map((m) => (m as { groupId: string }).groupId)).toEqual(
      expect.arrayContaining(groups),
    );
    for (const g of groups) expect(await groupRow(g)).toBeNull();
    for (const a of assets) {
      expect(await assetRows(a.id)).toEqual(NO_ROWS);
      expect(await env.MEDIA.head(a.storageKeys[0])).toBeNull();
    }
    expect(await count("SELECT count(*) AS n FROM assets WHERE owner_id = ?", user.id)).toBe(0);
    await expectTreeConsistent();
  });
});

describe("cron trigger", () => {
  it("queues purge-trash, which then purges the expired trash", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    const a = await insertAsset({ ownerId: user.id, groups: [g], putBytes: true });
    await trashAssetDaysAgo(user.bearer, a.id, EXPIRED);

    const sendBatch = vi.fn<Queue["sendBatch"]>().mockResolvedValue({} as QueueSendBatchResponse);
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "17 * * * *" }),
      { ...env, TASKS: { send: vi.fn(), sendBatch } as unknown as Queue },
      ctx,
    );
    const bodies = sendBatch.mock.calls.flatMap(([messages]) => [...messages].map((m) => m.body as TaskMessageInput));
    const purge = bodies.find((b) => b.op === "purge-trash");
    expect(purge).toEqual({ op: "purge-trash" });

    await runQueue(purge!);
    expect(await assetRows(a.id)).toEqual(NO_ROWS);
    expect(await env.MEDIA.head(a.storageKeys[0])).toBeNull();
  });
});
