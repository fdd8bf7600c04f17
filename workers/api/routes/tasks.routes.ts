// Over 400 lines on purpose: one router per API resource (STYLE); each /api/tasks call carries its OpenAPI contract inline.
import { createRoute, z } from "@hono/zod-openapi";
import { TASK_STATUSES } from "../../db/schema/tasks";
import { contentDisposition } from "../../lib/content-disposition";
import {
  OPERATION_CLASSES,
  availableProfiles,
  availableTasks,
  commandTask,
  countCurrentTasks,
  enqueueTask,
  getTask,
  listCurrentTasks,
  listTaskNames,
  MAX_PRIORITY,
  MIN_PRIORITY,
  openExport,
  setTaskPriority,
  taskCommands,
  taskLog,
  taskResult,
  taskStatuses,
  taskTemplates,
  type TaskEntityReader,
} from "../../services/tasks";
import { readEachRouted } from "../library-reads";
import { TASK_COMMANDS } from "../../services/tasks/pure";
import { rateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema } from "../schemas";

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

const EntityRefSchema = z
  .object({ id: IdSchema, type: z.enum(["asset", "group"]).openapi({ description: "entity type the operation works on" }) })
  .openapi("TaskEntity");

export const TaskSchema = z
  .object({
    job_id: z.string(),
    job_num: z.number().int(),
    template_id: z.string().nullable(),
    template: z.string().nullable(),
    name: z.string(),
    operation_class: z.string().openapi({ example: "preview" }),
    operation_name: z.string().openapi({ example: "Превью" }),
    owner: z.string().nullable(),
    affected: z.array(z.object({ id: z.string(), type: z.string() })),
    src_entity: z.string().nullable(),
    dst_entity: z.string().nullable(),
    worker_info: z.string().nullable(),
    schedule_time: z.string(),
    start_time: z.string().nullable(),
    stop_time: z.string().nullable(),
    progress: z.number().openapi({ description: "0–100" }),
    progress_info: z.string().nullable(),
    status: z.enum(TASK_STATUSES),
    status_name: z.string().openapi({ example: "Выполняется" }),
    priority: z
      .number()
      .int()
      .openapi({ description: `${MIN_PRIORITY}–${MAX_PRIORITY}, higher runs first` }),
    attempts: z.number().int(),
    error: z.string().nullable(),
    ctime: z.string(),
    mtime: z.string(),
    commands: z.array(z.enum(TASK_COMMANDS)).openapi({ description: "commands legal in the current status" }),
  })
  .openapi("Task");

const TemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    operation_class: z.string(),
    operation_name: z.string(),
    setup: z.record(z.string(), z.unknown()),
    owner: z.string().nullable(),
    disabled: z.boolean(),
  })
  .openapi("TaskTemplate");

/** Comma-separated or repeated query values (`status=running,paused`). */
const listParam = <T extends [string, ...string[]]>(values: T) =>
  z
    .preprocess(
      (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(",")).filter(Boolean)),
      z.array(z.enum(values)).max(20).optional(),
    )
    .openapi({
      type: "string",
      description: `comma-separated: ${values.join(", ")}`,
      pattern: `^(?:${values.join("|")})(?:,(?:${values.join("|")})){0,19}$`,
    });

const TaskFilterQuerySchema = z.object({
  name: z.string().max(200).optional().openapi({ description: "part of the task name, case-insensitive" }),
  status: listParam(TASK_STATUSES as unknown as [string, ...string[]]),
  op: listParam([...OPERATION_CLASSES, "automation"] as [string, ...string[]]),
  asset: IdSchema.optional().openapi({ description: "tasks working on this asset (or group)" }),
});

const TaskListQuerySchema = TaskFilterQuerySchema.extend({
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(200).default(50),
});

/** A task id, a template id or an operation class in a path. */
const XParamsSchema = z.object({
  x: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9-]+$/, "ожидается идентификатор шаблона или класс операции")
    .openapi({ param: { name: "x", in: "path" }, example: "preview" }),
});
const TaskIdParamsSchema = z.object({ taskId: IdSchema.openapi({ param: { name: "taskId", in: "path" } }) });

const EnqueueSchema = z
  .object({
    entities: z.array(EntityRefSchema).min(1).max(500),
    options: z.record(z.string(), z.unknown()).optional().openapi({ description: "operation options, merged over the template's setup" }),
    priority: z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY).optional(),
    schedule_time: z.string().datetime({ offset: true }).optional().openapi({ description: "do not start before this time" }),
  })
  .openapi("EnqueueTask");

const CommandSchema = z
  .object({
    command: z.enum(TASK_COMMANDS),
    options: z.record(z.string(), z.unknown()).optional().openapi({ description: "reserved for command-specific options" }),
  })
  .openapi("TaskCommand");

const PrioritySchema = z.object({ priority: z.number().int().min(MIN_PRIORITY).max(MAX_PRIORITY) }).openapi("TaskPriority");

const LogQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0).openapi({ description: "seq of the last line already read" }),
  take: z.coerce.number().int().min(1).max(1000).default(200),
});

const ExportLinkQuerySchema = z.object({
  u: z.string().max(64).optional(),
  exp: z.string().max(20).optional(),
  sig: z.string().max(200).optional(),
});

/** SPEC §7 Tasks: the task list, templates and profiles, enqueueing, commands, results and logs. */
export const tasksRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/current",
      tags: ["Tasks"],
      summary: "One page of tasks, newest first",
      description: "Administrators see every task, others their own. Filters: name fragment, statuses, operation classes, an asset.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: TaskListQuerySchema },
      responses: { 200: json(z.array(TaskSchema), "Tasks"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listCurrentTasks(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/current/count",
      tags: ["Tasks"],
      summary: "Number of tasks matching the filters",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: TaskFilterQuerySchema },
      responses: { 200: json(z.object({ count: z.number().int() }), "Count"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await countCurrentTasks(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/names",
      tags: ["Tasks"],
      summary: "Distinct task names, for the name filter",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.array(z.string()), "Names"), ...errorResponses(401) },
    }),
    async (c) => c.json(await listTaskNames(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/task-status",
      tags: ["Tasks"],
      summary: "Current state of the given tasks",
      description: "Unknown ids and tasks the caller may not see are left out.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(
        // SPEC §7 sends "a list of ids": a bare JSON array; `{ ids }` is our own form. Both are accepted.
        z
          .union([z.array(IdSchema).max(500), z.object({ ids: z.array(IdSchema).max(500) })])
          .openapi("TaskIds", { example: ["0195f1c2a4b37c0d9e8f1a2b3c4d5e6f"] }),
      ),
      responses: { 200: json(z.array(TaskSchema), "Tasks"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      return c.json(await taskStatuses(c.var.rc, c.var.actor, Array.isArray(input) ? input : input.ids), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/task/{id}",
      tags: ["Tasks"],
      summary: "One task, with live progress while it runs",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(TaskSchema, "Task"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await getTask(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/task-result/{id}",
      tags: ["Tasks"],
      summary: "What a task produced",
      description: "A finished export answers `download_url`, a signed link to the ZIP valid for 24 hours.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(
          z
            .object({
              job_id: z.string(),
              status: z.enum(TASK_STATUSES),
              status_name: z.string(),
              result: z.record(z.string(), z.unknown()).nullable(),
              error: z.string().nullable(),
              download_url: z.string().nullable(),
            })
            .openapi("TaskResult"),
          "Result",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await taskResult(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/export/{id}",
      tags: ["Tasks"],
      summary: "Download the ZIP of an export task (signed link from task-result)",
      request: { params: IdParamsSchema, query: ExportLinkQuerySchema },
      responses: {
        200: { description: "The archive", content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const { object, fileName } = await openExport(c.var.rc, c.req.valid("param").id, c.req.valid("query"));
      return c.body(object.body, 200, {
        "Content-Type": "application/zip",
        "Content-Length": String(object.size),
        "Content-Disposition": contentDisposition(fileName),
        "Cache-Control": "private, no-store",
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/log/{id}",
      tags: ["Tasks"],
      summary: "Log lines of a task, oldest first, after a seq",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: LogQuerySchema },
      responses: {
        200: json(
          z
            .object({
              job_id: z.string(),
              lines: z.array(
                z.object({ seq: z.number().int(), time: z.string(), level: z.enum(["info", "warn", "error"]), message: z.string() }),
              ),
              last_seq: z.number().int(),
              total: z.number().int(),
            })
            .openapi("TaskLog"),
          "Log page",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await taskLog(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/available-tasks",
      tags: ["Tasks"],
      summary: "Templates the caller may start",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.array(TemplateSchema), "Templates"), ...errorResponses(401) },
    }),
    async (c) => c.json(await availableTasks(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/available-profiles/{x}",
      tags: ["Tasks"],
      summary: "Profiles (enabled templates) of an operation class, or of a template's class",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: XParamsSchema },
      responses: { 200: json(z.array(TemplateSchema), "Profiles"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await availableProfiles(c.var.rc, c.var.actor, c.req.valid("param").x), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/task-templates/{x}",
      tags: ["Tasks"],
      summary: "Templates of an operation class (administrators also see disabled ones)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: XParamsSchema },
      responses: { 200: json(z.array(TemplateSchema), "Templates"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await taskTemplates(c.var.rc, c.var.actor, c.req.valid("param").x), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/task-commands/{x}",
      tags: ["Tasks"],
      summary: "Commands legal for a task in its current status",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ x: IdSchema.openapi({ param: { name: "x", in: "path" } }) }) },
      responses: {
        200: json(
          z
            .object({
              job_id: z.string(),
              status: z.enum(TASK_STATUSES),
              commands: z.array(z.object({ command: z.enum(TASK_COMMANDS), title: z.string() })),
              priority: z.boolean().openapi({ description: "whether the priority may still change" }),
            })
            .openapi("TaskCommands"),
          "Commands",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await taskCommands(c.var.rc, c.var.actor, c.req.valid("param").x), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/enqueue-task/{x}",
      tags: ["Tasks"],
      summary: "Start a task from a template id or an operation class",
      description:
        "Needs `execute` on every entity. Operation classes: preview, tech-fields (assets), copy (assets; options.group_id), purge (trashed groups or assets), export (one group; options.recursive), reindex (assets or groups).",
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("enqueue")] as const,
      request: { params: XParamsSchema, ...body(EnqueueSchema) },
      responses: {
        200: json(z.object({ job_id: z.string(), job_num: z.number().int(), status: z.literal("inqueue") }), "Queued"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      // Each folder and file checked where its library lives (decision 051), one call into each shard.
      const read: TaskEntityReader = (entities) =>
        readEachRouted(
          c.var,
          "taskEntities",
          entities,
          (e) => e.id,
          (ids, share) => [ids, share] as const,
        );
      return c.json(await enqueueTask(c.var.rc, c.var.actor, c.req.valid("param").x, c.req.valid("json"), read), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/command/{taskId}",
      tags: ["Tasks"],
      summary: "Pause, resume, cancel or restart a task",
      description: "409 when the command is illegal in the task's status (nothing changes). A running task stops at its next step.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: TaskIdParamsSchema, ...body(CommandSchema) },
      responses: { 200: json(TaskSchema, "Task after the command"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await commandTask(c.var.rc, c.var.actor, c.req.valid("param").taskId, c.req.valid("json").command), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/priority/{taskId}",
      tags: ["Tasks"],
      summary: "Change the priority of an unfinished task",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: TaskIdParamsSchema, ...body(PrioritySchema) },
      responses: { 200: json(TaskSchema, "Task"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await setTaskPriority(c.var.rc, c.var.actor, c.req.valid("param").taskId, c.req.valid("json").priority), 200),
  );

export { EntityRefSchema };
