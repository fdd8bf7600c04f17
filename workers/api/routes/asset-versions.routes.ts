import { createRoute, z } from "@hono/zod-openapi";
import { runWhereItLives, writeWhereItLives } from "../library-place";
import { requireAuth } from "../middleware/require-auth";
import { ErrorSchema, bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";
import {
  MAX_NAMES_PER_CHECK,
  MAX_VERSION_COMMENT,
  deleteVersion,
  namesInGroup,
  restoreVersion,
} from "../../services/library";

/**
 * Version management (issue 13): restore an older version as the newest, delete a version, a version's comment
 * (SPEC §3 Version.desc) — and the name-clash check an upload batch runs before it creates anything.
 * Mounted on /api/asset and /api/group before the routers whose `/{id}` routes would otherwise match.
 */

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

const pathId = (name: string) => IdSchema.openapi({ param: { name, in: "path" } });

/** A version number in a path: 1, 2, 3 … */
const VersionParamSchema = z
  .string()
  .regex(/^\d{1,9}$/, "ожидается номер версии")
  .transform(Number)
  .refine((n) => n >= 1, "номер версии начинается с 1")
  .openapi({ param: { name: "version", in: "path" }, type: "integer", minimum: 1, maximum: 999_999_999, example: 1 });

const VersionParams = z.object({ id: pathId("id"), version: VersionParamSchema });

const RestoreBody = z.object({ version: z.number().int().min(1).max(999_999_999) }).strict().openapi("RestoreVersion", { example: { version: 1 } });

const CommentBody = z
  .object({
    desc: z
      .string()
      .max(MAX_VERSION_COMMENT, `не длиннее ${MAX_VERSION_COMMENT} символов`)
      .nullable()
      .openapi({ description: "the comment; null or an empty text clears it" }),
  })
  .strict()
  .openapi("VersionComment", { example: { desc: "Цветокоррекция по замечаниям заказчика" } });

const NamesBody = z
  .object({
    names: z
      .array(z.string().min(1).max(1000))
      .min(1)
      .max(MAX_NAMES_PER_CHECK)
      .openapi({ description: `file names to look for (up to ${MAX_NAMES_PER_CHECK}); matched case-insensitively` }),
  })
  .strict()
  .openapi("NameCheck", { example: { names: ["Клип.mp4", "Обложка.jpg"] } });

const RestoredSchema = z
  .object({ asset_id: z.string(), version: z.number().int(), version_id: z.string(), restored_from: z.number().int() })
  .openapi("RestoredVersion");

const NameMatchSchema = z
  .object({
    name: z.string().openapi({ description: "the name as asked" }),
    asset_id: z.string(),
    asset_name: z.string().openapi({ description: "the file's name as stored (may differ in case)" }),
    ver: z.number().int().openapi({ description: "its latest version; 0 while it has no bytes" }),
  })
  .openapi("NameMatch");

const conflict = (description: string) => ({ 409: { description, content: { "application/json": { schema: ErrorSchema } } } });

export const assetVersionRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/restore-version/{id}",
      tags: ["Assets"],
      summary: "Make an older version the newest: a NEW version copying it (nothing is lost)",
      description:
        "Needs create on the asset (as uploading a version does). The new version's variants reference the same stored objects as the restored one (copy-on-write); its previews are copied. Its comment says which version it restores.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ id: pathId("id") }), body: jsonBody(RestoreBody) },
      responses: {
        200: json(RestoredSchema, "The new version"),
        ...errorResponses(400, 401, 403, 404, 415),
        ...conflict("The version disappeared meanwhile"),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { version } = c.req.valid("json");
      // Where the file's library lives (decision 043, «Uploads»): previews are copied in storage, rows written there.
      return c.json(await runWhereItLives(c, id, (rc) => restoreVersion(rc, c.var.actor, id, version), { files: [id] }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/version/{id}/{version}",
      tags: ["Assets"],
      summary: "Delete one version with its variants and previews (not the last one)",
      description:
        "Needs delete on the asset. The rows go in one transaction; stored objects no other variant references are deleted after it. The asset's latest version becomes the newest one left.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: VersionParams },
      responses: {
        200: json(z.object({ latest: z.number().int() }), "Deleted; the asset's latest version now"),
        ...errorResponses(400, 401, 403, 404),
        ...conflict("It is the asset's only version"),
      },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await runWhereItLives(c, id, (rc) => deleteVersion(rc, c.var.actor, id, version), { files: [id] }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/version/{id}/{version}",
      tags: ["Assets"],
      summary: "Set or clear a version's comment (desc)",
      description: "Needs update on the asset.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: VersionParams, body: jsonBody(CommentBody) },
      responses: {
        200: json(z.object({ version: z.number().int(), desc: z.string().nullable() }), "Saved"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "setVersionComment", [id, version, c.req.valid("json").desc]), 200);
    },
  );

export const groupNameRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/existing-names/{id}",
    tags: ["Groups"],
    summary: "Which of these file names the group already holds (for an upload's same-name question)",
    description:
      "Needs read on the group. Answers one entry per asked name that a live file of the group the caller may read carries (case-insensitively); the most recently changed file when several do. An index lookup per name, however big the folder.",
    security: bearerSecurity,
    middleware: [requireAuth] as const,
    request: { params: z.object({ id: pathId("id") }), body: jsonBody(NamesBody) },
    responses: { 200: json(z.object({ matches: z.array(NameMatchSchema) }), "Names already taken"), ...errorResponses(400, 401, 404, 415) },
  }),
  async (c) => c.json({ matches: await namesInGroup(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").names) }, 200),
);
