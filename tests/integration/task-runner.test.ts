import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ru } from "../../app/i18n/ru";
import type { TaskStateDO } from "../../durable-objects/task-state.do";
import { worker } from "./worker-handlers";
import { MAX_TASK_ATTEMPTS, runTaskNow } from "../../workers/services/tasks/task-runner";
import { taskStub } from "../../workers/services/tasks/task-live";
import { testContext } from "./catalog-fixtures";
import { call, signIn } from "./factories";
import { fixture } from "./processing-fixtures";
import { getJson, insertStoredAsset, insertTask, postJson, taskRow, waitForTask } from "./task-fixtures";

function batchOf(queue: string, ...bodies: unknown[]) {
  return createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `msg-${crypto.randomUUID()}-${i}`, timestamp: Date.now(), attempts: 1, body })),
  );
}

/** `n` small stored JPEG assets of a user (no background tasks follow). */
async function storedAssets(ownerId: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push(await insertStoredAsset({ ownerId, name: `кадр ${i}.jpg`, mime: "image/jpeg", bytes: fixture("tiny") }));
  return out;
}

async function logOf(id: string, bearer: string) {
  return (await getJson<{ lines: { level: string; message: string }[] }>(`/api/tasklist/log/${id}?take=1000`, bearer)).lines;
}

describe("TASKS consumer: wake-ups claim by priority", () => {
  it("acks a wake-up after running the claimed task, and a malformed message without running anything", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "inqueue", ownerId: user.id, scheduleTime: Date.now() });
    const batch = batchOf("edge-mam-tasks", { op: "task-wakeup", taskId: id }, { op: "no-such-operation" });
    const ctx = createExecutionContext();
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.outcome).toBe("ok");
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks.sort()).toEqual(batch.messages.map((m) => m.id).sort());
    // This batch or the background consumer ran it; either way it is done.
    expect((await waitForTask(id, ["done"])).progress).toBe(100);
  });

  it("runs the highest priority first, then the oldest", async () => {
    const user = await signIn();
    const now = Date.now();
    const low = await insertTask({ status: "inqueue", ownerId: user.id, priority: 2, scheduleTime: now });
    const high = await insertTask({ status: "inqueue", ownerId: user.id, priority: 9, scheduleTime: now });
    const mid = await insertTask({ status: "inqueue", ownerId: user.id, priority: 5, scheduleTime: now });
    const batch = batchOf("edge-mam-tasks", ...[1, 2, 3].map(() => ({ op: "task-wakeup" })));
    vi.spyOn(console, "log").mockImplementation(() => {});
    await worker.queue(batch, env, createExecutionContext());
    const started = [];
    for (const id of [high, mid, low])
      started.push(
        (await waitForTask(id, ["done"])) &&
          (await env.DB.prepare("select start_time from tasks where id = ?").bind(id).first<number>("start_time")),
      );
    expect(started).toEqual([...started].sort((a, b) => a! - b!));
  });

  it("ends a dead-lettered wake-up's task as error with a log line", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "inqueue", ownerId: user.id });
    const batch = batchOf("edge-mam-tasks-dlq", { op: "task-wakeup", taskId: id });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual([batch.messages[0].id]);
    expect(await taskRow(id)).toMatchObject({ status: "error", error: ru.tasks.log.deadLetter });
    expect((await logOf(id, user.bearer)).at(-1)).toEqual({
      level: "error",
      message: ru.tasks.log.deadLetter,
      seq: expect.any(Number),
      time: expect.any(String),
    });
  });
});

describe("task runs: retries, errors, pause and resume", () => {
  it("retries a failing step with backoff, then ends the task as error with its log", async () => {
    const user = await signIn();
    const { assetId, key } = await insertStoredAsset({
      ownerId: user.id,
      name: "нет байтов.jpg",
      mime: "image/jpeg",
      bytes: fixture("tiny"),
    });
    await env.MEDIA.delete(key);
    const id = await insertTask({ status: "inqueue", ownerId: user.id, op: "preview", affected: [{ id: assetId, type: "asset" }] });
    const before = Date.now();
    await runTaskNow(testContext(), id);
    const retried = await taskRow(id);
    expect(retried).toMatchObject({ status: "inqueue", attempts: 1 });
    expect(retried.schedule_time).toBeGreaterThanOrEqual(before + 10_000);
    expect((await logOf(id, user.bearer)).at(-1)!.message).toMatch(/^Ошибка \(попытка 1 из 5\), повтор через 10 с: /);

    await env.DB.prepare("update tasks set attempts = ? where id = ?")
      .bind(MAX_TASK_ATTEMPTS - 1, id)
      .run();
    await runTaskNow(testContext(), id);
    const failed = await taskRow(id);
    expect(failed).toMatchObject({ status: "error", attempts: MAX_TASK_ATTEMPTS });
    expect(failed.error).toMatch(new RegExp(`^${ru.tasks.log.internal}: `));
    expect((await logOf(id, user.bearer)).at(-1)).toMatchObject({ level: "error", message: ru.tasks.log.failed(failed.error!) });
  });

  it("pauses a running task at its next check-in, keeps its place, and resumes it to the end", async () => {
    const user = await signIn();
    const assets = await storedAssets(user.id, 40);
    const id = await insertTask({
      status: "inqueue",
      ownerId: user.id,
      op: "preview",
      affected: assets.map((a) => ({ id: a.assetId, type: "asset" })),
    });
    // The command goes out while the run works (no timer waits: workerd runs timers only between I/O).
    const run = runTaskNow(testContext(), id);
    const paused = await postJson<{ status: string }>(`/api/tasklist/command/${id}`, user.bearer, { command: "pause" });
    expect(paused.status).toBe("paused");
    await run;
    const stopped = await taskRow(id);
    expect(stopped.status).toBe("paused");
    const place = JSON.parse(stopped.cursor!) as { index: number };
    expect(place.index).toBeGreaterThan(0);
    expect(place.index).toBeLessThan(40);
    expect((await logOf(id, user.bearer)).some((l) => l.message.startsWith(ru.tasks.log.paused))).toBe(true);

    await postJson(`/api/tasklist/command/${id}`, user.bearer, { command: "resume" });
    const done = await waitForTask(id, ["done"], 50_000);
    expect(JSON.parse(done.result!)).toEqual({ assets: 40, made: 40, failed: 0 });
    expect((await logOf(id, user.bearer)).filter((l) => l.message.startsWith("Превью для")).length).toBe(40);
  }, 60_000);

  it("cancels a running task at its next check-in", async () => {
    const user = await signIn();
    const assets = await storedAssets(user.id, 40);
    const id = await insertTask({
      status: "inqueue",
      ownerId: user.id,
      op: "preview",
      affected: assets.map((a) => ({ id: a.assetId, type: "asset" })),
    });
    // The command goes out while the run works (no timer waits: workerd runs timers only between I/O).
    const run = runTaskNow(testContext(), id);
    await postJson(`/api/tasklist/command/${id}`, user.bearer, { command: "cancel" });
    await run;
    const row = await taskRow(id);
    expect(row.status).toBe("canceled");
    expect(JSON.parse(row.cursor!).index).toBeLessThan(40);
  }, 60_000);

  it("yields a run whose time budget is spent and continues it in a new wake-up", async () => {
    const user = await signIn();
    const assets = [];
    for (let i = 0; i < 3; i++)
      assets.push(await insertStoredAsset({ ownerId: user.id, name: `y${i}.jpg`, mime: "image/jpeg", bytes: fixture("tiny") }));
    const id = await insertTask({
      status: "inqueue",
      ownerId: user.id,
      op: "preview",
      affected: assets.map((a) => ({ id: a.assetId, type: "asset" })),
    });
    await runTaskNow(testContext(), id, { budgetMs: 0 });
    const yielded = await taskRow(id);
    expect(yielded.status === "inqueue" || yielded.status === "running" || yielded.status === "done").toBe(true);
    expect((await logOf(id, user.bearer)).some((l) => l.message === ru.tasks.log.yielded)).toBe(true);
    await waitForTask(id, ["done"], 30_000);
  }, 60_000);
});

describe("TaskStateDO commands", () => {
  it("hands the latest command out once at a check-in, recording progress", async () => {
    const stub = taskStub(env, crypto.randomUUID());
    await runInDurableObject(stub, async (instance: TaskStateDO) => {
      expect(await instance.checkIn({ progress: 10, info: "1 / 10" })).toBeNull();
      await instance.sendCommand("pause");
      await instance.sendCommand("resume");
      expect(await instance.checkIn({ progress: 20, info: "2 / 10" })).toBe("resume");
      expect(await instance.checkIn({ progress: 30, info: null })).toBeNull();
      await instance.sendCommand("cancel");
      expect(await instance.checkIn({ progress: 40 })).toBe("cancel");
      expect(await instance.getProgress()).toEqual({ progress: 40, info: null });
    });
  });

  it("keeps lines in order across batches and reports their count", async () => {
    const stub = taskStub(env, crypto.randomUUID());
    await runInDurableObject(stub, (instance: TaskStateDO) => {
      instance.appendLogs([
        { level: "info", message: "один" },
        { level: "warn", message: "два" },
      ]);
      instance.appendLog("error", "три");
      expect(instance.readLog(0, 10).map((l) => l.message)).toEqual(["один", "два", "три"]);
      expect(instance.logStats()).toEqual({ count: 3, last: 3 });
      expect(() => instance.appendLogs([])).toThrow();
    });
  });
});

describe("live progress", () => {
  it("GET /task/{id} answers the Durable Object's progress while the task runs", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "running", ownerId: user.id });
    await taskStub(env, id).setProgress({ progress: 42, info: "42 из 100" });
    const task = await getJson<{ progress: number; progress_info: string }>(`/api/tasklist/task/${id}`, user.bearer);
    expect([task.progress, task.progress_info]).toEqual([42, "42 из 100"]);
    const res = await call(`/api/tasklist/task/${id}`, { bearer: (await signIn()).bearer });
    expect(res.status).toBe(404);
  });
});
