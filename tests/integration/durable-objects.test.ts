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
  const file = (id: string, extra: Record<string, unknown> = {}) => ({ id, fileName: `${id}.mov`, size: 1024, ...extra });

  it("adds items with defaults, keeps arrival order and lists them", async () => {
    const stub = uploads();
    const a = await stub.add(file("a"));
    expect(a).toMatchObject({
      id: "a",
      fileName: "a.mov",
      size: 1024,
      status: "waiting",
      progress: 0,
      assetId: null,
      groupId: null,
      error: null,
    });
    expect(a.ctime).toBeTypeOf("number");
    await stub.add(file("b", { groupId: "g1" }));
    await stub.add(file("c"));
    expect((await stub.list()).map((i) => i.id)).toEqual(["a", "b", "c"]);
    expect(await stub.get("b")).toMatchObject({ groupId: "g1" });
    expect(await stub.get("zzz")).toBeNull();
  });

  it("replaces an item with the same id and keeps its place", async () => {
    const stub = uploads();
    const first = await stub.add(file("a"));
    await stub.add(file("b"));
    const again = await stub.add(file("a", { size: 2048 }));
    expect(again.ctime).toBe(first.ctime);
    expect((await stub.list()).map((i) => [i.id, i.size])).toEqual([
      ["a", 2048],
      ["b", 1024],
    ]);
  });

  it("updates status and progress, and answers null for an unknown id", async () => {
    const stub = uploads();
    await stub.add(file("a"));
    const updated = await stub.update("a", { status: "uploading", progress: 42.5 });
    expect(updated).toMatchObject({ id: "a", status: "uploading", progress: 42.5, fileName: "a.mov" });
    expect(await stub.get("a")).toMatchObject({ status: "uploading", progress: 42.5 });
    expect(await stub.update("missing", { status: "completed" })).toBeNull();
  });

  it("removes items", async () => {
    const stub = uploads();
    await stub.add(file("a"));
    expect(await stub.remove("a")).toBe(true);
    expect(await stub.remove("a")).toBe(false);
    expect(await stub.list()).toEqual([]);
  });

  it("is finished only when every item is completed or in error", async () => {
    const stub = uploads();
    expect(await stub.isFinished()).toBe(true);
    await stub.add(file("a"));
    await stub.add(file("b"));
    expect(await stub.isFinished()).toBe(false);
    await stub.update("a", { status: "completed", progress: 100 });
    expect(await stub.isFinished()).toBe(false);
    await stub.update("b", { status: "error", error: "Сеть недоступна" });
    expect(await stub.isFinished()).toBe(true);
  });

  it("clears completed items only", async () => {
    const stub = uploads();
    await stub.add(file("a", { status: "completed", progress: 100 }));
    await stub.add(file("b", { status: "error", error: "x" }));
    await stub.add(file("c", { status: "uploading" }));
    await stub.add(file("d", { status: "completed", progress: 100 }));
    expect(await stub.clearCompleted()).toBe(2);
    expect((await stub.list()).map((i) => i.id)).toEqual(["b", "c"]);
  });

  it.each([
    ["an empty object", {}],
    ["a missing file name", { id: "a", size: 1 }],
    ["a negative size", { id: "a", fileName: "a", size: -1 }],
    ["a fractional size", { id: "a", fileName: "a", size: 1.5 }],
    ["an unknown status", { id: "a", fileName: "a", size: 1, status: "done" }],
    ["progress over 100", { id: "a", fileName: "a", size: 1, progress: 101 }],
    ["an oversized id", { id: "x".repeat(65), fileName: "a", size: 1 }],
    ["not an object", "a.mov"],
  ])("rejects %s and stores nothing", async (_what, input) => {
    await runInDurableObject(uploads(), (instance: UploadQueueDO) => {
      expect(() => instance.add(input)).toThrow(z.ZodError);
      expect(instance.list()).toEqual([]);
    });
  });

  it("rejects a bad patch and keeps the item as it was", async () => {
    await runInDurableObject(uploads(), (instance: UploadQueueDO) => {
      instance.add(file("a"));
      expect(() => instance.update("a", { status: "exploded" })).toThrow(z.ZodError);
      expect(() => instance.update("a", { progress: -5 })).toThrow(z.ZodError);
      expect(instance.get("a")).toMatchObject({ status: "waiting", progress: 0 });
    });
  });

  it("keeps the queue in durable storage: it survives eviction of the instance", async () => {
    const stub = uploads();
    await stub.add(file("a"));
    const rows = await runInDurableObject(stub, (_instance: UploadQueueDO, state) =>
      state.storage.sql.exec("SELECT id FROM items").toArray(),
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
