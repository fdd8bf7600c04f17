import { createRoute, z } from "@hono/zod-openapi";
import { uploadInOneRequest } from "../../services/uploads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { EntityNameSchema, IdSchema, MimeSchema } from "../schemas";
import { UploadCompleteSchema } from "./asset.schemas";

/**
 * POST /api/asset/upload: a small file in one request (issue 13). Mounted on /api/asset before the router whose
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
    const done = await uploadInOneRequest(
      c.var.rc,
      c.var.actor,
      { in_group: q.in_group, asset_id: q.asset_id, file_name: q.name, mime_type: mime, asset_class: q.asset_class },
      {
        body: c.req.raw.body,
        contentLength: c.req.header("content-length"),
        checksums: { contentMd5: c.req.header("content-md5"), checksumSha256: c.req.header("x-amz-checksum-sha256") },
      },
    );
    return c.json(done, 201);
  },
);
