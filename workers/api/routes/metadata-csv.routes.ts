import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { contentDisposition } from "../../lib/content-disposition";
import { AppError } from "../../lib/errors";
import { MAX_CSV_BYTES, MAX_CSV_ROWS, dryRunMetadataCsv, exportMetadataCsv, readCsvBody } from "../../services/metadata";
import { collectionItemPages } from "../../services/collections";
import { searchAssetIdPages } from "../../services/search";
import { startMetadataCsvImport } from "../../services/tasks";
import { requireAuth } from "../middleware/require-auth";
import { ErrorSchema, bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";

const ExportQuerySchema = z
  .object({
    group_id: IdSchema.optional().openapi({ description: "a folder: its files and those of its subfolders" }),
    q: z.string().trim().min(1).max(500).optional().openapi({ description: "a search query: the files it finds (at most 10,000)" }),
    collection_id: IdSchema.optional().openapi({ description: "a collection: its items the caller may read, in collection order" }),
  })
  .refine((v) => v.group_id !== undefined || v.q !== undefined || v.collection_id !== undefined, {
    message: ru.collectionExport.csvSourceRequired,
    path: ["group_id"],
  })
  .refine((v) => [v.group_id, v.q, v.collection_id].filter((x) => x !== undefined).length === 1, {
    message: ru.collectionExport.csvSourceOne,
    path: ["q"],
  });

const ImportQuerySchema = z.object({
  dry_run: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .transform((v) => v === "1" || v === "true")
    .openapi({ description: "1: check and report only, nothing is written" }),
});

const CsvErrorSchema = z.object({ row: z.number().int().openapi({ description: "the row as a spreadsheet numbers it (the header is row 1)" }), message: z.string() });

const CsvReportSchema = z
  .object({
    rows: z.number().int(),
    changes: z.number().int().openapi({ description: "fields that rows without errors would change" }),
    changed_rows: z.number().int(),
    errors: z.array(CsvErrorSchema).max(1000),
    error_rows: z.number().int(),
    encoding: z.enum(["utf-8", "windows-1251"]),
  })
  .openapi("MetadataCsvReport");

/** Content types a CSV body may come with (browsers send text/csv or, for some systems, the Excel type). */
const CSV_TYPES = new Set(["text/csv", "text/plain", "application/vnd.ms-excel", "application/octet-stream"]);

const tooLarge = { 413: { description: `Body larger than ${MAX_CSV_BYTES / 1024 / 1024} MiB`, content: { "application/json": { schema: ErrorSchema } } } };

/** Metadata of many files as CSV: export (a stream) and import (a dry run, or a task that applies it). */
export const metadataCsvRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/csv",
      tags: ["Fields"],
      summary: "Export the field values of a folder's, a search's or a collection's files as CSV",
      description:
        "UTF-8 with a BOM (Excel opens it as such), RFC 4180 quoting, header `asset_id,name,path,<field names…>`, one row per file the caller may read (others are left out). A multi-valued field's values are joined by «; ». Cells starting with = + - @ get a leading apostrophe (spreadsheets would run them as formulas); the import strips it. Exactly one of group_id, q and collection_id (a collection: its items the caller may read, in collection order; 404 when it is not shared with the caller).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: ExportQuerySchema },
      responses: {
        200: { description: "The CSV", content: { "text/csv": { schema: z.string() } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { group_id, q, collection_id } = c.req.valid("query");
      // A collection's role is checked before the stream starts (404 for someone it is not shared with).
      const collection = collection_id ? await collectionItemPages(c.var.rc, c.var.actor, collection_id) : null;
      const source = group_id
        ? { group_id }
        : collection
          ? { pages: collection.pages, filename: `${collection.name}.csv` }
          : { pages: searchAssetIdPages(c.var.rc, c.var.actor, q ?? ""), filename: "search.csv" };
      const { stream, filename } = await exportMetadataCsv(c.var.rc, c.var.actor, source);
      return new Response(stream, {
        status: 200,
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": contentDisposition(filename),
          "cache-control": "private, no-store",
        },
      });
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/csv",
      tags: ["Fields"],
      summary: "Import field values from CSV: a dry run, or a task that applies it",
      description: `The body is a CSV as the export writes it (UTF-8; Windows-1251 is detected and decoded; comma, semicolon or tab), at most ${MAX_CSV_BYTES / 1024 / 1024} MiB (413 above) and ${MAX_CSV_ROWS} rows. Columns name and path are ignored; every other column must be a field's name. A row changes the fields whose cell differs from the file's values (an empty cell removes them). Rows with errors (unknown column, unknown or unreadable file — the same message —, no update right, a value the field's type refuses, an open quote) are listed and never applied. With dry_run=1 nothing is written; otherwise the rows are applied by a task (202 with its id), each row whole, with field.changed events.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        query: ImportQuerySchema,
        body: { required: true, content: { "text/csv": { schema: z.string() } } },
      },
      responses: {
        200: { description: "The dry run's report", content: { "application/json": { schema: CsvReportSchema } } },
        202: {
          description: "The import task, and the report of the check made before it",
          content: { "application/json": { schema: z.object({ job_id: z.string(), job_num: z.number().int(), report: CsvReportSchema }).openapi("MetadataCsvImport") } },
        },
        ...errorResponses(400, 401, 415),
        ...tooLarge,
      },
    }),
    async (c) => {
      const { dry_run } = c.req.valid("query");
      const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
      if (!CSV_TYPES.has(type)) throw new AppError("UNSUPPORTED_MEDIA_TYPE", ru.metadataCsv.contentType);
      const length = c.req.header("content-length");
      const declared = length !== undefined && /^\d{1,15}$/.test(length) ? Number(length) : null;
      const bytes = await readCsvBody(c.req.raw.body, declared);
      if (dry_run) return c.json(await dryRunMetadataCsv(c.var.rc, c.var.actor, bytes), 200);
      return c.json(await startMetadataCsvImport(c.var.rc, c.var.actor, bytes), 202);
    },
  );
