import { z } from "zod";
import { ID_PATTERN } from "../lib/ids";

const Id = z.string().regex(ID_PATTERN);

/** Permanent deletion of a trashed group subtree (DELETE /api/group/purge/{id}); it re-queues itself in chunks. */
export const PurgeGroupMessageSchema = z.object({
  op: z.literal("purge-group"),
  groupId: Id,
  /** who asked for the purge (for the log); absent when the retention purge (`purge-trash`) queued it */
  actorId: Id.optional(),
  /** asset memberships or groups handled per chunk */
  chunkSize: z.number().int().min(1).max(500).default(100),
  /** chunks per message before the operation queues its continuation */
  budget: z.number().int().min(1).max(100).default(20),
});

/** Where a paged run resumes: after the item deleted at `at` with id `id` (the order is `deleted_at, id`). */
const ResumeSchema = z.object({ at: z.number().int(), id: Id });

/**
 * The retention purge, queued by the cron trigger: trashed groups (the top of each expired subtree, handed to
 * `purge-group`) and trashed assets deleted more than `TRASH_RETENTION_DAYS` ago. It works in chunks and queues its
 * own continuation after `budget` chunks.
 */
export const PurgeTrashMessageSchema = z.object({
  op: z.literal("purge-trash"),
  /** groups or assets handled per chunk (one `sendBatch` of purge-group messages holds at most 100) */
  chunkSize: z.number().int().min(1).max(100).default(100),
  /** chunks per message before the operation queues its continuation */
  budget: z.number().int().min(1).max(100).default(10),
  /**
   * Continuations only: the cutoff the first run chose, so a run purges one fixed set. The operation never uses a
   * later cutoff than now minus the retention period, whatever a message says.
   */
  before: z.number().int().optional(),
  /** continuations only: the part the run is in (groups first, then assets) and where it resumes */
  phase: z.enum(["groups", "assets"]).default("groups"),
  after: ResumeSchema.optional(),
  /** one library that lives in its shard, purged over it (decision 043); the catalog's run queues one per library */
  library: Id.optional(),
});

/**
 * Aborts the multipart upload of a variant whose browser went away: the per-user upload queue (UploadQueueDO) sends
 * it when an item goes stale. Aborting an upload the storage no longer knows is not an error.
 */
export const AbortUploadMessageSchema = z.object({
  op: z.literal("abort-upload"),
  variantId: Id,
  uploadId: z.string().min(1).max(1024),
});

/**
 * Computes the SHA-256 of a multipart upload that storage has assembled (variant 'saving'), then commits its version.
 * Objects too large for one run are hashed in segments, the hash state saved in D1, each run queuing the next.
 */
export const HashVariantMessageSchema = z.object({ op: z.literal("hash-variant"), variantId: Id });

/**
 * A committed variant to process: queued after every upload commit; it creates the `preview` and `tech-fields` tasks
 * of the asset (see workers/services/tasks/task-runner.ts).
 */
export const ProcessVariantMessageSchema = z.object({
  op: z.literal("process-variant"),
  variantId: Id,
  assetId: Id,
  version: z.number().int().min(1),
});

/**
 * Upload housekeeping, queued by the cron trigger: aborts multipart uploads with no part stored for `olderThanHours`,
 * re-queues hashing that died, forgets aborted uploads after a week, and drops uploads that never started a multipart
 * upload and are older than `olderThanHours` (with any object under their keys). Queues its continuation after `limit`.
 */
export const AbortStaleMultipartMessageSchema = z.object({
  op: z.literal("abort-stale-multipart"),
  olderThanHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  limit: z.number().int().min(1).max(500).default(100),
});

/**
 * A wake-up for the task runner: D1 is the source of truth for what runs next, so the consumer claims the highest
 * priority runnable task, not necessarily `taskId` (the task whose change sent the message; used for the log and
 * for the dead-letter path).
 */
export const TaskWakeupMessageSchema = z.object({ op: z.literal("task-wakeup"), taskId: Id.optional() });

/**
 * Wakes the outbox dispatcher (decision 024): sent after a batch holding events an automation may react to has
 * committed. It names nothing: the dispatcher delivers whatever the outbox holds, so a duplicate or late message
 * only finds less to do.
 */
export const DeliverEventsMessageSchema = z.object({ op: z.literal("deliver-events") });

/** Wakes the notification dispatcher (decision 035): like `deliver-events`, it names nothing and may repeat. */
export const DeliverNotificationsMessageSchema = z.object({ op: z.literal("deliver-notifications") });

/** Body of every message on the TASKS queue; operation classes add variants here. */
export const TaskMessageSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("cleanup-sessions"), olderThanDays: z.number().int().min(1).max(365).default(7) }),
  PurgeGroupMessageSchema,
  PurgeTrashMessageSchema,
  AbortUploadMessageSchema,
  HashVariantMessageSchema,
  ProcessVariantMessageSchema,
  AbortStaleMultipartMessageSchema,
  TaskWakeupMessageSchema,
  DeliverEventsMessageSchema,
  DeliverNotificationsMessageSchema,
]);

/** A message as the consumer runs it (defaults filled in). */
export type TaskMessage = z.infer<typeof TaskMessageSchema>;
/** A message as a producer may send it (fields with defaults may be left out). */
export type TaskMessageInput = z.input<typeof TaskMessageSchema>;
export type PurgeGroupMessage = z.infer<typeof PurgeGroupMessageSchema>;
export type PurgeTrashMessage = z.infer<typeof PurgeTrashMessageSchema>;
export type AbortUploadMessage = z.infer<typeof AbortUploadMessageSchema>;
export type HashVariantMessage = z.infer<typeof HashVariantMessageSchema>;
export type ProcessVariantMessage = z.infer<typeof ProcessVariantMessageSchema>;
export type AbortStaleMultipartMessage = z.infer<typeof AbortStaleMultipartMessageSchema>;
export type TaskWakeupMessage = z.infer<typeof TaskWakeupMessageSchema>;
