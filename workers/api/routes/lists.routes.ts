import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import {
  createList,
  deleteList,
  deleteRecord,
  listLists,
  putRecord,
  recordsByIds,
  recordsOf,
  renameList,
} from "../../services/metadata";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, TRIMMED_TEXT_PATTERN, VISIBLE_TEXT_PATTERN, visibleName } from "../schemas";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const ListNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v), ru.catalog.nameControlChars)
  .check(visibleName)
  .openapi({ pattern: TRIMMED_TEXT_PATTERN });

/** A record key: what field values store; short and without control characters or surrounding spaces. */
export const RecIdSchema = z
  .string()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v) && v.trim() === v, ru.catalog.nameControlChars)
  .check(visibleName)
  // the refinements above, published (a joiner inside an emoji sequence, which the product also takes, is left out)
  .openapi({ example: "ru", pattern: VISIBLE_TEXT_PATTERN });

export const ListRecordSchema = z
  .object({ list_id: z.string(), rec_id: z.string(), rec_data: z.record(z.string(), z.unknown()) })
  .openapi("ListRecord");

const RecDataSchema = z
  .object({ label: z.string().trim().min(1).max(200).check(visibleName).openapi({ pattern: TRIMMED_TEXT_PATTERN }) })
  .catchall(z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
  .refine((v) => Object.keys(v).length <= 20, "не больше 20 свойств")
  .openapi({ example: { label: "Русский" } });

const ListInfoSchema = z.object({ list_id: z.string(), name: z.string(), count: z.number().int() }).openapi("List");

const RecordPairsSchema = z.array(z.object({ list_id: IdSchema, rec_id: RecIdSchema })).max(500);

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const listParam = IdSchema.openapi({ param: { name: "listId", in: "path" } });

/** List records (SPEC §7 Lists), plus the administrators' calls that fill lists. */
export const listsRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/records/{listId}",
      tags: ["Lists"],
      summary: "The records of a list, in order",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ listId: listParam }) },
      responses: { 200: json(z.array(ListRecordSchema), "Records"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await recordsOf(c.var.rc, c.var.actor, c.req.valid("param").listId), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/records",
      tags: ["Lists"],
      summary: "The records among (list_id, rec_id) pairs",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        // SPEC §7 sends "list_id, rec_id pairs": a bare JSON array; `{ pairs }` is our own form. Both are accepted.
        body: body(
          z
            .union([RecordPairsSchema, z.object({ pairs: RecordPairsSchema })])
            .openapi("ListRecordPairs", { example: [{ list_id: "0195f1c2a4b37c0d9e8f1a2b3c4d5e6f", rec_id: "ru" }] }),
        ),
      },
      responses: { 200: json(z.array(ListRecordSchema), "Records"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      return c.json(await recordsByIds(c.var.rc, c.var.actor, Array.isArray(input) ? input : input.pairs), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/list",
      tags: ["Lists"],
      summary: "Every list with its number of records",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.array(ListInfoSchema), "Lists"), ...errorResponses(401) },
    }),
    async (c) => c.json(await listLists(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create",
      tags: ["Lists"],
      summary: "Create a list (administrators)",
      description:
        "SPEC only reads lists (`GET /records/{listId}`, `POST /records`) and has no call that makes one, so this one does; records are then added with `PUT /record/{listId}`.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(z.object({ name: ListNameSchema }).openapi("ListCreate")) },
      responses: { 200: json(z.object({ list_id: z.string() }), "Created"), ...errorResponses(400, 401, 403, 409, 415) },
    }),
    async (c) => c.json(await createList(c.var.rc, c.var.actor, c.req.valid("json").name), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/change/{id}",
      tags: ["Lists"],
      summary: "Rename a list (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(z.object({ name: ListNameSchema })) },
      responses: { 200: json(ListInfoSchema, "Renamed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await renameList(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").name), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/delete/{id}",
      tags: ["Lists"],
      summary: "Delete a list and its records (administrators); 409 while a field takes values from it",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.object({ list_id: z.string() }), "Deleted"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await deleteList(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/record/{listId}",
      tags: ["Lists"],
      summary: "Add or replace a record (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({ listId: listParam }),
        body: body(z.object({ rec_id: RecIdSchema, rec_data: RecDataSchema }).openapi("ListRecordPut")),
      },
      responses: { 200: json(ListRecordSchema, "Stored"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => {
      const { rec_id, rec_data } = c.req.valid("json");
      return c.json(await putRecord(c.var.rc, c.var.actor, c.req.valid("param").listId, rec_id, rec_data), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/record/{listId}/{recId}",
      tags: ["Lists"],
      summary: "Delete a record (administrators); 409 while field values hold it",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ listId: listParam, recId: RecIdSchema.openapi({ param: { name: "recId", in: "path" } }) }) },
      responses: {
        200: json(z.object({ list_id: z.string(), rec_id: z.string() }), "Deleted"),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { listId, recId } = c.req.valid("param");
      return c.json(await deleteRecord(c.var.rc, c.var.actor, listId, recId), 200);
    },
  );
