import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { claimTask, transitionTask } from "../../workers/db/repositories/task.repository";
import { AppError } from "../../workers/lib/errors";
import { createRequestContext, type Actor, type RequestContext } from "../../workers/services/access/context";
import { commandTask } from "../../workers/services/tasks/task.service";
import { nextStatus, TASK_STATUSES, type TaskCommand, type TaskEvent, type TaskStatus } from "../../workers/services/tasks/task-status";
import { admin } from "./library-factories";
import { insertTask, taskRow } from "./task-fixtures";

/**
 * The task status machine in D1 against a model (SPEC §4, docs/decisions/008): random sequences of commands (through
 * the real `commandTask`: access check, compare-and-set in D1, the task's Durable Object, wake-ups) and of the
 * runner's events (claim, yield, retry, finish, fail, enqueue, as the runner writes them), from any starting status.
 * After every step the row must be where the model says, a command must answer 409 exactly when the model calls it
 * illegal, and every command that queues the task must send one wake-up. Two commands sent at once must come out
 * as if the ones that succeeded had run one after the other.
 */

/** The model: the designed table written out here, independently of workers/services/tasks/task-status.ts. */
const MODEL: Record<TaskCommand | TaskEvent, Partial<Record<TaskStatus, TaskStatus>>> = {
  enqueue: { none: "inqueue" },
  claim: { inqueue: "running" },
  yield: { running: "inqueue" },
  retry: { running: "inqueue" },
  finish: { running: "done" },
  fail: { running: "error", inqueue: "error" },
  pause: { inqueue: "paused", running: "paused" },
  resume: { paused: "inqueue" },
  cancel: { none: "canceled", inqueue: "canceled", running: "canceled", paused: "canceled" },
  restart: { done: "inqueue", error: "inqueue", canceled: "inqueue" },
};

const COMMANDS: TaskCommand[] = ["pause", "resume", "cancel", "restart"];
const EVENTS: TaskEvent[] = ["enqueue", "claim", "yield", "retry", "finish", "fail"];

type Step =
  | { kind: "command"; command: TaskCommand }
  | { kind: "event"; event: TaskEvent }
  | { kind: "race"; a: TaskCommand; b: TaskCommand };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...COMMANDS).map((command) => ({ kind: "command" as const, command })) },
  { weight: 3, arbitrary: fc.constantFrom(...EVENTS).map((event) => ({ kind: "event" as const, event })) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...COMMANDS), fc.constantFrom(...COMMANDS)).map(([a, b]) => ({ kind: "race" as const, a, b })),
  },
);

/** A context whose TASKS queue is a recorder: wake-ups are counted, and no consumer claims the task behind the test's back. */
function recordingContext(): { rc: RequestContext; wakeUps: string[] } {
  const wakeUps: string[] = [];
  const tasks = {
    async send(body: { op: string; taskId?: string }) {
      wakeUps.push(`${body.op}:${body.taskId ?? ""}`);
    },
    async sendBatch() {
      throw new Error("not expected");
    },
  } as unknown as Queue;
  return { rc: createRequestContext({ ...env, TASKS: tasks }, () => {}, "task-status-property"), wakeUps };
}

/** Runs a command; true when it was applied, false when refused with 409 (anything else fails the test). */
async function command(rc: RequestContext, actor: Actor, id: string, c: TaskCommand): Promise<boolean> {
  try {
    await commandTask(rc, actor, id, c);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === "CONFLICT") return false;
    throw error;
  }
}

/** A runner event as the runner writes it: a claim of a queued task, or a compare-and-set from the status it holds. */
async function event(rc: RequestContext, id: string, e: TaskEvent, worker: string): Promise<boolean> {
  if (e === "claim") return (await claimTask(rc.db, id, { now: Date.now(), worker })) !== null;
  const current = (await taskRow(id)).status as TaskStatus;
  const to = nextStatus(current, e);
  return to !== null && (await transitionTask(rc.db, id, current, to, [], Date.now()));
}

describe("the task status machine against the model", () => {
  it("follows the model through random commands, runner events and races, from any status", async () => {
    const boss = await admin();
    const actor: Actor = { id: boss.id, name: "admin", login: "admin", isAdmin: true, isRobot: false, sessionFamily: null };
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TASK_STATUSES), fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (start, steps) => {
        const id = await insertTask({ status: start, ownerId: boss.id, op: "reindex" });
        const { rc, wakeUps } = recordingContext();
        let model: TaskStatus = start;
        let expectedWakeUps = 0;
        for (const step of steps) {
          if (step.kind === "command") {
            const to = MODEL[step.command][model] ?? null;
            expect({ step, from: model, applied: await command(rc, actor, id, step.command) }).toEqual({
              step,
              from: model,
              applied: to !== null,
            });
            if (to) model = to;
            if (to === "inqueue") expectedWakeUps += 1;
          } else if (step.kind === "event") {
            const to = MODEL[step.event][model] ?? null;
            expect({ step, from: model, applied: await event(rc, id, step.event, "property") }).toEqual({
              step,
              from: model,
              applied: to !== null,
            });
            if (to) model = to;
          } else {
            const from = model;
            const [a, b] = await Promise.all([command(rc, actor, id, step.a), command(rc, actor, id, step.b)]);
            const final = (await taskRow(id)).status as TaskStatus;
            // Linearisable: the commands that succeeded, in some order, are legal steps from `from` ending at `final`.
            const succeeded = [a ? step.a : null, b ? step.b : null].filter((c): c is TaskCommand => c !== null);
            const orders = succeeded.length === 2 ? [succeeded, [...succeeded].reverse()] : [succeeded];
            const ends = orders.map((order) => order.reduce<TaskStatus | null>((s, c) => (s === null ? null : MODEL[c][s] ?? null), from));
            expect({ step, from, final, possible: ends.includes(final) }).toEqual({ step, from, final, possible: true });
            // Something legal from `from` always gets through: a refusal is never spurious.
            if (MODEL[step.a][from] || MODEL[step.b][from]) expect(succeeded.length).toBeGreaterThan(0);
            else expect(succeeded).toEqual([]);
            let s: TaskStatus = from;
            for (const c of orders[ends.indexOf(final)]) {
              s = MODEL[c][s]!;
              if (s === "inqueue") expectedWakeUps += 1;
            }
            model = final;
          }
          expect({ step, status: (await taskRow(id)).status }).toEqual({ step, status: model });
          checked += 1;
        }
        expect(wakeUps).toHaveLength(expectedWakeUps);
        expect(new Set(wakeUps)).toEqual(new Set(expectedWakeUps > 0 ? [`task-wakeup:${id}`] : []));
      }),
      { numRuns: 60 },
    );
    expect(checked).toBeGreaterThan(200);
  }, 120_000);
});
