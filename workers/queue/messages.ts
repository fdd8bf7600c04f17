import { z } from "zod";

/** Body of every message on the TASKS queue; operation classes add variants here. */
export const TaskMessageSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("cleanup-sessions"), olderThanDays: z.number().int().min(1).max(365).default(7) }),
]);

export type TaskMessage = z.infer<typeof TaskMessageSchema>;
