import type { z } from "zod";
import type { TaskEntityRef, TaskRow } from "../../../db/schema/index";
import type { TaskLogLevel } from "../../../../durable-objects/task-state.do";
import type { Actor, RequestContext } from "../../access";

/** Operation classes that run on the TASKS queue (SPEC §3 Task template `operation_class`). */
export const OPERATION_CLASSES = ["preview", "tech-fields", "copy", "purge", "export", "reindex", "metadata-csv", "library-move"] as const;
export type OperationClass = (typeof OPERATION_CLASSES)[number];

/**
 * A failure that retrying cannot fix (a corrupt file, a group that is gone): the task ends as error at once instead
 * of retrying. Any other exception is treated as transient and retried with backoff.
 */
export class PermanentTaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentTaskError";
  }
}

/** What an operation sees while it runs. */
export interface OperationContext<O> {
  rc: RequestContext;
  task: TaskRow;
  options: O;
  /** the task's owner as an actor (access checks run as the owner), or null for system tasks */
  owner: Actor | null;
  log(level: TaskLogLevel, message: string): Promise<void>;
}

/** The answer of one step: the new resume state, and whether the operation is complete. */
export interface StepResult<S> {
  state: S;
  done: boolean;
  /** 0–100 */
  progress: number;
  info?: string | null;
  /** when done: the task result (JSON) */
  result?: Record<string, unknown>;
  /** when done: a Russian summary of items that failed; the task then ends as error (after finishing the others) */
  failed?: string | null;
}

/**
 * What creating a task of an operation class needs (validating, authorising, naming it): the API Worker's half.
 * Kept apart from the steps (`TaskOperation`) so that an operation whose steps decode files (preview, tech-fields)
 * is known to the API Worker without it linking a decoder (decision 032).
 */
export interface OperationSpec<O = Record<string, unknown>> {
  name: OperationClass;
  /** entity types the operation accepts in `entities` */
  entityTypes: readonly TaskEntityRef["type"][];
  /** validates (and fills defaults of) the options: template setup merged with the caller's options */
  options: z.ZodType<O>;
  /** extra checks when the task is enqueued (e.g. rights on the copy's target group); throws AppError */
  authorize?(rc: RequestContext, actor: Actor, options: O, entities: TaskEntityRef[]): Promise<void>;
  /** the display name of a new task */
  title(entities: TaskEntityRef[], names: Map<string, string>): string;
}

/**
 * One operation class. It runs in steps (each short: one asset, one chunk) so the consumer can check in with the
 * task's Durable Object between steps; its state is JSON saved in the task row, so a paused, yielded or retried
 * task resumes where it stopped. Steps must be safe to repeat (the last one may run again after a crash).
 */
export interface TaskOperation<O = Record<string, unknown>, S = Record<string, unknown>> extends OperationSpec<O> {
  /** where a fresh run starts */
  start(ctx: OperationContext<O>): Promise<S>;
  step(ctx: OperationContext<O>, state: S): Promise<StepResult<S>>;
  /**
   * Every run died on the item at `state` (the platform ended it: the media Worker's CPU limit, or memory) and no
   * step could catch it: record that item's stages as failed with `reason` and answer the state past it, so the
   * other items still run. Without it such a task ends as error.
   */
  skipStuckItem?(ctx: OperationContext<O>, state: S, reason: string): Promise<S>;
}

/** Progress of the `index`-th of `total` items, as a percentage with one decimal. */
export function percent(index: number, total: number): number {
  if (total <= 0) return 100;
  return Math.min(100, Math.round((index / total) * 1000) / 10);
}
