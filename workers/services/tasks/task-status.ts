import { TASK_STATUSES, type TaskStatus } from "../../db/schema/tasks";

export { TASK_STATUSES, type TaskStatus };

/** Commands people send to a task (POST /api/tasklist/command/{taskId}). */
export const TASK_COMMANDS = ["pause", "resume", "cancel", "restart"] as const;
export type TaskCommand = (typeof TASK_COMMANDS)[number];

/** What the system itself does to a task: queue it, the consumer claiming it, yielding, finishing, failing, retrying. */
export const TASK_EVENTS = ["enqueue", "claim", "yield", "finish", "fail", "retry"] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

export type TaskTransition = TaskCommand | TaskEvent;

/**
 * The SPEC §4 task status machine: for each command or event, the statuses it is legal in and where it leads.
 * Anything not listed is illegal (a command answers 409 and nothing changes). See docs/decisions/008.
 *
 * - none → inqueue (enqueue): a task made but not yet queued (an automation preparing it) is queued.
 * - inqueue → running (claim): the consumer took it; running → inqueue (yield) when its run's time budget is spent
 *   or (retry) after a failed run that may be retried with backoff; running → done (finish) / error (fail).
 * - pause: inqueue or running → paused (a running task stops at its next check-in); resume: paused → inqueue.
 * - cancel: any unfinished status (none, inqueue, running, paused) → canceled.
 * - restart: a finished task (done, error, canceled) → inqueue, from the start.
 */
export const TRANSITIONS: Record<TaskTransition, Partial<Record<TaskStatus, TaskStatus>>> = {
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

/** Statuses a task never leaves on its own. */
export const FINISHED_STATUSES: readonly TaskStatus[] = ["done", "error", "canceled"];

/** Where `transition` leads from `status`, or null when it is illegal there. */
export function nextStatus(status: TaskStatus, transition: TaskTransition): TaskStatus | null {
  return TRANSITIONS[transition][status] ?? null;
}

/** Statuses in which `transition` is legal. */
export function legalFrom(transition: TaskTransition): TaskStatus[] {
  return TASK_STATUSES.filter((s) => TRANSITIONS[transition][s] !== undefined);
}

/** The commands people may send to a task in `status` (the task-commands call). Priority may change until it finishes. */
export function commandsFor(status: TaskStatus): TaskCommand[] {
  return TASK_COMMANDS.filter((c) => nextStatus(status, c) !== null);
}

/** Whether the priority of a task in `status` may still change (it matters only before the task finishes). */
export function canReprioritize(status: TaskStatus): boolean {
  return !FINISHED_STATUSES.includes(status);
}

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}
