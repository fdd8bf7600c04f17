import { describe, expect, it } from "vitest";
import {
  canReprioritize,
  commandsFor,
  legalFrom,
  nextStatus,
  TASK_COMMANDS,
  TASK_EVENTS,
  TASK_STATUSES,
  TRANSITIONS,
  type TaskStatus,
  type TaskTransition,
} from "../../workers/services/tasks/task-status";

/** The designed machine, written out independently of the module (docs/decisions/008-background-work.md). */
const EXPECTED: Record<TaskTransition, Partial<Record<TaskStatus, TaskStatus>>> = {
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

const ALL: TaskTransition[] = [...TASK_COMMANDS, ...TASK_EVENTS];
const cases = ALL.flatMap((t) => TASK_STATUSES.map((s) => [t, s, EXPECTED[t][s] ?? null] as const));

describe("task status machine", () => {
  it.each(cases)("%s from %s → %s", (transition, from, to) => {
    expect(nextStatus(from, transition)).toBe(to);
  });

  it("has exactly the designed table", () => {
    expect(TRANSITIONS).toEqual(EXPECTED);
  });

  it("lists where each transition is legal", () => {
    expect(legalFrom("pause")).toEqual(["inqueue", "running"]);
    expect(legalFrom("restart")).toEqual(["canceled", "done", "error"]);
  });

  it.each(TASK_STATUSES)("offers in %s exactly the commands that are legal there", (status) => {
    expect(commandsFor(status)).toEqual(TASK_COMMANDS.filter((c) => EXPECTED[c][status] !== undefined));
  });

  it("allows priority changes until the task finishes", () => {
    expect(TASK_STATUSES.filter(canReprioritize)).toEqual(["none", "inqueue", "running", "paused"]);
  });

  it("never leaves a finished status except by restart", () => {
    for (const status of ["done", "error", "canceled"] as const) {
      expect(ALL.filter((t) => nextStatus(status, t) !== null)).toEqual(["restart"]);
    }
  });
});
