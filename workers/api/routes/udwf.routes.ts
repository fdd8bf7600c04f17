import { createRoute, z } from "@hono/zod-openapi";
import {
  createWorkflow,
  deleteWorkflow,
  executeWorkflow,
  getWorkflow,
  listWorkflows,
  patchWorkflow,
  patchWorkflowSetup,
  setWorkflowEnabled,
  actionCatalogue,
  triggerForm,
} from "../../services/automations";
import {
  WorkflowDraftCreateSchema,
  WorkflowMetaSchema,
  WorkflowSetupSchema,
  ActionSchema,
  ConditionSchema,
  TriggerSchema,
} from "../../services/automations/pure";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema } from "../schemas";

const FormFieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(["tag", "group", "field", "template", "text", "number", "url", "select", "boolean", "cron"]),
    label: z.string(),
    required: z.boolean(),
    options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    depends_on: z.string().optional(),
    help: z.string().optional(),
  })
  .openapi("UdwfFormField");

const ActionEntrySchema = z
  .object({ type: z.string(), name: z.string(), description: z.string(), needs_asset: z.boolean(), form: z.array(FormFieldSchema) })
  .openapi("UdwfAction");
const CatalogueEntrySchema = z.object({ type: z.string(), name: z.string(), description: z.string(), form: z.array(FormFieldSchema) });
const TriggerFormSchema = z
  .object({ triggers: z.array(CatalogueEntrySchema), conditions: z.array(CatalogueEntrySchema) })
  .openapi("UdwfTriggerForm");

export const WorkflowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    trigger: TriggerSchema.nullable().openapi({ description: "null for a draft created without a trigger" }),
    conditions: z.array(ConditionSchema),
    actions: z.array(ActionSchema),
    webhook_secret: z.string().openapi({ description: "HMAC-SHA256 key of the X-Mam-Signature header on webhook calls" }),
    next_run_at: z.string().nullable(),
    last_run_at: z.string().nullable(),
    runs: z.number().int(),
    owner: z.string(),
    ctime: z.string(),
    mtime: z.string(),
  })
  .openapi("Workflow");

const WorkflowPatchSchema = z
  .object({
    name: WorkflowMetaSchema.shape.name.optional(),
    description: z.string().max(2000).optional(),
    enabled: z.boolean().optional(),
    rotate_secret: z.boolean().optional().openapi({ description: "issue a new webhook signing key" }),
  })
  .strict()
  .openapi("WorkflowPatch");

const EnableSchema = z.object({ enabled: z.boolean() }).openapi("WorkflowEnable");
const ExecuteSchema = z
  .object({ asset_id: IdSchema.optional().openapi({ description: "the file the run is about; its conditions must hold" }) })
  .openapi("WorkflowExecute");
const StartedSchema = z.object({ task_id: z.string(), job_num: z.number().int() }).openapi("WorkflowRunStarted");

const ListQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).max(1_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(100),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

/** User-defined workflows (SPEC §7): the catalogue for the editor, CRUD, enable/disable and manual runs. Administrators only. */
export const udwfRoutes = createRouter()
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "get",
      path: "/actions",
      summary: "The action catalogue with the form of each action",
      responses: { 200: json(z.array(ActionEntrySchema), "Actions"), ...errorResponses(401) },
    }),
    (c) => c.json(actionCatalogue(), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "get",
      path: "/trigger-form",
      summary: "Triggers and conditions with their forms",
      responses: { 200: json(TriggerFormSchema, "Triggers and conditions"), ...errorResponses(401) },
    }),
    (c) => c.json(triggerForm(), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "get",
      path: "/workflows",
      summary: "Every automation, newest first (administrators)",
      request: { query: ListQuerySchema },
      responses: {
        200: json(z.object({ total: z.number().int(), items: z.array(WorkflowSchema) }), "Automations"),
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await listWorkflows(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/workflow",
      summary: "Create an automation, or a named draft (administrators)",
      description:
        "Setup errors answer 400 naming the field, e.g. `Поле «trigger.cron»: …` or `Поле «actions.0.url»: …`. SPEC sets the trigger, conditions and actions with workflow-setup: a body with only `name` (and `description`) creates a disabled draft (trigger null, no actions), runnable by execute. Enabling a workflow without a trigger or actions (here or later) answers 400 `Поле «trigger»: …` / `Поле «actions»: …`.",
      request: body(WorkflowDraftCreateSchema.openapi("WorkflowCreate", { example: { name: "Превью для новых видео", description: "" } })),
      responses: { 200: json(WorkflowSchema, "Created"), ...errorResponses(400, 401, 403, 415) },
    }),
    async (c) => c.json(await createWorkflow(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "get",
      path: "/workflow/{id}",
      summary: "One automation (administrators)",
      request: { params: IdParamsSchema },
      responses: { 200: json(WorkflowSchema, "Automation"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getWorkflow(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "patch",
      path: "/workflow/{id}",
      summary: "Rename, describe, enable or disable an automation, or rotate its webhook key (administrators)",
      request: { params: IdParamsSchema, ...body(WorkflowPatchSchema) },
      responses: { 200: json(WorkflowSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await patchWorkflow(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "delete",
      path: "/workflow/{id}",
      summary: "Delete an automation (runs in flight finish) (administrators)",
      request: { params: IdParamsSchema },
      responses: { 200: json(z.object({ id: z.string() }), "Deleted"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await deleteWorkflow(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "patch",
      path: "/workflow-setup/{id}",
      summary: "Replace the trigger, conditions and actions (administrators)",
      request: { params: IdParamsSchema, ...body(WorkflowSetupSchema) },
      responses: { 200: json(WorkflowSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await patchWorkflowSetup(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/workflow-enable-disable/{id}",
      summary: "Switch an automation on or off (administrators)",
      request: { params: IdParamsSchema, ...body(EnableSchema) },
      responses: { 200: json(WorkflowSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await setWorkflowEnabled(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").enabled), 200),
  )
  .openapi(
    createRoute({
      tags: ["Automations"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/execute/{id}",
      summary: "Run an automation now, optionally about one file (administrators)",
      description: "Starts a Workflow instance and answers its task (visible in /jobs). 409 when the file does not meet the conditions.",
      request: { params: IdParamsSchema, body: { required: false, content: { "application/json": { schema: ExecuteSchema } } } },
      responses: { 200: json(StartedSchema, "Started"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await executeWorkflow(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json") ?? {}), 200),
  );
