import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { worker } from "./worker-handlers";
import { newId } from "../../workers/lib/ids";
import { createUser } from "./factories";

const DAY = 86_400_000;
const QUEUE = "edge-mam-tasks";

/** Inserts refresh-token rows for a fresh user in the given states; returns their ids by label. */
async function seedSessions() {
  const user = await createUser();
  const now = Date.now();
  const rows = {
    live: { expiresAt: now + 30 * DAY, revokedAt: null },
    expiredLongAgo: { expiresAt: now - 8 * DAY, revokedAt: null },
    revokedLongAgo: { expiresAt: now + 30 * DAY, revokedAt: now - 8 * DAY },
    revokedRecently: { expiresAt: now + 30 * DAY, revokedAt: now - DAY },
  };
  const ids: Record<keyof typeof rows, string> = {} as never;
  for (const [label, row] of Object.entries(rows) as [keyof typeof rows, (typeof rows)[keyof typeof rows]][]) {
    ids[label] = newId();
    await env.DB.prepare(
      "INSERT INTO sessions (id, family_id, user_id, token_hash, ctime, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
      .bind(ids[label], newId(), user.id, crypto.randomUUID(), now - 40 * DAY, row.expiresAt, row.revokedAt)
      .run();
  }
  const tokens = { usedLongAgo: newId(), fresh: newId() };
  await env.DB.batch([
    env.DB.prepare("INSERT INTO one_time_tokens (id, token_hash, user_id, ctime, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)").bind(
      tokens.usedLongAgo,
      crypto.randomUUID(),
      user.id,
      now - 9 * DAY,
      now - 9 * DAY + 300_000,
      now - 9 * DAY,
    ),
    env.DB.prepare("INSERT INTO one_time_tokens (id, token_hash, user_id, ctime, expires_at) VALUES (?, ?, ?, ?, ?)").bind(
      tokens.fresh,
      crypto.randomUUID(),
      user.id,
      now,
      now + 300_000,
    ),
  ]);
  await env.DB.batch(
    [
      ["traded-expired", now - 8 * DAY],
      ["traded-fresh", now + 900_000],
      ["traded-robot", null],
    ].map(([hash, expiresAt]) =>
      env.DB.prepare("INSERT INTO traded_tokens (token_hash, user_id, traded_at, expires_at) VALUES (?, ?, ?, ?)").bind(`${hash}-${user.id}`, user.id, now - 9 * DAY, expiresAt),
    ),
  );
  return { user, ids, tokens };
}

async function remaining(table: "sessions" | "one_time_tokens", userId: string) {
  const { results } = await env.DB.prepare(`SELECT id FROM ${table} WHERE user_id = ?`).bind(userId).all<{ id: string }>();
  return results.map((r) => r.id).sort();
}

function batchOf(...bodies: unknown[]) {
  return createMessageBatch(
    QUEUE,
    bodies.map((body, i) => ({ id: `msg-${i}`, timestamp: Date.now(), attempts: 1, body })),
  );
}

describe("TASKS queue consumer", () => {
  it("runs cleanup-sessions: deletes long-dead sessions and one-time tokens, keeps the rest, acks", async () => {
    const { user, ids, tokens } = await seedSessions();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const batch = batchOf({ op: "cleanup-sessions", olderThanDays: 7 });
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);

    expect(result.explicitAcks).toEqual(["msg-0"]);
    expect(result.retryMessages).toEqual([]);
    expect(await remaining("sessions", user.id)).toEqual([ids.live, ids.revokedRecently].sort());
    expect(await remaining("one_time_tokens", user.id)).toEqual([tokens.fresh]);
    // records of traded access tokens go once the token has long expired; a robot token's (no expiry) stays
    const traded = await env.DB.prepare("SELECT token_hash FROM traded_tokens WHERE user_id = ? ORDER BY token_hash").bind(user.id).all<{ token_hash: string }>();
    expect(traded.results.map((r) => r.token_hash)).toEqual([`traded-fresh-${user.id}`, `traded-robot-${user.id}`]);
  });

  it("uses the default age of seven days", async () => {
    const { user, ids } = await seedSessions();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const batch = batchOf({ op: "cleanup-sessions" });
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["msg-0"]);
    expect(await remaining("sessions", user.id)).toEqual([ids.live, ids.revokedRecently].sort());
  });

  it("acks a malformed message without retrying it, and still handles the rest of the batch", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "log").mockImplementation(() => {});
    const batch = batchOf(
      { op: "format-disk" },
      "not even an object",
      { op: "cleanup-sessions", olderThanDays: 0 },
      { op: "cleanup-sessions" },
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-2", "msg-3"]);
    expect(result.retryMessages).toEqual([]);
    expect(result.retryBatch.retry).toBe(false);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(String(warn.mock.calls[0][0])).toContain("malformed task message dropped");
  });

  it("retries a failing operation with backoff instead of acking it", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const brokenDb = {
      // a session of a broken database is as broken
      withSession() {
        return this;
      },
      prepare() {
        throw new Error("D1 is down");
      },
      batch() {
        throw new Error("D1 is down");
      },
    } as unknown as D1Database;
    const batch = createMessageBatch(QUEUE, [
      { id: "first", timestamp: Date.now(), attempts: 1, body: { op: "cleanup-sessions" } },
      { id: "third", timestamp: Date.now(), attempts: 3, body: { op: "cleanup-sessions" } },
    ]);
    // The pool's QueueResult does not record delays, so watch the retry calls themselves.
    const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, DB: brokenDb }, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: "first" }, { msgId: "third" }]);
    expect(retries[0]).toHaveBeenCalledWith({ delaySeconds: 10 });
    expect(retries[1]).toHaveBeenCalledWith({ delaySeconds: 40 });
    expect(String(warn.mock.calls[0][0])).toContain("D1 is down");
  });
});

describe("scheduled handler", () => {
  it("sends cleanup-sessions and purge-trash to the TASKS queue in one batch", async () => {
    const sendBatch = vi.fn<Queue["sendBatch"]>().mockResolvedValue({} as QueueSendBatchResponse);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 * * * *" }), { ...env, TASKS: { ...env.TASKS, sendBatch } as Queue }, ctx);
    expect(sendBatch).toHaveBeenCalledTimes(1);
    expect(sendBatch.mock.calls[0][0]).toEqual(
      expect.arrayContaining([{ body: { op: "cleanup-sessions", olderThanDays: 7 } }, { body: { op: "purge-trash" } }]),
    );
  });
});
