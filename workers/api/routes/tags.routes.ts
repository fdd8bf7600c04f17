import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ru } from "../../../shared/i18n/ru";
import { createTag, deleteTag, listTags, listTagsByFilter, listTagsByIds, renameTag } from "../../services/metadata";
import { globalChange, refreshCopiesSoon, writeWhereItLives } from "../library-place";
import { carriedInShards, countsInShards, readRouted } from "../library-reads";
import type { AppEnv } from "../types";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

// Control characters (C0, DEL, C1) never belong in a name.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** A tag name: 1–100 characters after trimming, no control characters. Shared by the tag forms in the browser. */
export const TagNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v), ru.catalog.nameControlChars)
  .check(visibleName)
  .openapi({ example: "Интервью", pattern: TRIMMED_TEXT_PATTERN });

export const TagSchema = z.object({ tag_id: z.string(), tag_name: z.string() }).openapi("Tag");
export const TagWithCountSchema = z
  .object({
    tag_id: z.string(),
    tag_name: z.string(),
    count: z.number().int().openapi({ description: "assets and groups carrying the tag" }),
  })
  .openapi("TagWithCount");

/** At most this many ids per list request. */
const MAX_IDS = 500;

export const TagListQuerySchema = z.object({
  q: z.string().max(100).optional().openapi({ description: "part of the name, case-insensitive" }),
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(100),
});

export const TagIdsSchema = z.object({ ids: z.array(IdSchema).max(MAX_IDS) }).openapi("TagIds");

export const TagFilterSchema = z
  .object({
    q: z.string().max(100).optional(),
    entity_type: z.enum(["asset", "group"]).optional(),
    entity_ids: z.array(IdSchema).max(MAX_IDS).optional(),
    skip: z.number().int().min(0).max(10_000_000).default(0),
    take: z.number().int().min(1).max(500).default(100),
  })
  .openapi("TagFilter");

export const TagCreateSchema = z.object({ tag_name: TagNameSchema }).openapi("TagCreate");

export const TaggingSchema = z
  .object({
    tag_ids: z.array(IdSchema).min(1).max(100),
    entities: z
      .array(z.object({ id: IdSchema, type: z.enum(["asset", "group"]) }))
      .min(1)
      .max(MAX_IDS),
  })
  .openapi("Tagging");

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/** SPEC §7 tags calls, plus attach/detach and the tags of one entity. */
/**
 * Tags put on or taken off files and folders, where their library lives (decision 043, «Writes»): all of them in one
 * switched library run in its shard; spread over libraries with one of them switched, 409 (not built).
 */
function writeTagging(c: Context<AppEnv>, name: "attachTags" | "detachTags", input: z.infer<typeof TaggingSchema>) {
  const [first, ...rest] = input.entities.map((e) => e.id);
  return writeWhereItLives(c, first, name, [input], { named: { tags: input.tag_ids }, sameLibrary: rest });
}

export const tagsRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/list",
      tags: ["Tags"],
      summary: "Tags by name, each with the number of entities carrying it",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: TagListQuerySchema },
      responses: { 200: json(z.array(TagWithCountSchema), "Tags"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listTags(c.var.rc, c.var.actor, c.req.valid("query"), countsInShards(c.var, "tagCounts")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/list-by-ids",
      tags: ["Tags"],
      summary: "The known tags among the given ids",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TagIdsSchema } } } },
      responses: { 200: json(z.array(TagWithCountSchema), "Tags"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await listTagsByIds(c.var.rc, c.var.actor, c.req.valid("json").ids, countsInShards(c.var, "tagCounts")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/list-by-filter",
      tags: ["Tags"],
      summary: "Tags matching a name fragment and/or carried by the given entities",
      description: "Only entities the caller may read are considered.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TagFilterSchema } } } },
      responses: { 200: json(z.array(TagWithCountSchema), "Tags"), ...errorResponses(400, 401, 415) },
    }),
    async (c) =>
      c.json(
        await listTagsByFilter(c.var.rc, c.var.actor, c.req.valid("json"), {
          counts: countsInShards(c.var, "tagCounts"),
          carried: carriedInShards(c.var),
        }),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create",
      tags: ["Tags"],
      summary: "Add a tag to the shared vocabulary",
      description: "Any signed-in user may add tags. 409 when the name exists, case-insensitively.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TagCreateSchema } } } },
      responses: { 200: json(TagSchema, "Created"), ...errorResponses(400, 401, 409, 415) },
    }),
    async (c) => c.json(await createTag(c.var.rc, c.var.actor, c.req.valid("json").tag_name), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/change/{id}",
      tags: ["Tags"],
      summary: "Rename a tag (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: TagCreateSchema } } } },
      responses: { 200: json(TagSchema, "Renamed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const renamed = await renameTag(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").tag_name);
      refreshCopiesSoon(c);
      return c.json(renamed, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/delete/{id}",
      tags: ["Tags"],
      summary: "Delete a tag and remove it from every entity (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(z.object({ tag_id: z.string(), detached: z.number().int() }), "Deleted"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => c.json(await deleteTag(c.var.rc, c.var.actor, c.req.valid("param").id, globalChange(c)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/attach",
      tags: ["Tags"],
      summary: "Put tags on assets and groups, all or nothing",
      description: "Needs update rights on every entity; one unknown tag or entity, or one entity without rights, changes nothing.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TaggingSchema } } } },
      responses: { 200: json(z.object({ changed: z.number().int() }), "Pairs added"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await writeTagging(c, "attachTags", c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/detach",
      tags: ["Tags"],
      summary: "Remove tags from assets and groups, all or nothing",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: TaggingSchema } } } },
      responses: { 200: json(z.object({ changed: z.number().int() }), "Pairs removed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await writeTagging(c, "detachTags", c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/for-entity/{id}",
      tags: ["Tags"],
      summary: "The tags of an asset or group",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.array(TagSchema), "Tags"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "tagsForEntity", [c.req.valid("param").id]), 200),
  );
