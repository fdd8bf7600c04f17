import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LoginThrottleDO, THROTTLE_POLICY } from "../../durable-objects/login-throttle.do";
import type { TaskStateDO } from "../../durable-objects/task-state.do";
import type { UploadQueueDO } from "../../durable-objects/upload-queue.do";

// Input validation is asserted inside the object with runInDurableObject: a rejecting RPC call through a stub
// leaks an extra unhandled rejection in the test pool (cloudflare/workers-sdk#14736) even when the test handles it.

/** A fresh object per test: each name is unique. */
const unique = (prefix: string) => `${prefix}:${crypto.randomUUID()}`;
const throttle = () => env.LOGIN_THROTTLE.get(env.LOGIN_THROTTLE.idFromName(unique("account")));
const uploads = () => env.UPLOADS.get(env.UPLOADS.idFromName(unique("user")));
const task = () => env.TASKS_DO.get(env.TASKS_DO.idFromName(unique("task")));

describe("LoginThrottleDO", () => {
  const T0 = 1_800_000_000_000;
  const { baseLockMs, maxLockMs, forgetAfterMs } = THROTTLE_POLICY;

  it("lets the free failures through, then locks for a growing, capped time", async () => {
    const stub = throttle();
    const locks: number[] = [];
    for (let i = 1; i <= 12; i++) locks.push(await stub.recordFailure("account", T0 + i));
    expect(locks.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(locks.slice(4, 8)).toEqual([baseLockMs, baseLockMs * 2, baseLockMs * 4, baseLockMs * 8]);
    expect(locks.at(-1)).toBe(maxLockMs);
    expect(await stub.retryAfterMs(T0 + 12)).toBe(maxLockMs);
  });

  it("counts down and ends the lock: nobody is locked out forever", async () => {
    const stub = throttle();
    for (let i = 0; i < THROTTLE_POLICY.account.freeFailures; i++) await stub.recordFailure("account", T0);
    expect(await stub.retryAfterMs(T0)).toBe(baseLockMs);
    expect(await stub.retryAfterMs(T0 + 10_000)).toBe(baseLockMs - 10_000);
    expect(await stub.retryAfterMs(T0 + baseLockMs)).toBe(0);
    expect(await stub.retryAfterMs(T0 + baseLockMs + 1)).toBe(0);
  });

  it("uses the larger allowance for IP keys", async () => {
    const stub = throttle();
    for (let i = 1; i < THROTTLE_POLICY.ip.freeFailures; i++) expect(await stub.recordFailure("ip", T0)).toBe(0);
    expect(await stub.recordFailure("ip", T0)).toBe(baseLockMs);
  });

  it("resets after a success", async () => {
    const stub = throttle();
    for (let i = 0; i < 6; i++) await stub.recordFailure("account", T0);
    expect(await stub.retryAfterMs(T0)).toBeGreaterThan(0);
    await stub.reset();
    expect(await stub.retryAfterMs(T0)).toBe(0);
    expect(await stub.recordFailure("account", T0)).toBe(0); // counting starts over
    await runInDurableObject(stub, async (instance: LoginThrottleDO, state) => {
      expect(instance).toBeInstanceOf(LoginThrottleDO);
      expect(await state.storage.get("state")).toEqual({ failures: 1, lastFailureAt: T0, lockedUntil: 0 });
    });
  });

  it("begin counts an attempt up front and refuses nothing until the allowance is spent", async () => {
    const stub = throttle();
    const free = THROTTLE_POLICY.account.freeFailures;
    for (let i = 0; i < free; i++) expect(await stub.begin("account", T0)).toBe(0);
    expect(await stub.begin("account", T0)).toBe(baseLockMs);
    // A locked key is refused without counting more.
    expect(await stub.begin("account", T0 + 1000)).toBe(baseLockMs - 1000);
    await runInDurableObject(stub, async (_i, state) => {
      expect(await state.storage.get("state")).toMatchObject({ failures: free });
    });
  });

  it("succeeded resets an account and gives an IP its attempt back", async () => {
    const account = throttle();
    await account.begin("account", T0);
    await account.succeeded("account", T0);
    expect(await account.retryAfterMs(T0)).toBe(0);
    await runInDurableObject(account, async (_i, state) => expect(await state.storage.get("state")).toBeUndefined());

    const ip = throttle();
    for (let i = 0; i < THROTTLE_POLICY.ip.freeFailures; i++) await ip.begin("ip", T0);
    expect(await ip.retryAfterMs(T0)).toBe(baseLockMs);
    await ip.succeeded("ip", T0);
    expect(await ip.retryAfterMs(T0)).toBe(0);
    await runInDurableObject(ip, async (_i, state) => {
      expect(await state.storage.get("state")).toMatchObject({ failures: THROTTLE_POLICY.ip.freeFailures - 1 });
    });
  });

  it("forgets failures after a quiet hour", async () => {
    const stub = throttle();
    for (let i = 0; i < 7; i++) await stub.recordFailure("account", T0);
    const later = T0 + forgetAfterMs + 1;
    expect(await stub.retryAfterMs(later)).toBe(0);
    expect(await stub.recordFailure("account", later)).toBe(0);
    await runInDurableObject(stub, async (_instance, state) => {
      expect(await state.storage.get("state")).toMatchObject({ failures: 1, lastFailureAt: later });
    });
  });
});

describe("UploadQueueDO", () => {
  // The rules themselves are covered by tests/unit/upload-queue-rules.test.ts and tests/integration/upload-queue-*.
  const file = (id: string, extra: Record<string, unknown> = {}) => ({ id, fileName: `${id}.mov`, size: 1024, ...extra });
  const value = <T>(outcome: { ok: true; value: T } | { ok: false; message: string }): T => {
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome.value;
  };

  it("adds items waiting, with defaults, and keeps arrival order", async () => {
    const stub = uploads();
    const [a] = value(await stub.add([file("a")]));
    expect(a).toMatchObject({
      id: "a",
      fileName: "a.mov",
      size: 1024,
      status: "waiting",
      progress: 0,
      speed: null,
      assetId: null,
      variantId: null,
      uploadId: null,
      groupId: null,
      error: null,
      cancelled: false,
    });
    expect(a.ctime).toBeTypeOf("number");
    await stub.add([file("b", { groupId: "f".repeat(32) }), file("c")]);
    expect((await stub.list()).map((i) => i.id)).toEqual(["a", "b", "c"]);
    expect(await stub.get("b")).toMatchObject({ groupId: "f".repeat(32) });
    expect(await stub.get("zzz")).toBeNull();
  });

  it("re-adding an id is idempotent: the item keeps its state and its place", async () => {
    const stub = uploads();
    const [first] = value(await stub.add([file("a")]));
    await stub.add([file("b")]);
    value(await stub.update("a", { status: "uploading", progress: 10 }));
    const [again] = value(await stub.add([file("a", { size: 2048 })]));
    expect(again).toMatchObject({ ctime: first.ctime, size: 1024, status: "uploading", progress: 10 });
    expect((await stub.list()).map((i) => i.id)).toEqual(["a", "b"]);
  });

  it("applies reports along the allowed transitions; unknown ids and illegal changes are refused", async () => {
    const stub = uploads();
    await stub.add([file("a")]);
    expect(value(await stub.update("a", { status: "uploading", progress: 42.5 }))).toMatchObject({ status: "uploading", progress: 42.5 });
    expect(await stub.get("a")).toMatchObject({ status: "uploading", progress: 42.5 });
    expect(await stub.update("missing", { status: "error" })).toMatchObject({ ok: false, status: 404 });
    expect(await stub.update("a", { status: "busy" })).toMatchObject({ ok: false, status: 409 });
    expect(await stub.get("a")).toMatchObject({ status: "uploading", progress: 42.5 });
  });

  it("removes items", async () => {
    const stub = uploads();
    await stub.add([file("a")]);
    expect(await stub.remove("a")).toBe(true);
    expect(await stub.remove("a")).toBe(false);
    expect(await stub.list()).toEqual([]);
  });

  it("is finished only when every item is completed or in error, and names the next item to start", async () => {
    const stub = uploads();
    expect(await stub.isFinished()).toBe(true);
    await stub.add([file("a"), file("b")]);
    expect(await stub.isFinished()).toBe(false);
    expect((await stub.nextToStart())?.id).toBe("a");
    for (const status of ["uploading", "uploaded", "saving", "completed"]) value(await stub.update("a", { status }));
    expect(await stub.isFinished()).toBe(false);
    expect((await stub.nextToStart())?.id).toBe("b");
    value(await stub.update("b", { status: "error", error: "Сеть недоступна" }));
    expect(await stub.isFinished()).toBe(true);
    expect(await stub.nextToStart()).toBeNull();
  });

  it("clears completed items only", async () => {
    const stub = uploads();
    await stub.add([file("a"), file("b"), file("c")]);
    for (const status of ["uploading", "uploaded", "saving", "completed"]) value(await stub.update("a", { status }));
    value(await stub.update("b", { status: "error" }));
    expect(await stub.clearCompleted()).toBe(1);
    expect((await stub.list()).map((i) => i.id)).toEqual(["b", "c"]);
  });

  it.each([
    ["an empty list", []],
    ["a missing file name", [{ id: "a", size: 1 }]],
    ["a negative size", [{ id: "a", fileName: "a", size: -1 }]],
    ["a fractional size", [{ id: "a", fileName: "a", size: 1.5 }]],
    ["an oversized id", [{ id: "x".repeat(65), fileName: "a", size: 1 }]],
    ["a malformed group id", [{ id: "a", fileName: "a", size: 1, groupId: "g1" }]],
    ["not a list", "a.mov"],
  ])("rejects %s and stores nothing", async (_what, input) => {
    await runInDurableObject(uploads(), async (instance: UploadQueueDO) => {
      await expect(instance.add(input)).rejects.toThrow(z.ZodError);
      expect(instance.list()).toEqual([]);
    });
  });

  it("rejects a malformed patch and keeps the item as it was", async () => {
    await runInDurableObject(uploads(), async (instance: UploadQueueDO) => {
      await instance.add([file("a")]);
      await expect(instance.update("a", { status: "exploded" })).rejects.toThrow(z.ZodError);
      await expect(instance.update("a", { progress: -5 })).rejects.toThrow(z.ZodError);
      await expect(instance.update("a", { fileName: "renamed" })).rejects.toThrow(z.ZodError);
      expect(instance.get("a")).toMatchObject({ status: "waiting", progress: 0, fileName: "a.mov" });
    });
  });

  it("keeps the queue in durable storage: it survives eviction of the instance", async () => {
    const stub = uploads();
    await stub.add([file("a")]);
    const rows = await runInDurableObject(stub, (_instance: UploadQueueDO, state) =>
      state.storage.sql.exec("SELECT id FROM queue_items").toArray(),
    );
    expect(rows).toEqual([{ id: "a" }]);
    await evictDurableObject(stub);
    expect((await stub.list()).map((i) => i.id)).toEqual(["a"]);
  });
});

describe("TaskStateDO", () => {
  it("holds progress, defaulting to zero", async () => {
    const stub = task();
    expect(await stub.getProgress()).toEqual({ progress: 0, info: null });
    await stub.setProgress({ progress: 37, info: "кадр 370 из 1000" });
    expect(await stub.getProgress()).toEqual({ progress: 37, info: "кадр 370 из 1000" });
    await stub.setProgress({ progress: 100 });
    expect(await stub.getProgress()).toEqual({ progress: 100, info: null });
  });

  it("rejects invalid progress", async () => {
    await runInDurableObject(task(), async (instance: TaskStateDO) => {
      await expect(instance.setProgress({ progress: 101 })).rejects.toThrow(z.ZodError);
      await expect(instance.setProgress({ progress: "half" })).rejects.toThrow(z.ZodError);
      await expect(instance.setProgress(null)).rejects.toThrow(z.ZodError);
      expect(await instance.getProgress()).toEqual({ progress: 0, info: null });
    });
  });

  it("appends log lines with increasing sequence numbers and reads them in pages", async () => {
    const stub = task();
    const seqs: number[] = [];
    for (let i = 1; i <= 7; i++) seqs.push(await stub.appendLog(i % 3 === 0 ? "warn" : "info", `line ${i}`));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(7);

    const page1 = await stub.readLog(0, 3);
    expect(page1.map((l) => l.message)).toEqual(["line 1", "line 2", "line 3"]);
    expect(page1[2]).toMatchObject({ level: "warn", at: expect.any(Number), seq: seqs[2] });
    const page2 = await stub.readLog(page1.at(-1)!.seq, 3);
    expect(page2.map((l) => l.message)).toEqual(["line 4", "line 5", "line 6"]);
    const page3 = await stub.readLog(page2.at(-1)!.seq, 3);
    expect(page3.map((l) => l.message)).toEqual(["line 7"]);
    expect(await stub.readLog(page3[0].seq)).toEqual([]);
    expect(await stub.readLog()).toHaveLength(7);
    expect(await stub.readLog(0, 0)).toHaveLength(1); // the limit is clamped to at least one line
  });

  it("rejects a bad log level or message", async () => {
    await runInDurableObject(task(), (instance: TaskStateDO) => {
      expect(() => instance.appendLog("debug", "x")).toThrow(z.ZodError);
      expect(() => instance.appendLog("info", 42)).toThrow(z.ZodError);
      expect(() => instance.appendLog("info", "x".repeat(10_001))).toThrow(z.ZodError);
      expect(instance.readLog()).toEqual([]);
    });
  });

  it("hands each command out once; the latest command wins", async () => {
    const stub = task();
    expect(await stub.takeCommand()).toBeNull();
    await stub.sendCommand("pause");
    expect(await stub.takeCommand()).toBe("pause");
    expect(await stub.takeCommand()).toBeNull();
    await stub.sendCommand("pause");
    await stub.sendCommand("cancel");
    expect(await stub.takeCommand()).toBe("cancel");
    expect(await stub.takeCommand()).toBeNull();
  });

  it("rejects unknown commands", async () => {
    await runInDurableObject(task(), async (instance: TaskStateDO) => {
      await expect(instance.sendCommand("explode")).rejects.toThrow(z.ZodError);
      expect(await instance.takeCommand()).toBeNull();
    });
  });

  it("stores the log in the object's SQLite storage", async () => {
    const stub = task();
    await stub.appendLog("error", "сбой");
    const rows = await runInDurableObject(stub, (_instance: TaskStateDO, state) =>
      state.storage.sql.exec("SELECT level, message FROM log").toArray(),
    );
    expect(rows).toEqual([{ level: "error", message: "сбой" }]);
  });
});
