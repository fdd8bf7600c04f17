import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { MAX_TASK_ATTEMPTS, runTaskWakeup } from "../../workers/services/tasks/task-runner";
import { STALE_RUN_MS } from "../../workers/services/tasks/task-stranded";
import { testContext } from "./catalog-fixtures";
import { signIn } from "./factories";
import { fixture } from "./processing-fixtures";
import { insertStoredAsset, insertTask, taskRow } from "./task-fixtures";

/** Makes a running task look like its run died `STALE_RUN_MS` ago (the platform ended it: no catch, no log). */
async function killRun(id: string) {
  await env.DB.prepare("update tasks set heartbeat = ?, priority = 9 where id = ?").bind(Date.now() - STALE_RUN_MS - 1_000, id).run();
}

async function stagesOf(variantId: string): Promise<Record<string, { state: string; reason?: string | null }>> {
  const raw = await env.DB.prepare("select tech_fields from variants where id = ?").bind(variantId).first<string>("tech_fields");
  return (raw ? JSON.parse(raw).processing : null) ?? {};
}

/**
 * A media Worker run ended by the platform (CPU limit, memory) leaves no trace but a task that stops checking in
 * (decision 032): the next wake-up takes it over. That takeover counts as a failed attempt, and when every attempt
 * died, the file it died on fails its stages with the reason and the task goes on without it — never a loop.
 */
describe("runs the platform ended (CPU limit of the media Worker)", () => {
  it("counts a takeover of a dead run as an attempt", async () => {
    const user = await signIn();
    const { assetId } = await insertStoredAsset({ ownerId: user.id, name: "обычный.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const id = await insertTask({ status: "running", ownerId: user.id, op: "tech-fields", affected: [{ id: assetId, type: "asset" }] });
    await killRun(id);
    await runTaskWakeup(testContext(), { op: "task-wakeup" });
    expect(await taskRow(id)).toMatchObject({ status: "done", attempts: 1 });
  });

  it("after the last dead run, fails the file's stages with the reason and finishes the other files", async () => {
    const user = await signIn();
    const stuck = await insertStoredAsset({ ownerId: user.id, name: "убийца.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const next = await insertStoredAsset({ ownerId: user.id, name: "следующий.jpg", mime: "image/jpeg", bytes: fixture("tiny") });
    const id = await insertTask({
      status: "running",
      ownerId: user.id,
      op: "tech-fields",
      attempts: MAX_TASK_ATTEMPTS - 1,
      affected: [
        { id: stuck.assetId, type: "asset" },
        { id: next.assetId, type: "asset" },
      ],
    });
    await killRun(id);
    await runTaskWakeup(testContext(), { op: "task-wakeup" });

    const task = await taskRow(id);
    expect(task.status).toBe("error");
    // the task's error counts the files; which one and why is in its log and on the file's stages
    expect(task.error).toBe(ru.tasks.log.someFailed(1, 2));
    const failed = { state: "failed", reason: ru.processing.platformStopped };
    expect(await stagesOf(stuck.variantId)).toMatchObject({ tech: failed, text: failed });
    expect((await stagesOf(next.variantId)).tech).toMatchObject({ state: "done" });
  });

  it("ends an operation that cannot skip an item as error with the reason", async () => {
    const user = await signIn();
    const id = await insertTask({ status: "running", ownerId: user.id, op: "reindex", attempts: MAX_TASK_ATTEMPTS - 1 });
    await killRun(id);
    await runTaskWakeup(testContext(), { op: "task-wakeup" });
    expect(await taskRow(id)).toMatchObject({ status: "error", error: ru.processing.platformStopped });
  });
});
