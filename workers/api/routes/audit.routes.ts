import { createRoute, z } from "@hono/zod-openapi";
import { listAudit } from "../../services/access";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";

export const AuditQuerySchema = z.object({
  action: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, "ожидается имя действия, например auth.login или auth.*")
    .max(100)
    .optional()
    .openapi({ description: "exact action (`auth.login`) or a family (`auth.*`)", example: "auth.*" }),
  actor: IdSchema.optional().openapi({ description: "id of the acting user" }),
  entity: IdSchema.optional().openapi({
    description:
      "history of one file or folder: entries about it and (a folder) about the files and sub-folders that were in it. Open to whoever holds `acl` on it; 404 otherwise",
  }),
  from: z.iso.datetime({ offset: true }).optional().openapi({ description: "entries at or after this time (ISO 8601)" }),
  to: z.iso.datetime({ offset: true }).optional().openapi({ description: "entries at or before this time (ISO 8601)" }),
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(50),
});

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    ctime: z.string(),
    action: z.string().openapi({
      description:
        "auth.login, auth.login_failed, auth.login_locked, auth.logout, auth.sso_login, auth.token_exchange, user.create, user.update, user.disable, user.enable, user.password_change, user.delete, robot_token.create, robot_token.revoke, the access rule actions, and file and folder events: asset.upload, asset.version, asset.restore, asset.rename, asset.update, asset.move, asset.delete, asset.purge, asset.download, asset.tags, asset.fields, asset.share and the same group.* (group.create instead of upload/version); their details hold `name` (at the time), `channel` (app, api, link, zip, wopi) and `ua`",
    }),
    actor_id: z.string().nullable(),
    actor_name: z.string().nullable(),
    actor_login: z.string().nullable(),
    object_type: z.string().nullable(),
    object_id: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
    ip: z.string().nullable(),
    object_name: z.string().nullable().openapi({ description: "file and folder events: its name at the time of the entry" }),
    names: z
      .record(z.string(), z.object({ type: z.enum(["user", "group", "asset"]), name: z.string() }))
      .openapi({ description: "names of the users, folders and files the entry mentions (object, ids in details) that still exist" }),
  })
  .openapi("AuditEntry");

/** The audit log for administrators; the history of a file or folder for whoever manages its rights. */
export const auditRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Audit"],
    summary: "Security-relevant actions, newest first (administrators)",
    description: "Filters combine. The total of matching entries is in `X-Total-Count`.",
    security: bearerSecurity,
    middleware: [requireAuth] as const,
    request: { query: AuditQuerySchema },
    responses: {
      200: {
        description: "Entries",
        headers: { "X-Total-Count": { schema: { type: "integer" }, description: "matching entries over all pages" } },
        content: { "application/json": { schema: z.array(AuditEntrySchema) } },
      },
      ...errorResponses(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const { items, total } = await listAudit(c.var.rc, c.var.actor, {
      action: q.action,
      actorId: q.actor,
      entity: q.entity,
      from: q.from ? Date.parse(q.from) : undefined,
      to: q.to ? Date.parse(q.to) : undefined,
      skip: q.skip,
      take: q.take,
    });
    c.header("X-Total-Count", String(total));
    return c.json(items, 200);
  },
);
