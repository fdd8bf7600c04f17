import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import {
  changeTemplate,
  createTemplate,
  deleteTemplate,
  listTemplates,
  templatesByIds,
  fieldQuery,
  MAX_BULK_ENTITIES,
} from "../../services/metadata";
import { FIELD_TYPES } from "../../services/metadata/pure";
import { timingDetailAllowed } from "../../lib/server-timing";
import { visibility } from "../../services/access";
import { globalChange, refreshCopiesSoon, writeWhereItLives } from "../library-place";
import { pageWhereItLives, readRouted } from "../library-reads";
import { binaryOrder } from "../../lib/binary-order";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, NON_BLANK_PATTERN, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const NameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v), ru.catalog.nameControlChars)
  .check(visibleName)
  .openapi({ pattern: TRIMMED_TEXT_PATTERN });

const ExtsysSchema = z.string().trim().min(1).max(200).nullable().openapi({ pattern: NON_BLANK_PATTERN });

/** Seconds on the media; null or [start, end]. Bounds against the duration are checked by the service. */
const PtsSchema = z
  .tuple([z.number().finite(), z.number().finite()])
  .nullable()
  .openapi({ example: [12, 47.5], description: "null, or [start, end] in seconds, 0 ≤ start ≤ end ≤ duration" });

export const FieldTemplateSchema = z
  .object({
    field_def_id: z.string(),
    field_type: z.enum(FIELD_TYPES),
    field_setup: z.record(z.string(), z.unknown()),
    field_def_name: z.string(),
    field_priority: z.number().int(),
    field_def_extsys: z.string().nullable(),
    field_def_extsys_key: z.string().nullable(),
  })
  .openapi("FieldTemplate");

export const FieldTemplateCreateSchema = z
  .object({
    field_def_name: NameSchema,
    field_type: z.enum(FIELD_TYPES),
    field_setup: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "per type: required, multiple, hint; text: format, min_length, max_length, options, list_id; number: min, max, integer, unit; date: format, min, max; struct: members; external: url_template",
    }),
    field_priority: z.number().int().min(-1_000_000).max(1_000_000).optional(),
    field_def_extsys: ExtsysSchema.optional(),
    field_def_extsys_key: ExtsysSchema.optional().openapi({ example: "XMP.dc.creator" }),
  })
  .openapi("FieldTemplateCreate");

export const FieldTemplateChangeSchema = FieldTemplateCreateSchema.partial()
  .refine((v) => Object.values(v).some((x) => x !== undefined), ru.catalog.nothingToChange)
  .openapi("FieldTemplateChange", { minProperties: 1 });

export const FieldValueSchema = z
  .object({
    field_id: z.string(),
    entity_id: z.string(),
    entity_type: z.enum(["asset", "group"]),
    def_id: z.string(),
    asset_version: z.number().int().nullable(),
    asset_version_id: z.string().nullable(),
    pts: z.tuple([z.number(), z.number()]).nullable(),
    field_data: z.unknown(),
    ctime: z.string(),
    mtime: z.string(),
  })
  .openapi("FieldValue");

/**
 * `asset_version_id` as SPEC §5 sends it: the version's NUMBER (SPEC identifies versions by number), or our version
 * id (32 hex characters); null or absent for the entity as a whole.
 */
const VersionRefSchema = z
  .union([IdSchema, z.number().int().min(1).max(1_000_000_000)])
  .nullish()
  .openapi({ description: "a version of the asset: its number (1, 2 …) or its id; null or absent for the entity as a whole" });

/** `asset_version`: the version by number (SPEC §3 Entity field value); must name the same version as asset_version_id. */
const VersionNumberSchema = z.number().int().min(1).max(1_000_000_000).nullish().openapi({
  description: "a version of the asset by number (SPEC §3 Version); must name the same version as asset_version_id when both are sent",
});

/**
 * `asset_version_id` of a new value: SPEC §7 lists it among the required fields, so it must be sent — a version
 * (number or id), or an explicit null for the entity as a whole. Absent is a 400 naming the field.
 */
const RequiredVersionRefSchema = z
  .union([IdSchema, z.number().int().min(1).max(1_000_000_000)])
  .nullable()
  .openapi({ description: "required: a version of the asset (its number 1, 2 … or its id), or null for the entity as a whole" });

export const FieldValueCreateSchema = z
  .object({
    def_id: IdSchema,
    asset_version_id: RequiredVersionRefSchema,
    asset_version: VersionNumberSchema,
    data: z.unknown().refine((v) => v !== undefined, ru.errors.requiredField),
    pts: PtsSchema.optional(),
  })
  .openapi("FieldValueCreate", { example: { def_id: "0195f1c2a4b37c0d9e8f1a2b3c4d5e6f", asset_version_id: 1, data: "Интервью" } });

export const FieldValueChangeSchema = z
  .object({
    data: z.unknown().optional(),
    pts: PtsSchema.optional(),
    asset_version_id: VersionRefSchema.openapi({
      description: "moves the value to this version (number or id); null: to the entity as a whole",
    }),
    asset_version: VersionNumberSchema,
  })
  .refine(
    (v) => v.data !== undefined || v.pts !== undefined || v.asset_version_id !== undefined || v.asset_version !== undefined,
    ru.catalog.nothingToChange,
  )
  .openapi("FieldValueChange", { minProperties: 1 });

const csvIds = z
  .string()
  .max(33 * 200)
  .transform((s) => s.split(",").filter(Boolean))
  .pipe(z.array(IdSchema).max(200));

export const ForEntityQuerySchema = z.object({
  pts: z.coerce.number().finite().min(0).optional().openapi({ description: "values whose range contains this second" }),
  range: z
    .string()
    .regex(/^\d+(\.\d+)?,\d+(\.\d+)?$/, "ожидается «начало,конец» в секундах")
    .transform((s) => s.split(",").map(Number) as [number, number])
    .refine(([a, b]) => a <= b, ru.metadata.ptsOrder)
    .optional()
    .openapi({ description: "start,end: values whose range overlaps it" }),
  version: z.coerce.number().int().min(1).max(1_000_000_000).optional(),
  defs: csvIds.optional().openapi({ type: "string", description: "comma-separated template ids" }),
});

const ConditionSchema = z.discriminatedUnion("op", [
  // zod requires the key even though its value may be anything (null included), so the document says so
  z.object({ op: z.literal("eq"), value: z.unknown() }).openapi({ required: ["op", "value"] }),
  z.object({ op: z.literal("range"), min: z.unknown().optional(), max: z.unknown().optional() }),
  z.object({ op: z.literal("prefix"), value: z.string().min(1).max(500) }),
]);

export const EntitiesByFieldSchema = z
  .object({
    def_id: IdSchema,
    condition: ConditionSchema.openapi({ example: { op: "range", min: "2026-01-01", max: "2026-12-31" } }),
    entity_type: z.enum(["asset", "group"]).optional(),
    skip: z.number().int().min(0).max(10_000_000).default(0),
    take: z.number().int().min(1).max(500).default(100),
  })
  .openapi("EntitiesByField");

export const BulkSetSchema = z
  .object({
    def_id: IdSchema,
    entity_ids: z.array(IdSchema).min(1).max(MAX_BULK_ENTITIES),
    data: z.unknown().refine((v) => v !== undefined, ru.errors.requiredField),
    mode: z.enum(["replace", "add"]).default("replace"),
  })
  .openapi("FieldBulkSet");

export const ApplySchema = z
  .object({
    asset_class: IdSchema.nullable().optional(),
    values: z
      .array(
        z.object({
          field_id: IdSchema.optional(),
          def_id: IdSchema,
          data: z.unknown().refine((v) => v !== undefined, ru.errors.requiredField),
          pts: PtsSchema.optional(),
          asset_version_id: VersionRefSchema,
          asset_version: VersionNumberSchema,
        }),
      )
      .max(200)
      .default([]),
    remove: z.array(IdSchema).max(200).default([]),
  })
  .openapi("FieldApply");

const EntityFieldParamsSchema = z.object({
  id: IdSchema.openapi({ param: { name: "id", in: "path" } }),
  fid: IdSchema.openapi({ param: { name: "fid", in: "path" } }),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

/** Field templates and entity field values (SPEC §7 Fields), plus bulk set and apply. */
export const fieldsRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/templates",
      tags: ["Fields"],
      summary: "Field templates by priority and name",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        query: z.object({
          name: z.string().max(100).optional().openapi({ description: "part of the name, case-insensitive" }),
          skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
          take: z.coerce.number().int().min(1).max(500).default(200),
        }),
      },
      responses: { 200: json(z.array(FieldTemplateSchema), "Templates"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listTemplates(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/templates-by-ids",
      tags: ["Fields"],
      summary: "The known templates among the given ids",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(z.object({ ids: z.array(IdSchema).max(500) })) },
      responses: { 200: json(z.array(FieldTemplateSchema), "Templates"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await templatesByIds(c.var.rc, c.var.actor, c.req.valid("json").ids), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/template",
      tags: ["Fields"],
      summary: "Create a field template (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(FieldTemplateCreateSchema) },
      responses: { 200: json(FieldTemplateSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await createTemplate(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/template/{id}",
      tags: ["Fields"],
      summary: "Change a field template (administrators)",
      description: "The type can change only while the template has no values (409).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(FieldTemplateChangeSchema) },
      responses: { 200: json(FieldTemplateSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const changed = await changeTemplate(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json"));
      refreshCopiesSoon(c);
      return c.json(changed, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/template/{id}",
      tags: ["Fields"],
      summary: "Delete a field template (administrators)",
      description: "Refused with 409 while it has values or classes list it, unless force=true: then its values are removed too.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: z.object({ force: z.enum(["true", "false"]).default("false") }) },
      responses: {
        200: json(z.object({ field_def_id: z.string(), values_removed: z.number().int() }), "Deleted"),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) =>
      c.json(
        await deleteTemplate(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query").force === "true", globalChange(c)),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/for-entity/{id}",
      tags: ["Fields"],
      summary: "Field values of an asset or group",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: ForEntityQuerySchema },
      responses: { 200: json(z.array(FieldValueSchema), "Values"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "valuesForEntity", [c.req.valid("param").id, c.req.valid("query")]), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create/{id}",
      tags: ["Fields"],
      summary: "Add a field value to an asset or group",
      description: "Validated against the template and its type; references must exist and be readable; pts within the duration.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(FieldValueCreateSchema) },
      responses: { 200: json(FieldValueSchema, "Created"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      return c.json(await writeWhereItLives(c, id, "createValue", [id, input], { named: { templates: [input.def_id] } }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/change/{id}/{fid}",
      tags: ["Fields"],
      summary: "Change a field value's data and/or time range",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: EntityFieldParamsSchema, body: body(FieldValueChangeSchema) },
      responses: { 200: json(FieldValueSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id, fid } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "changeValue", [id, fid, c.req.valid("json")]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/delete/{id}/{fid}",
      tags: ["Fields"],
      summary: "Delete a field value",
      description: "The last value of a field the asset's class requires cannot be deleted (409).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: EntityFieldParamsSchema },
      responses: { 200: json(z.object({ field_id: z.string() }), "Deleted"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id, fid } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "deleteValue", [id, fid]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/entities-by-field",
      tags: ["Fields"],
      summary: "Assets and groups having a value that matches a condition",
      description: "eq for every indexed type; range for number, date and time; prefix for text. Only entities the caller may see.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(EntitiesByFieldSchema) },
      responses: {
        200: json(
          z.array(
            z.object({
              entity_id: z.string(),
              entity_type: z.enum(["asset", "group"]),
              field_id: z.string(),
              field_data: z.unknown(),
              pts: z.tuple([z.number(), z.number()]).nullable(),
            }),
          ),
          "Entities",
        ),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => {
      const input = c.req.valid("json");
      // The caller's visibility read beside the template (kept for the request): the page's query waits on neither.
      const [query] = await Promise.all([fieldQuery(c.var.rc, input), visibility(c.var.rc, c.var.actor)]);
      // Each library's matches where it lives, merged by id (the catalog's own query timed).
      const sql = { ms: 0 };
      const entities = await pageWhereItLives<"entitiesByField">(
        c.var,
        "entitiesByField",
        (window, scope) => [[], query, window, scope, sql],
        { skip: input.skip, take: input.take },
        (a, b) => binaryOrder(a.entity_id, b.entity_id),
      );
      // How long D1 spent on the indexed query itself, apart from auth and transport (read by bench/metadata.mjs):
      // a detail like the request's db entry, so only for those who get that one.
      if (timingDetailAllowed(c.req.raw, c.var.rc.config.METRICS_TOKEN, c.var.actor.isAdmin)) {
        c.header("Server-Timing", `sql;dur=${sql.ms.toFixed(3)}`);
      }
      return c.json(entities, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/bulk-set",
      tags: ["Fields"],
      summary: "Set one field on many assets or groups in one batch",
      description: `Up to ${MAX_BULK_ENTITIES} entities, all or nothing; needs update on every one.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(BulkSetSchema) },
      responses: { 200: json(z.object({ changed: z.number().int() }), "Set"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const [first, ...rest] = input.entity_ids;
      const named = { templates: [input.def_id] };
      return c.json(await writeWhereItLives(c, first, "bulkSetField", [input], { named, sameLibrary: rest }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/apply/{id}",
      tags: ["Fields"],
      summary: "Set an asset's class and field values together",
      description: "One batch; afterwards every required field of the (new) class must have a value (400 naming the missing ones).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(ApplySchema) },
      responses: { 200: json(z.array(FieldValueSchema), "All values of the entity"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const named = { classes: input.asset_class ? [input.asset_class] : [], templates: (input.values ?? []).map((v) => v.def_id) };
      return c.json(await writeWhereItLives(c, id, "applyFields", [id, input], { named }), 200);
    },
  );
