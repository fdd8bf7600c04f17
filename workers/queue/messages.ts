import { z } from "zod";
import { ID_PATTERN } from "../lib/ids";

const Id = z.string().regex(ID_PATTERN);

/** Permanent deletion of a trashed group subtree (DELETE /api/group/purge/{id}); it re-queues itself in chunks. */
export const PurgeGroupMessageSchema = z.object({
  op: z.literal("purge-group"),
  groupId: Id,
  /** who asked for the purge (for the log) */
  actorId: Id,
  /** asset memberships or groups handled per chunk */
  chunkSize: z.number().int().min(1).max(500).default(100),
  /** chunks per message before the operation queues its continuation */
  budget: z.number().int().min(1).max(100).default(20),
});

/** Body of every message on the TASKS queue; operation classes add variants here. */
export const TaskMessageSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("cleanup-sessions"), olderThanDays: z.number().int().min(1).max(365).default(7) }),
  PurgeGroupMessageSchema,
]);

/** A message as the consumer runs it (defaults filled in). */
export type TaskMessage = z.infer<typeof TaskMessageSchema>;
/** A message as a producer may send it (fields with defaults may be left out). */
export type TaskMessageInput = z.input<typeof TaskMessageSchema>;
export type PurgeGroupMessage = z.infer<typeof PurgeGroupMessageSchema>;
