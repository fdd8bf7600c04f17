import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { AppError } from "../../lib/errors";
import {
  MAX_BATCH_BYTES,
  MAX_BATCH_FILES,
  requireBatchLength,
  uploadBatch,
  uploadInOneRequest,
  type BatchUploadFile,
} from "../../services/uploads";
import { runWhereItLives } from "../library-place";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { EntityNameSchema, IdSchema, MimeSchema } from "../schemas";
import { UploadCompleteSchema } from "./asset.schemas";

/**
 * POST /api/asset/upload: a small file in one request, and /upload-batch: many in one (issue 13). Mounted on /api/asset before the router whose
 * `/{id}` routes would otherwise match.
 */

const DirectUploadQuery = z
  .object({
    in_group: IdSchema.optional().openapi({ description: "a new asset in this folder (create right on it)" }),
    asset_id: IdSchema.optional().openapi({ description: "or a new version of this asset (create right on it)" }),
    name: EntityNameSchema.openapi({ description: "the file name; a new asset is named after it", example: "IMG_0042.jpg" }),
    mime: MimeSchema.optional().openapi({ description: "the file's type; the request's Content-Type by default" }),
    asset_class: IdSchema.optional(),
  })
  .refine((q) => (q.in_group === undefined) !== (q.asset_id === undefined), {
    message: "укажите либо in_group (новый файл), либо asset_id (новая версия)",
    path: ["in_group"],
  });

export const directUploadRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/upload",
    tags: ["Assets"],
    summary: "Upload a small file in one request (asset, version and bytes)",
    description:
      "The one-request form of create → create-version → PUT for files up to the single-PUT limit (95 MiB): send the bytes as the body with Content-Length. The bytes are hashed while they stream to storage; then the asset (or, with `asset_id`, its new version), the ready variant and the version are committed in one transaction, so a failed upload leaves nothing. An optional Content-MD5 or x-amz-checksum-sha256 (base64) is verified (400 on mismatch, nothing stored). Previews and technical fields follow in the background, as for the other upload forms.",
    security: bearerSecurity,
    middleware: [requireAuth] as const,
    request: {
      query: DirectUploadQuery,
      body: { required: true, content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } } },
    },
    responses: {
      201: { description: "Stored and committed", content: { "application/json": { schema: UploadCompleteSchema } } },
      411: { description: "Content-Length missing" },
      413: { description: "Larger than the single-request limit: use create-version (multipart)" },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const contentType = c.req.header("content-type")?.split(";")[0].trim();
    const mime = q.mime ?? (contentType && MimeSchema.safeParse(contentType).success ? contentType : "application/octet-stream");
    const input = { in_group: q.in_group, asset_id: q.asset_id, file_name: q.name, mime_type: mime, asset_class: q.asset_class };
    const upload = {
      body: c.req.raw.body,
      contentLength: c.req.header("content-length"),
      checksums: { contentMd5: c.req.header("content-md5"), checksumSha256: c.req.header("x-amz-checksum-sha256") },
    };
    // Where the folder's (or the file's) library lives (decision 043, «Uploads»); a class rides along.
    const done = await runWhereItLives(c, (q.in_group ?? q.asset_id)!, (rc) => uploadInOneRequest(rc, c.var.actor, input, upload), {
      files: q.asset_id ? [q.asset_id] : [],
      named: { classes: q.asset_class ? [q.asset_class] : [] },
      streamed: true,
    });
    return c.json(done, 201);
  },
);

const BatchUploadQuery = z.object({
  in_group: IdSchema.openapi({ description: "the folder the new assets go to (create right on it)" }),
  asset_class: IdSchema.optional(),
});

const BatchFileSchema = z.instanceof(File).openapi({ type: "string", format: "binary" });
const BatchUploadForm = z.object({
  file: z.union([BatchFileSchema, z.array(BatchFileSchema)]).openapi({ description: "the files, one part each, named by their filename" }),
});

/** 411 / 413 before the body is read: the parts are split in memory. */
const batchLength = createMiddleware(async (c, next) => {
  requireBatchLength(c.req.header("content-length"));
  await next();
});

/** A part's file name as a new asset's name, or 400 naming the part. */
function batchFileOf(file: File, index: number): BatchUploadFile {
  const name = EntityNameSchema.safeParse(file.name);
  if (!name.success) throw new AppError("BAD_REQUEST", `Файл ${index + 1} «${file.name}»: ${name.error.issues[0].message}`);
  const mime = file.type.split(";")[0].trim();
  return { name: name.data, mime: mime && MimeSchema.safeParse(mime).success ? mime : "application/octet-stream", body: file };
}

export const batchUploadRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/upload-batch",
    tags: ["Assets"],
    summary: "Upload many small files in one request",
    description: `New assets in one folder from one multipart/form-data body: a part named \`file\` per file (its filename names the asset, its Content-Type is the asset's type), at most ${MAX_BATCH_FILES} files and ${MAX_BATCH_BYTES / (1024 * 1024)} MiB with Content-Length. All of them are stored, then created and committed in one transaction, or none is (a failure deletes what was stored). Answers the upload-complete of each file in the order sent. The web app sends folders of small files this way.`,
    security: bearerSecurity,
    middleware: [requireAuth, batchLength] as const,
    request: { query: BatchUploadQuery, body: { required: true, content: { "multipart/form-data": { schema: BatchUploadForm } } } },
    responses: {
      201: { description: "Stored and committed", content: { "application/json": { schema: z.array(UploadCompleteSchema) } } },
      411: { description: "Content-Length missing" },
      413: { description: "Larger than the batch limit" },
      ...errorResponses(400, 401, 403, 404, 503),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const { file } = c.req.valid("form");
    const files = (Array.isArray(file) ? file : [file]).map(batchFileOf);
    const input = { in_group: q.in_group, asset_class: q.asset_class };
    // Where the folder's library lives (decision 043, «Uploads»); a class rides along.
    const named = { classes: q.asset_class ? [q.asset_class] : [] };
    return c.json(await runWhereItLives(c, q.in_group, (rc) => uploadBatch(rc, c.var.actor, input, files), { named, streamed: true }), 201);
  },
);
