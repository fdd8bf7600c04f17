import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { UploadQueueDO } from "../../durable-objects/upload-queue.do";
import { commandsArb, runAgainstModel, seen, type Answer, type Patch, type QueueSystem } from "../unit/upload-queue-model";

/**
 * The real UploadQueueDO (SQLite storage, alarm pass, abort hand-off) against the reference model of SPEC §4: random
 * command sequences, each on a fresh object, driven inside the object with an explicit clock.
 */

/** The object's methods as a QueueSystem; aborts are read from a recorder standing in for the TASKS queue. */
function systemOf(instance: UploadQueueDO): QueueSystem {
  const sent: string[] = [];
  const target = instance as unknown as { env: Env };
  target.env = {
    ...target.env,
    TASKS: {
      ...target.env.TASKS,
      sendBatch: vi.fn<Queue["sendBatch"]>(async (messages) => {
        for (const m of messages) {
          const body = m.body as { variantId: string; uploadId: string };
          sent.push(`${body.variantId}/${body.uploadId}`);
        }
        return {} as QueueSendBatchResponse;
      }),
    } as Queue,
  };
  const answer = <T>(outcome: { ok: true; value: T } | { ok: false; status: 404 | 409 }): Answer<T> =>
    outcome.ok ? { ok: true, value: outcome.value } : { ok: false, status: outcome.status };
  return {
    async add(ids, now) {
      const outcome = await instance.add(ids.map((id) => ({ id, fileName: id, size: 1 })), now);
      return outcome.ok ? { ok: true, value: outcome.value.map((i) => i.id) } : answer(outcome);
    },
    update: async (id: string, patch: Patch, now: number) => answer(await instance.update(id, patch, now)),
    async cancel(id, now) {
      const outcome = await instance.cancel(id, now);
      return outcome.ok ? { ok: true, value: { removed: outcome.value.removed } } : answer(outcome);
    },
    async keepalive(ids, now) {
      instance.keepalive(ids, now);
    },
    remove: (id) => instance.remove(id),
    clear: () => instance.clearCompleted(),
    async sweep(now) {
      sent.length = 0;
      const result = await instance.sweep(now);
      expect(result.abortsPending).toBe(0);
      return [...sent];
    },
    list: async () => instance.list().map(seen),
    finished: async () => instance.isFinished(),
    next: async () => instance.nextToStart()?.id ?? null,
  };
}

describe("UploadQueueDO against the reference model", () => {
  it("answers random sequences of queue commands exactly like the model", async () => {
    await fc.assert(
      fc.asyncProperty(commandsArb(60), async (commands) => {
        const stub = env.UPLOADS.get(env.UPLOADS.idFromName(`model:${crypto.randomUUID()}`));
        await runInDurableObject(stub, async (instance: UploadQueueDO) => {
          await runAgainstModel(systemOf(instance), commands, Date.now());
        });
      }),
      { numRuns: 150 },
    );
  });
});
