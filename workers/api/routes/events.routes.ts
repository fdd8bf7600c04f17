import { createRoute, z } from "@hono/zod-openapi";
import { listEvents } from "../../services/events";
import { uploadDecode } from "../../services/tasks";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

const EventSchema = z
  .object({
    seq: z.number().int(),
    time: z.string(),
    type: z.string().openapi({ example: "asset.uploaded" }),
    entity_type: z.string(),
    entity_id: z.string(),
    owner: z.string().nullable(),
    actor: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi("GlobalEvent");

const EventTypeSchema = z.string().regex(/^[a-z_]+(\.[a-z_]+|\.\*)$/, "ожидается тип события, например asset.uploaded или asset.*");

const EventListQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0).openapi({ description: "seq of the last event already read" }),
  take: z.coerce.number().int().min(1).max(500).default(100),
  types: z
    .preprocess(
      (v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => String(s).split(",")).filter(Boolean)),
      z.array(EventTypeSchema).max(50).optional(),
    )
    .openapi({
      type: "string",
      description: "comma-separated event types; `asset.*` matches every asset event",
      pattern: String.raw`^[a-z_]+(?:\.[a-z_]+|\.\*)(?:,[a-z_]+(?:\.[a-z_]+|\.\*)){0,49}$`,
    }),
});

/** Global events and worker task decoding (SPEC §7 Storage and worker). */
export const eventsRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/global-events/list",
      tags: ["Events"],
      summary: "Changes to assets, groups, tags and fields, oldest first, after a seq",
      description: "Administrators read every event, others the events about entities they own. Page with `after` = `next_after`.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: EventListQuerySchema },
      responses: {
        200: json(z.object({ events: z.array(EventSchema), next_after: z.number().int() }).openapi("GlobalEventPage"), "Events"),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => c.json(await listEvents(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/worker-task/upload-decode/{task}",
      tags: ["Tasks"],
      summary: "The source bytes of a task for a worker (SPEC Worker upload-complete)",
      description: "The variant the task was made for, else the main variant of its first asset's latest version. Needs read on the task.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ task: IdSchema.openapi({ param: { name: "task", in: "path" } }) }) },
      responses: {
        200: json(
          z
            .object({
              job_id: z.string(),
              asset_id: z.string(),
              asset_version: z.number().int(),
              asset_variant_id: z.string(),
              storage_id: z.string(),
              storage_path: z.string(),
              mime_type: z.string(),
              checksum: z.string(),
              checksum_alg: z.literal("sha256"),
              file_name: z.string(),
              file_size: z.number().int(),
            })
            .openapi("WorkerTaskSource"),
          "Source",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await uploadDecode(c.var.rc, c.var.actor, c.req.valid("param").task), 200),
  );
