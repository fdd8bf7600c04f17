import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The outbox's delivery record (decision 024): one row per event and workflow it fired, written in the same batch
 * as the run's task, so the primary key makes "each trigger fires once" a property of the database.
 */
export const eventDeliveries = sqliteTable(
  "event_deliveries",
  {
    eventId: text("event_id").notNull(),
    workflowId: text("workflow_id").notNull(),
    /** the run's task (= its Workflow instance id); null when the chain-depth limit stopped the run */
    taskId: text("task_id"),
    /** JSON: what the hand-over step does (create the instance with these params, or log the stop) */
    handover: text("handover", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    /** set once the hand-over is done; rows still null are finished by the next dispatch */
    handedAt: integer("handed_at", { mode: "number" }),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.workflowId] }),
    index("event_deliveries_pending_idx")
      .on(t.ctime)
      .where(sql`${t.handedAt} is null`),
  ],
);
