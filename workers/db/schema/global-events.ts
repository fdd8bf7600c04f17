import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Every change to assets, groups, tags and fields, appended in the same batch as the change (GET
 * /api/global-events/list; automations trigger on them). `seq` orders events and is the paging cursor.
 */
export const globalEvents = sqliteTable(
  "global_events",
  {
    seq: integer("seq", { mode: "number" }).primaryKey({ autoIncrement: true }),
    /** random id given when the event is built, so the dispatcher can tell whether its batch committed */
    eventId: text("event_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    /** dotted name, e.g. `asset.created`, `group.moved`, `tag.attached`, `field.changed` */
    type: text("type").notNull(),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    /** owner of the entity when the event happened: who (besides administrators) may read the event */
    ownerId: text("owner_id"),
    actorId: text("actor_id"),
    /** JSON details of the change (names, group ids, tag ids …) */
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** null while the outbox dispatcher still has to hand the event to automations (decision 024) */
    deliveredAt: integer("delivered_at", { mode: "number" }),
    /** the automation run whose action made the change, and its chain depth (loops stop at the limit) */
    causeTaskId: text("cause_task_id"),
    causeDepth: integer("cause_depth", { mode: "number" }),
  },
  (t) => [
    uniqueIndex("global_events_event_id_unique").on(t.eventId),
    index("global_events_owner_idx").on(t.ownerId, t.seq),
    index("global_events_entity_idx").on(t.entityId, t.seq),
    index("global_events_undelivered_idx").on(t.seq).where(sql`${t.deliveredAt} is null`),
  ],
);

export type GlobalEventRow = typeof globalEvents.$inferSelect;
