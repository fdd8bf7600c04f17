import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/** SPEC §4 task statuses; the transitions between them are in workers/services/tasks/task-status.ts. */
export const TASK_STATUSES = ["none", "inqueue", "running", "paused", "canceled", "done", "error"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** An entity a task works on or produces (SPEC entity types). */
export interface TaskEntityRef {
  id: string;
  type: "asset" | "group" | "variant" | "user" | "task";
}

/**
 * One background task (SPEC §3 Task). D1 is the source of truth the queue consumer claims work from (highest
 * priority first); the live log and progress of a task are held by its TaskStateDO and mirrored here.
 */
export const tasks = sqliteTable(
  "tasks",
  {
    /** job_id */
    id: idColumn(),
    /** sequential number shown to people, unique across the product */
    jobNum: integer("job_num", { mode: "number" }).notNull(),
    templateId: text("template_id"),
    /** the template's name when the task was made */
    template: text("template"),
    operationClass: text("operation_class").notNull(),
    /** display name, e.g. "Превью: photo.jpg" */
    name: text("name").notNull(),
    /** who the task runs for; null for system tasks (seen by administrators only) */
    ownerId: text("owner_id"),
    affected: text("affected", { mode: "json" }).$type<TaskEntityRef[]>().notNull(),
    srcEntity: text("src_entity"),
    dstEntity: text("dst_entity"),
    /** the operation's options (validated by its class on enqueue) */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** which consumer run holds the task (set on claim) */
    workerInfo: text("worker_info"),
    /** not claimed before this time (retry backoff, scheduled runs) */
    scheduleTime: integer("schedule_time", { mode: "number" }).notNull(),
    startTime: integer("start_time", { mode: "number" }),
    stopTime: integer("stop_time", { mode: "number" }),
    /** 0–100 */
    progress: real("progress").notNull().default(0),
    progressInfo: text("progress_info"),
    status: text("status", { enum: TASK_STATUSES }).notNull(),
    /** 1–10, higher runs first */
    priority: integer("priority", { mode: "number" }).notNull().default(5),
    /** failed runs so far (retries with backoff until the limit, then error) */
    attempts: integer("attempts", { mode: "number" }).notNull().default(0),
    /** where the operation resumes (JSON, operation-specific) */
    cursor: text("cursor", { mode: "json" }).$type<Record<string, unknown>>(),
    /** the operation's answer when done (JSON), e.g. an export's object key */
    result: text("result", { mode: "json" }).$type<Record<string, unknown>>(),
    /** the last error message (also in the log) */
    error: text("error"),
    /** last sign of life of the run holding the task */
    heartbeat: integer("heartbeat", { mode: "number" }),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    mtime: integer("mtime", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("tasks_job_num_unique").on(t.jobNum),
    // The claim query: runnable rows by priority, then age.
    index("tasks_claim_idx")
      .on(t.priority, t.jobNum)
      .where(sql`status = 'inqueue'`),
    index("tasks_owner_idx").on(t.ownerId, t.jobNum),
    index("tasks_status_idx").on(t.status, t.jobNum),
    index("tasks_src_idx").on(t.srcEntity),
  ],
);

export type TaskRow = typeof tasks.$inferSelect;

/** A named operation setup people pick when starting work (SPEC §3 Task template); built-ins have no owner. */
export const taskTemplates = sqliteTable(
  "task_templates",
  {
    id: idColumn(),
    name: text("name").notNull(),
    operationClass: text("operation_class").notNull(),
    /** default options of the operation (a profile) */
    setup: text("setup", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    ownerId: text("owner_id"),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    mtime: integer("mtime", { mode: "number" }).notNull(),
  },
  (t) => [index("task_templates_class_idx").on(t.operationClass)],
);

export type TaskTemplateRow = typeof taskTemplates.$inferSelect;
