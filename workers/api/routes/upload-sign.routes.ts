import { createRoute, z } from "@hono/zod-openapi";
import { MAX_PARTS, S3_OPS } from "../../services/storage/pure";
import { signS3Request, type SignInput, type SignedRequest, type UploadStatus } from "../../services/uploads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";
import { readOfVariant } from "../library-reads";
import { FileOfVariantQuerySchema } from "./asset.schemas";

/**
 * Signing for the browser's S3 client (/api/upload): `POST /sign` answers a short-lived signed URL for one call of
 * the S3-compatible endpoints (/api/s3), and `GET /status/{variantId}` tells where an upload is, so the client can
 * wait while a completed multipart upload is hashed ('saving') until its version is committed ('ready').
 */

export const SignRequestSchema = z
  .object({
    variant_id: IdSchema.openapi({ description: "the variant create-version answered" }),
    op: z.enum(S3_OPS).openapi({ description: "create | part | list | complete | abort (multipart form), put (single form)" }),
    method: z.enum(["POST", "PUT", "GET", "DELETE"]).openapi({ description: "must be the operation's: POST, PUT, GET, POST, DELETE, PUT" }),
    upload_id: z.string().min(1).max(1024).optional().openapi({ description: "the S3 upload id (all multipart operations but create)" }),
    part_number: z.number().int().min(1).max(MAX_PARTS).optional().openapi({ description: "part: 1–10000" }),
    key: z.string().max(200).optional().openapi({ description: "the object key Uppy asks about; must be the variant's when given" }),
  })
  .openapi("UploadSignRequest");

export const SignedRequestSchema = z
  .object({
    url: z.string().openapi({ description: "absolute URL of the S3 call, signed for 15 minutes (u, exp, sig in the query)" }),
    method: z.enum(["POST", "PUT", "GET", "DELETE"]),
    key: z.string().openapi({ description: "the object key (Uppy adopts it on create)" }),
    expire: z.string().openapi({ format: "date-time" }),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .openapi("UploadSignedRequest");

export const UploadStatusSchema = z
  .object({
    variant_id: z.string(),
    asset_id: z.string(),
    state: z.enum(["pending", "saving", "ready", "aborted"]),
    size: z.number().int(),
    uploaded_bytes: z.number().int().optional().openapi({ description: "pending multipart uploads: bytes of the parts stored so far" }),
    hashed_bytes: z.number().int().optional().openapi({ description: "saving: bytes hashed so far" }),
    asset_version: z.number().int().optional().openapi({ description: "ready: the committed version" }),
    sha256: z.string().optional().openapi({ description: "ready: hex SHA-256 of the stored bytes" }),
  })
  .openapi("UploadStatus");

export type { SignInput, SignedRequest, UploadStatus };

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

export const uploadSignRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/sign",
      tags: ["Uploads (S3)"],
      summary: "Sign one S3 call of an upload (Uppy's signRequest)",
      description:
        "The signature binds the user, the variant, the operation and (for calls on an open upload) the upload id and part number; it lasts 15 minutes. Only the user who started the upload may sign its calls, while holding create on the asset.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: SignRequestSchema } } } },
      responses: { 200: json(SignedRequestSchema, "The signed call"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const signed = await signS3Request(c.var.rc, c.var.actor, c.req.valid("json"));
      return c.json({ ...signed, url: new URL(signed.url, c.req.url).href }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/status/{variantId}",
      tags: ["Uploads (S3)"],
      summary: "Where an upload is: pending, saving (hashing), ready (committed) or aborted",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({ variantId: IdSchema.openapi({ param: { name: "variantId", in: "path" } }) }),
        query: FileOfVariantQuerySchema,
      },
      responses: { 200: json(UploadStatusSchema, "The upload's state"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readOfVariant(c.var, "uploadStatus", [c.req.valid("query").a, c.req.valid("param").variantId]), 200),
  );
