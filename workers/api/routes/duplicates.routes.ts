import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { MAX_DUPLICATES, MAX_LOOKUP_HASHES, MAX_SIMILAR_SCAN, DUPLICATE_GROUPS_PER_PAGE, assetDuplicates, libraryDuplicates, lookupHashes } from "../../services/duplicates";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParams, json, jsonBody } from "./asset.schemas";

/** Hex SHA-256, either case (answered lower-cased). */
const Sha256Schema = z.string().regex(/^[0-9a-fA-F]{64}$/, ru.dupes.badHash).openapi({ example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" });

const DuplicateFileSchema = z
  .object({
    asset_id: z.string(),
    name: z.string(),
    mime: z.string(),
    size: z.number().int(),
    version: z.number().int(),
    folder: z.object({ id: z.string(), name: z.string() }).nullable().openapi({ description: "a folder the file is in, when the caller may read it" }),
    preview: z.string().nullable().openapi({ description: "signed link to the file's thumbnail" }),
    distance: z.number().int().optional().openapi({ description: "near pictures: bits of the 64-bit difference hash that differ (0–6)" }),
  })
  .openapi("DuplicateFile");

const LookupSchema = z
  .object({
    sha256: z.array(Sha256Schema).min(1).max(MAX_LOOKUP_HASHES).openapi({ description: `at most ${MAX_LOOKUP_HASHES} hashes` }),
  })
  .openapi({ example: { sha256: ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"] } });

const LibraryQuerySchema = z.object({
  kind: z.enum(["exact", "similar"], { message: "«kind» — exact или similar" }).default("exact"),
  after: Sha256Schema.optional().openapi({ description: "exact: the `next` of the previous page" }),
});

/**
 * Duplicates: of one file (exact by SHA-256, similar by the preview's difference hash), of hashes a client computed
 * before uploading, and of the whole library for administrators. Only files the caller may read are ever answered.
 * Mounted under /api before the asset routers (its fixed paths must win over their `/{id}` routes).
 */
export const duplicatesRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/asset/duplicate-lookup",
      tags: ["Assets"],
      summary: "Files the caller may read whose current bytes have one of these SHA-256 hashes",
      description: `Asked by the upload panel before it sends a file. A hash held only by files the caller may not read answers nothing. At most ${MAX_DUPLICATES} files per hash.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(LookupSchema) },
      responses: {
        200: json(z.object({ matches: z.array(z.object({ sha256: z.string(), files: z.array(DuplicateFileSchema) })) }), "Hashes with readable files"),
        ...errorResponses(400, 401, 415),
      },
    }),
    async (c) => c.json(await lookupHashes(c.var.rc, c.var.actor, c.req.valid("json").sha256), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/asset/duplicates/{id}",
      tags: ["Assets"],
      summary: "Other files with the same bytes (exact) and pictures with a near preview (similar)",
      description: `Needs read on the file. Exact: the same SHA-256 as the current version. Similar: images and video posters whose 64-bit difference hash differs in at most 6 bits. Only files the caller may read, at most ${MAX_DUPLICATES} each.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: {
        200: json(z.object({ exact: z.array(DuplicateFileSchema), similar: z.array(DuplicateFileSchema) }), "Duplicates"),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await assetDuplicates(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/duplicates",
      tags: ["Assets"],
      summary: "The library's duplicate groups (administrators)",
      description: `exact: ${DUPLICATE_GROUPS_PER_PAGE} hashes per page, \`next\` is the cursor. similar: near pictures clustered over the oldest ${MAX_SIMILAR_SCAN} pictures (\`scanned\`). Files oldest first.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: LibraryQuerySchema },
      responses: {
        200: json(
          z.object({
            groups: z.array(z.object({ key: z.string(), kind: z.enum(["exact", "similar"]), files: z.array(DuplicateFileSchema) })),
            next: z.string().nullable(),
            scanned: z.number().int().optional(),
          }),
          "Groups",
        ),
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => c.json(await libraryDuplicates(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  );
