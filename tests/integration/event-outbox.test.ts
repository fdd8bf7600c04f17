import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { worker } from "./worker-handlers";
import { newId } from "../../workers/lib/ids";
import { eventStatement } from "../../workers/services/events/events.service";
import { deliverEvents, type StepHook } from "../../workers/services/automations/event-outbox.service";
import { setCause } from "../../workers/services/events/cause";
import { rows, testContext } from "./catalog-fixtures";
import { admin, createGroup, insertAsset, insertTag, send, uniqueName, type Caller } from "./library-factories";
import { deliveriesOf, insertOutboxEvents } from "./outbox-fixtures";

/**
 * The event outbox (decision 024) under injected crashes: the dispatcher is killed after each of its statements and
 * side effects in turn (its step hook throws, as if the Worker died there), run again, and every trigger must have
 * fired exactly once: one task, one Workflow instance and one count on the automation per (event, workflow).
 */

const BASE = "/api/tasklist/udwf";

class InjectedCrash extends Error {}

/** A hook that kills the dispatch at its `at`-th step (1-based); counts the steps it saw. */
function crashAt(at: number): StepHook & { seen: string[] } {
  const seen: string[] = [];
  return Object.assign(
    (step: string) => {
      seen.push(step);
      if (seen.length === at) throw new InjectedCrash(`killed after step ${at}: ${step}`);
    },
    { seen },
  );
}

async function createWorkflow(a: Caller, body: Record<string, unknown>): Promise<string> {
  const res = await send<{ id: string }>("POST", `${BASE}/workflow`, a.bearer, {
    name: uniqueName("Автоматизация"),
    enabled: true,
    actions: [{ type: "wait", seconds: 1 }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

interface Pair {
  workflowId: string;
  assetId: string;
}

/**
 * A scene of its own (a group, a tag, two files and three automations scoped to them) and its events in the
 * outbox: an image and a video uploaded into the group (the first fires two automations, the second one), a tag
 * put on the image (one), and a change no automation listens to. Returns the four (event, workflow) pairs expected.
 */
async function scene(a: Caller): Promise<{ pairs: Pair[]; workflows: Record<string, number>; eventIds: string[] }> {
  const group = await createGroup(a, uniqueName());
  const tag = await insertTag();
  const [image, video] = await Promise.all([
    insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [group] }),
    insertAsset({ ownerId: a.id, mime: "video/mp4", groups: [group] }),
  ]);
  const anyUpload = await createWorkflow(a, { trigger: { type: "asset.uploaded", group_id: group } });
  const imageUpload = await createWorkflow(a, {
    trigger: { type: "asset.uploaded", group_id: group },
    conditions: [{ kind: "mimetype", op: "starts-with", value: "image/" }],
  });
  const tagged = await createWorkflow(a, { trigger: { type: "tag.added", tag_id: tag } });
  const eventIds = await insertOutboxEvents([
    { type: "asset.uploaded", entityId: image.id, data: { group_id: group } },
    { type: "asset.uploaded", entityId: video.id, data: { group_id: group } },
    { type: "tag.attached", entityId: image.id, data: { tag_id: tag } },
    { type: "asset.updated", entityId: image.id, data: {} },
  ]);
  return {
    pairs: [
      { workflowId: anyUpload, assetId: image.id },
      { workflowId: imageUpload, assetId: image.id },
      { workflowId: anyUpload, assetId: video.id },
      { workflowId: tagged, assetId: image.id },
    ],
    workflows: { [anyUpload]: 2, [imageUpload]: 1, [tagged]: 1 },
    eventIds,
  };
}

interface Figures {
  sent: number;
  deliveredOnce: number;
  duplicates: number;
  lost: number;
}

/** Counts, per expected pair, the run tasks and their Workflow instances; checks the automations' run counters. */
async function tally(s: Awaited<ReturnType<typeof scene>>): Promise<Figures> {
  const figures: Figures = { sent: s.pairs.length, deliveredOnce: 0, duplicates: 0, lost: 0 };
  for (const pair of s.pairs) {
    const tasks = await rows<{ id: string }>(
      `SELECT id FROM tasks WHERE operation_class = 'automation' AND src_entity = ? AND json_extract(options, '$.workflow_id') = ?`,
      pair.assetId,
      pair.workflowId,
    );
    let instances = 0;
    for (const t of tasks)
      if (
        await env.AUTOMATIONS.get(t.id).then(
          () => true,
          () => false,
        )
      )
        instances += 1;
    if (tasks.length === 0 || instances === 0) figures.lost += 1;
    else if (tasks.length === 1 && instances === 1) figures.deliveredOnce += 1;
    figures.duplicates += Math.max(0, tasks.length - 1);
  }
  for (const [id, runs] of Object.entries(s.workflows)) {
    const [row] = await rows<{ runs: number }>(`SELECT runs FROM automations WHERE id = ?`, id);
    expect(row.runs, `runs counted for ${id}`).toBe(runs);
  }
  const undelivered = await rows(
    `SELECT event_id FROM global_events WHERE delivered_at IS NULL AND event_id IN (SELECT value FROM json_each(?))`,
    JSON.stringify(s.eventIds),
  );
  expect(undelivered).toEqual([]);
  expect((await deliveriesOf(s.eventIds)).every((d) => d.handed_at !== null)).toBe(true);
  return figures;
}

function add(total: Figures, f: Figures): void {
  total.sent += f.sent;
  total.deliveredOnce += f.deliveredOnce;
  total.duplicates += f.duplicates;
  total.lost += f.lost;
}

describe("the event outbox under injected crashes", () => {
  it("fires every trigger exactly once whichever step the dispatcher dies after", async () => {
    const a = await admin();
    const total: Figures = { sent: 0, deliveredOnce: 0, duplicates: 0, lost: 0 };

    // Events left undelivered by earlier files would add steps to the count below and end a crashed run early.
    await deliverEvents(testContext());
    // A clean run first: how many steps delivering a scene takes.
    const clean = await scene(a);
    const counter = crashAt(Number.POSITIVE_INFINITY);
    await deliverEvents(testContext(), { afterStep: counter });
    const steps = counter.seen.length;
    expect(steps).toBeGreaterThan(15);
    add(total, await tally(clean));

    for (let at = 1; at <= steps; at++) {
      const s = await scene(a);
      const hook = crashAt(at);
      await expect(deliverEvents(testContext(), { afterStep: hook }), `crash at step ${at}`).rejects.toBeInstanceOf(InjectedCrash);
      // The next dispatch (the queue's retry or the minute's sweep) finishes what the dead one left.
      await deliverEvents(testContext());
      const f = await tally(s);
      expect(f, `crash after step ${at} (${hook.seen.at(-1)})`).toEqual({ sent: 4, deliveredOnce: 4, duplicates: 0, lost: 0 });
      add(total, f);
    }
    console.log(JSON.stringify({ figure: "outbox under crashes", crashPoints: steps, ...total }));
    expect(total).toEqual({ sent: 4 * (steps + 1), deliveredOnce: 4 * (steps + 1), duplicates: 0, lost: 0 });
  }, 180_000);

  it("survives a crash on every attempt: attempt n dies at its n-th step until one gets through", async () => {
    const a = await admin();
    const s = await scene(a);
    let attempts = 0;
    for (let at = 1; ; at++) {
      attempts += 1;
      const hook = crashAt(at);
      const finished = await deliverEvents(testContext(), { afterStep: hook }).then(
        () => true,
        (error: unknown) => {
          if (!(error instanceof InjectedCrash)) throw error;
          return false;
        },
      );
      if (finished) break;
      expect(at).toBeLessThan(100);
    }
    expect(attempts).toBeGreaterThan(5);
    expect(await tally(s)).toEqual({ sent: 4, deliveredOnce: 4, duplicates: 0, lost: 0 });
  });

  it("two dispatchers delivering the same events at once start each run once", async () => {
    const a = await admin();
    const s = await scene(a);
    await Promise.all([deliverEvents(testContext()), deliverEvents(testContext()), deliverEvents(testContext())]);
    expect(await tally(s)).toEqual({ sent: 4, deliveredOnce: 4, duplicates: 0, lost: 0 });
    const records = await deliveriesOf(s.eventIds);
    expect(records).toHaveLength(4);
  });
});

describe("writing and waking", () => {
  it("writes events no automation can react to as delivered, and the rest undelivered with the causing run", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/png" });
    const rc = testContext();
    const run = newId();
    setCause(rc, { taskId: run, workflowId: newId(), depth: 2 });
    const entity = { entityType: "asset" as const, entityId: asset.id, ownerId: a.id };
    const statement = eventStatement(rc, [
      { type: "asset.uploaded", ...entity, data: { group_id: null } },
      { type: "asset.updated", ...entity },
      { type: "tag.created", entityType: "tag", entityId: asset.id, ownerId: null },
    ]);
    await rc.db.run(statement);
    const written = await rows<{ type: string; delivered_at: number | null; cause_task_id: string | null; cause_depth: number | null }>(
      `SELECT type, delivered_at, cause_task_id, cause_depth FROM global_events WHERE entity_id = ? ORDER BY seq`,
      asset.id,
    );
    expect(written.map((w) => [w.type, w.delivered_at === null, w.cause_task_id, w.cause_depth])).toEqual([
      ["asset.uploaded", true, run, 2],
      ["asset.updated", false, run, 2],
      ["tag.created", false, run, 2],
    ]);
  });

  it("a change through the API wakes the dispatcher through the queue, and the run starts", async () => {
    const a = await admin();
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg" });
    const tag = await insertTag();
    const wf = await createWorkflow(a, { trigger: { type: "tag.added", tag_id: tag } });
    const attach = await send("POST", "/api/tags/attach", a.bearer, { tag_ids: [tag], entities: [{ id: asset.id, type: "asset" }] });
    expect(attach.status, JSON.stringify(attach.body)).toBe(200);
    await vi.waitUntil(
      async () => (await rows(`SELECT 1 FROM event_deliveries WHERE workflow_id = ? AND handed_at IS NOT NULL`, wf)).length === 1,
      // The queue is shared with the files run before this one in its group; on a busy machine its turn can take a while.
      { timeout: 30_000, interval: 100 },
    );
    const [event] = await rows<{ delivered_at: number | null }>(
      `SELECT delivered_at FROM global_events WHERE entity_id = ? AND type = 'tag.attached'`,
      asset.id,
    );
    expect(event.delivered_at).not.toBeNull();
  }, 45_000);

  it("the minute cron sweeps up events whose wake-up was lost", async () => {
    const a = await admin();
    const group = await createGroup(a, uniqueName());
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [group] });
    const wf = await createWorkflow(a, { trigger: { type: "asset.uploaded", group_id: group } });
    // Written like a commit whose Worker died before sending the wake-up: nothing is on the queue for it.
    const [eventId] = await insertOutboxEvents([{ type: "asset.uploaded", entityId: asset.id, data: { group_id: group } }]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    const [delivery] = await deliveriesOf([eventId]);
    expect(delivery).toMatchObject({ workflow_id: wf });
    expect(delivery.handed_at).not.toBeNull();
    await expect(env.AUTOMATIONS.get(delivery.task_id!)).resolves.toBeDefined();
  });

  it("the consumer runs one dispatch for a batch of wake-ups and acks them all; a failing dispatch retries them", async () => {
    const a = await admin();
    const group = await createGroup(a, uniqueName());
    const asset = await insertAsset({ ownerId: a.id, mime: "image/jpeg", groups: [group] });
    const wf = await createWorkflow(a, { trigger: { type: "asset.uploaded", group_id: group } });
    const [eventId] = await insertOutboxEvents([{ type: "asset.uploaded", entityId: asset.id, data: { group_id: group } }]);
    const wakeUps = [1, 2, 3].map((n) => ({ id: `wake-${n}`, timestamp: Date.now(), attempts: 1, body: { op: "deliver-events" } }));

    // D1 down: nothing delivered, every wake-up asks for a retry (the event waits in the outbox).
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const brokenDb = {
      prepare() {
        throw new Error("D1 is down");
      },
      batch() {
        throw new Error("D1 is down");
      },
    } as unknown as D1Database;
    const failing = createMessageBatch("edge-mam-tasks", wakeUps);
    const failCtx = createExecutionContext();
    await worker.queue(failing, { ...env, DB: brokenDb }, failCtx);
    const failed = await getQueueResult(failing, failCtx);
    expect(failed.explicitAcks).toEqual([]);
    expect(failed.retryMessages.map((m) => m.msgId).sort()).toEqual(["wake-1", "wake-2", "wake-3"]);
    expect(await deliveriesOf([eventId])).toEqual([]);
    warn.mockRestore();

    const batch = createMessageBatch("edge-mam-tasks", wakeUps);
    const ctx = createExecutionContext();
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["wake-1", "wake-2", "wake-3"]);
    expect(log.mock.calls.filter(([line]) => String(line).includes('"op":"deliver-events"'))).toHaveLength(1);
    log.mockRestore();
    expect(await deliveriesOf([eventId])).toMatchObject([{ workflow_id: wf }]);
  });
});
