import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import { worker } from "./worker-handlers";
import type { TaskMessageInput } from "../../workers/queue/messages";
import { call, expectError } from "./factories";
import {
  createGroup,
  expectTreeConsistent,
  externalStorage,
  getJson,
  groupRow,
  insertAsset,
  insertTag,
  librarySnapshot,
  membersOf,
  ordinaryUser,
  ROOT_GROUP_ID,
  send,
  uniqueName,
} from "./library-factories";

// Trash (delete, delete-list, restore, trash list) and the permanent purge with its background operation.

const DAY = 86_400_000;

/** Captures what the API sends to the TASKS queue instead of letting the local queue deliver it. */
function captureTasks() {
  return vi.spyOn(env.TASKS, "send").mockResolvedValue({} as QueueSendResponse);
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** Runs queue messages through the Worker's queue handler until no continuation is queued; answers the log summaries. */
async function runQueue(first: TaskMessageInput): Promise<string[]> {
  const summaries: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => void summaries.push(JSON.parse(line).summary));
  const queued: unknown[] = [first];
  const send = vi.fn(async (body: unknown) => void queued.push(body));
  for (let round = 0; queued.length > 0; round++) {
    expect(round, "the purge must finish").toBeLessThan(200);
    const body = queued.shift();
    const batch = createMessageBatch("edge-mam-tasks", [{ id: `m${round}`, timestamp: Date.now(), attempts: 1, body }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, TASKS: { ...env.TASKS, send } as unknown as Queue }, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual([`m${round}`]);
  }
  return summaries;
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  return ((
    await env.DB.prepare(sql)
      .bind(...binds)
      .first<{ n: number }>()
  )?.n ?? 0) as number;
}

describe("DELETE /api/group/delete/{id}", () => {
  it("trashes the group and every descendant, hides them, and leaves the assets as they are", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const g = await createGroup(user, "в корзину", top);
    const child = await createGroup(user, "ребёнок", g);
    const asset = await insertAsset({ ownerId: user.id, groups: [child] });
    expect((await send("DELETE", `/api/group/delete/${g}`, user.bearer)).status).toBe(204);
    const [gRow, childRow] = [await groupRow(g), await groupRow(child)];
    expect(gRow?.deleted_at).toBeGreaterThan(0);
    expect(childRow?.deleted_at).toBe(gRow?.deleted_at);
    expect(
      await count("SELECT count(*) AS n FROM group_members WHERE el_id IN (?, ?) AND trashed_at = ?", g, child, gRow!.deleted_at),
    ).toBe(2);
    expect(await membersOf(top)).toEqual({});
    expect(await membersOf(child)).toEqual({ [asset.id]: "asset" });
    expect(await count("SELECT count(*) AS n FROM assets WHERE id = ? AND deleted_at IS NULL", asset.id)).toBe(1);
    await expectError(await call(`/api/group/members/${child}`, { bearer: user.bearer }), 404);
    await expectError(await call(`/api/group/delete/${g}`, { method: "DELETE", bearer: user.bearer }), 404);
    await expectTreeConsistent();
  });

  it("never deletes the virtual root (400)", async () => {
    const user = await ordinaryUser();
    const res = await call(`/api/group/delete/${ROOT_GROUP_ID}`, { method: "DELETE", bearer: user.bearer });
    expect((await expectError(res, 400)).message).toBe(ru.groups.rootImmutable);
  });

  it("security: another user gets 404 and nothing changes", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    const before = await librarySnapshot();
    await expectError(await call(`/api/group/delete/${g}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    await expectError(await call(`/api/group/delete/${"8".repeat(32)}`, { method: "DELETE", bearer: owner.bearer }), 404);
    await expectError(await call(`/api/group/delete/zzz`, { method: "DELETE", bearer: owner.bearer }), 400);
    expect(await librarySnapshot()).toEqual(before);
  });
});

describe("POST /api/group/delete-list", () => {
  it("trashes several groups (nested ones included)", async () => {
    const user = await ordinaryUser();
    const a = await createGroup(user, uniqueName());
    const b = await createGroup(user, uniqueName());
    const inner = await createGroup(user, "inner", a);
    expect((await send("POST", "/api/group/delete-list", user.bearer, { ids: [a, b, inner] })).status).toBe(204);
    for (const id of [a, b, inner]) expect((await groupRow(id))?.deleted_at).toBeGreaterThan(0);
  });

  it("is all or nothing: one group the caller may not delete, or the root, changes nothing", async () => {
    const user = await ordinaryUser();
    const stranger = await ordinaryUser();
    const mine = await createGroup(user, uniqueName());
    const theirs = await createGroup(stranger, uniqueName());
    const before = await librarySnapshot();
    expect((await send("POST", "/api/group/delete-list", user.bearer, { ids: [mine, theirs] })).status).toBe(404);
    expect((await send("POST", "/api/group/delete-list", user.bearer, { ids: [mine, ROOT_GROUP_ID] })).status).toBe(400);
    expect((await send("POST", "/api/group/delete-list", user.bearer, { ids: [] })).status).toBe(400);
    expect((await send("POST", "/api/group/delete-list", user.bearer, { ids: "x" })).status).toBe(400);
    expect(await librarySnapshot()).toEqual(before);
  });
});

describe("POST /api/group/restore/{id} and GET /api/group/trash", () => {
  it("lists the top of each deletion and restores exactly what that deletion trashed", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const g = await createGroup(user, "g", top);
    const earlier = await createGroup(user, "удалена раньше", g);
    const child = await createGroup(user, "child", g);
    await send("DELETE", `/api/group/delete/${earlier}`, user.bearer);
    await new Promise((r) => setTimeout(r, 5));
    await send("DELETE", `/api/group/delete/${g}`, user.bearer);

    const trash = await getJson<{ group_id: string; deleted_at: string; parent: string }[]>("/api/group/trash", user.bearer);
    expect(trash.map((t) => t.group_id)).toEqual([g, earlier]);
    expect(trash[0]).toMatchObject({ parent: top, group_name: "g", deleted_at: expect.stringMatching(/Z$/) });

    // The earlier deletion's parent is itself trashed.
    expect(await send("POST", `/api/group/restore/${earlier}`, user.bearer)).toMatchObject({
      status: 409,
      body: { message: ru.groups.parentGone },
    });
    const restored = await send<{ group_id: string; deleted_at: string | null }>("POST", `/api/group/restore/${g}`, user.bearer);
    expect(restored).toMatchObject({ status: 200, body: { group_id: g, deleted_at: null } });
    expect((await groupRow(child))?.deleted_at).toBeNull();
    expect((await groupRow(earlier))?.deleted_at).toBeGreaterThan(0);
    expect(Object.keys(await membersOf(g))).toEqual([child]);
    expect((await getJson<{ group_id: string }[]>("/api/group/trash", user.bearer)).map((t) => t.group_id)).toEqual([earlier]);
    expect((await send("POST", `/api/group/restore/${earlier}`, user.bearer)).status).toBe(200);
    await expectTreeConsistent();
  });

  it("answers 409 when not in the trash, after 30 days, or when the name is taken again", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const live = await createGroup(user, "живая", top);
    expect(await send("POST", `/api/group/restore/${live}`, user.bearer)).toMatchObject({
      status: 409,
      body: { message: ru.groups.notInTrash },
    });
    const old = await createGroup(user, "старая", top);
    await send("DELETE", `/api/group/delete/${old}`, user.bearer);
    await env.DB.prepare("UPDATE groups SET deleted_at = ? WHERE id = ?")
      .bind(Date.now() - 31 * DAY, old)
      .run();
    expect(await send("POST", `/api/group/restore/${old}`, user.bearer)).toMatchObject({
      status: 409,
      body: { message: ru.groups.restoreExpired },
    });
    const named = await createGroup(user, "Имя", top);
    await send("DELETE", `/api/group/delete/${named}`, user.bearer);
    await createGroup(user, "имя", top);
    const before = await librarySnapshot();
    expect(await send("POST", `/api/group/restore/${named}`, user.bearer)).toMatchObject({
      status: 409,
      body: { message: ru.groups.nameTaken("Имя") },
    });
    expect(await librarySnapshot()).toEqual(before);
  });

  it("security: another user can neither see nor restore my trash", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    await send("DELETE", `/api/group/delete/${g}`, owner.bearer);
    expect(await getJson<unknown[]>("/api/group/trash", stranger.bearer)).toEqual([]);
    const before = await librarySnapshot();
    await expectError(await call(`/api/group/restore/${g}`, { method: "POST", bearer: stranger.bearer }), 404);
    expect(await librarySnapshot()).toEqual(before);
    await expectError(await call("/api/group/trash?take=1000", { bearer: owner.bearer }), 400);
    await expectError(await call(`/api/group/restore/${ROOT_GROUP_ID}`, { method: "POST", bearer: owner.bearer }), 400);
  });
});

describe("DELETE /api/group/purge/{id}", () => {
  it("answers 202, hides the group from trash and restore at once, and queues purge-group", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const g = await createGroup(user, "навсегда", top);
    const send$ = captureTasks();
    const res = await send("DELETE", `/api/group/purge/${g}`, user.bearer);
    expect(res).toMatchObject({ status: 202, body: { group_id: g, queued: true } });
    expect(send$).toHaveBeenCalledWith({ op: "purge-group", groupId: g, actorId: user.id });
    expect((await groupRow(g))?.deleted_at).toBeGreaterThan(0);
    expect(await membersOf(top)).toEqual({});
    expect(await getJson<unknown[]>("/api/group/trash", user.bearer)).toEqual([]);
    expect(await send("POST", `/api/group/restore/${g}`, user.bearer)).toMatchObject({ status: 409, body: { message: ru.groups.purging } });
    // Asking again is harmless: the message is queued again.
    expect((await send("DELETE", `/api/group/purge/${g}`, user.bearer)).status).toBe(202);
  });

  it("refuses the virtual root (400); another user gets 404 and nothing is queued or changed", async () => {
    const owner = await ordinaryUser();
    const stranger = await ordinaryUser();
    const g = await createGroup(owner, uniqueName());
    const send$ = captureTasks();
    expect((await send("DELETE", `/api/group/purge/${ROOT_GROUP_ID}`, owner.bearer)).status).toBe(400);
    const before = await librarySnapshot();
    await expectError(await call(`/api/group/purge/${g}`, { method: "DELETE", bearer: stranger.bearer }), 404);
    expect(await librarySnapshot()).toEqual(before);
    expect(send$).not.toHaveBeenCalled();
  });
});

describe("purge-group operation (TASKS consumer)", () => {
  it("deletes the subtree, the assets only it lists with their rows and objects (R2 and S3); keeps shared assets and shared keys", async () => {
    const user = await ordinaryUser();
    const top = await createGroup(user, uniqueName());
    const outside = await createGroup(user, uniqueName());
    const g = await createGroup(user, "purge me", top);
    const child = await createGroup(user, "child", g);
    const grandchild = await createGroup(user, "grandchild", child);
    const tag = await insertTag();
    await send("PATCH", `/api/group/update/${child}`, user.bearer, { tags: [tag] });

    const only = await insertAsset({ ownerId: user.id, groups: [child], withInitial: true, preview: true, putBytes: true });
    const twice = await insertAsset({ ownerId: user.id, groups: [g, grandchild], putBytes: true });
    const shared = await insertAsset({ ownerId: user.id, groups: [grandchild, outside], putBytes: true });
    const sameKey = await insertAsset({ ownerId: user.id, groups: [grandchild], storageKey: `shared/${uniqueName()}`, putBytes: true });
    const keeper = await insertAsset({ ownerId: user.id, groups: [outside], storageKey: sameKey.storageKeys[0] });
    await env.DB.prepare("INSERT INTO entity_tags (tag_id, entity_id, entity_type) VALUES (?, ?, 'asset')").bind(tag, only.id).run();
    const s3 = await externalStorage();
    const external = await insertAsset({ ownerId: user.id, groups: [g], storageKey: `external/${uniqueName()}` });
    await env.DB.prepare("UPDATE variants SET storage_id = ? WHERE asset_id = ?").bind(s3.id, external.id).run();
    await env.MEDIA.put(external.storageKeys[0], "not ours to delete");
    const s3Bytes = new TextEncoder().encode("on the external bucket");
    s3.fake.objects.set(external.storageKeys[0], { body: s3Bytes, contentType: "video/mp4", etag: '"e"' });

    captureTasks();
    expect((await send("DELETE", `/api/group/purge/${g}`, user.bearer)).status).toBe(202);
    const summaries = await runQueue({ op: "purge-group", groupId: g, actorId: user.id });
    expect(summaries.at(-1)).toMatch(/^purged group/);

    for (const id of [g, child, grandchild]) expect(await groupRow(id)).toBeNull();
    expect(
      await count(
        "SELECT count(*) AS n FROM group_closure WHERE ancestor IN (?, ?, ?) OR descendant IN (?, ?, ?)",
        g,
        child,
        grandchild,
        g,
        child,
        grandchild,
      ),
    ).toBe(0);
    expect(
      await count(
        "SELECT count(*) AS n FROM group_members WHERE group_id IN (?, ?, ?) OR el_id IN (?, ?, ?)",
        g,
        child,
        grandchild,
        g,
        child,
        grandchild,
      ),
    ).toBe(0);
    expect(await count("SELECT count(*) AS n FROM entity_tags WHERE entity_id IN (?, ?)", child, only.id)).toBe(0);
    for (const gone of [only, twice, sameKey, external]) {
      expect(await count("SELECT count(*) AS n FROM assets WHERE id = ?", gone.id)).toBe(0);
      expect(await count("SELECT count(*) AS n FROM variants WHERE asset_id = ?", gone.id)).toBe(0);
      expect(await count("SELECT count(*) AS n FROM asset_versions WHERE asset_id = ?", gone.id)).toBe(0);
      expect(await count("SELECT count(*) AS n FROM previews WHERE asset_id = ?", gone.id)).toBe(0);
    }
    for (const key of [...only.storageKeys, only.previewKey!, ...twice.storageKeys]) expect(await env.MEDIA.head(key)).toBeNull();
    // Still referenced by `keeper`: the bytes stay.
    expect(await env.MEDIA.head(sameKey.storageKeys[0])).not.toBeNull();
    // On an external storage: deleted there (signed like any request), while R2's object of the same key is not ours.
    expect(s3.fake.objects.has(external.storageKeys[0])).toBe(false);
    expect(s3.fake.requests.filter((r) => r.method === "DELETE").map((r) => r.authError)).toEqual([null]);
    expect(await env.MEDIA.head(external.storageKeys[0])).not.toBeNull();
    // Listed outside the subtree: the asset and its bytes stay, only the subtree's membership goes.
    expect(await count("SELECT count(*) AS n FROM assets WHERE id IN (?, ?)", shared.id, keeper.id)).toBe(2);
    expect(await env.MEDIA.head(shared.storageKeys[0])).not.toBeNull();
    expect(await membersOf(outside)).toEqual({ [shared.id]: "asset", [keeper.id]: "asset" });
    expect(await count("SELECT count(*) AS n FROM groups WHERE id = ?", top)).toBe(1);
    await expectTreeConsistent();
  });

  it("works in chunks and re-queues itself until a large subtree is gone", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    let parent = g;
    for (let i = 0; i < 6; i++) {
      parent = await createGroup(user, `level ${i}`, parent);
      await insertAsset({ ownerId: user.id, groups: [parent] });
      await insertAsset({ ownerId: user.id, groups: [parent] });
    }
    captureTasks();
    await send("DELETE", `/api/group/purge/${g}`, user.bearer);
    const summaries = await runQueue({ op: "purge-group", groupId: g, actorId: user.id, chunkSize: 2, budget: 1 });
    expect(summaries.length).toBeGreaterThan(5);
    expect(summaries.slice(0, -1).every((s) => /continued in a new message/.test(s))).toBe(true);
    expect(summaries.at(-1)).toMatch(/^purged group/);
    expect(await groupRow(g)).toBeNull();
    expect(await count("SELECT count(*) AS n FROM assets WHERE owner_id = ?", user.id)).toBe(0);
    await expectTreeConsistent();
  });

  it("skips a group that is not in the trash and one that is already gone", async () => {
    const user = await ordinaryUser();
    const g = await createGroup(user, uniqueName());
    expect(await runQueue({ op: "purge-group", groupId: g, actorId: user.id })).toEqual([expect.stringMatching(/not in the trash/)]);
    expect(await groupRow(g)).not.toBeNull();
    expect(await runQueue({ op: "purge-group", groupId: "9".repeat(32), actorId: user.id })).toEqual([
      expect.stringMatching(/already purged/),
    ]);
  });
});
