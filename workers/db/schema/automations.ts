import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, idColumn, timestamps } from "../columns";

/**
 * A user-defined workflow (SPEC §7 udwf): a trigger, conditions on the asset and a list of actions. Each run is an
 * `AUTOMATIONS` Workflow instance and a task (template 'automation'). `trigger_type` is a column so the event hook
 * and the schedule check each read only the workflows that can fire.
 */
export const automations = sqliteTable(
  "automations",
  {
    id: idColumn(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    enabled: bool("enabled").notNull().default(false),
    triggerType: text("trigger_type").notNull(),
    /** the trigger as validated by udwf/setup.ts `TriggerSchema` (JSON) */
    trigger: text("trigger", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    conditions: text("conditions", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
    actions: text("actions", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
    /** key of the HMAC-SHA256 signature on webhook calls (hex) */
    secret: text("secret").notNull(),
    /** schedule triggers: when the cron expression fires next (epoch ms) */
    nextRunAt: integer("next_run_at", { mode: "number" }),
    lastRunAt: integer("last_run_at", { mode: "number" }),
    runs: integer("runs", { mode: "number" }).notNull().default(0),
    ownerId: text("owner_id").notNull(),
    ...timestamps,
  },
  (t) => [
    index("automations_trigger_idx").on(t.triggerType, t.enabled),
    index("automations_due_idx")
      .on(t.nextRunAt)
      .where(sql`${t.enabled} = 1 and ${t.triggerType} = 'schedule'`),
  ],
);

export type AutomationRow = typeof automations.$inferSelect;
