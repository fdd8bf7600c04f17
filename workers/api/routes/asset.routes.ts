import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ru } from "../../../shared/i18n/ru";
import { VARIANT_TYPES } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN } from "../../lib/ids";
import { ACCESS_LEVELS } from "../../services/access";
import { TECHNICAL_MAX_UPLOAD_BYTES } from "../../services/storage/pure";
import {
  MAX_SINGLE_UPLOAD_BYTES,
  createVersionUpload,
  downloadAssetContent,
  dropEmptyVersions,
  playAsset,
  playLink,
  proxyDoc,
  receiveUpload,
  variantContent,
  type ContentCredential,
  type ContentRequest,
  type SignedParams,
} from "../../services/library";
import {
  MAX_LIST_ITEMS,
  aclAssets,
  contentSize,
  copyAsset,
  createAsset,
  createAssets,
  getAsset,
  getVersion,
  trashedAssetsPage,
  listVariants,
  listVersions,
  memberOf,
  restoreAsset,
  techFields,
  trashAsset,
  trashAssets,
  updateAsset,
  variantTechFields,
  variantTechProps,
  versionsByIds,
} from "../../services/library";
import type { Actor } from "../../services/access";
import { requireAuth } from "../middleware/require-auth";
import { ErrorSchema, bearerSecurity, createRouter, errorResponses } from "../router";
import { EntityNameSchema, IdSchema, MimeSchema, PagingQuerySchema } from "../schemas";
import type { AppEnv } from "../types";

/**
 * SPEC §7 asset calls under /api/asset: identity, versions and variants, single-PUT uploads with commit-after-upload,
 * downloads and streaming with Range, signed links, copy and related reads. Asset classes and previews live in the
 * catalog router, mounted before this one.
 */

// ---------------------------------------------------------------------------------------------------------------
// Contract

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An asset or file name: the shared entity name rules, and well-formed Unicode (storable and encodable). */
export const AssetNameSchema = EntityNameSchema.refine((v) => !LONE_SURROGATE.test(v), "имя содержит некорректные символы Юникода");

const pathId = (name: string) => IdSchema.openapi({ param: { name, in: "path" } });
const IdParams = z.object({ id: pathId("id") });

/** A version number in a path: 1, 2, 3 … */
const VersionNumberSchema = z
  .string()
  .regex(/^\d{1,9}$/, "ожидается номер версии")
  .transform(Number)
  .refine((n) => n >= 1, "номер версии начинается с 1");

/** A version in a path: a number or `latest`. */
const VersionSelectorSchema = z
  .string()
  .regex(/^(\d{1,9}|latest)$/, "ожидается номер версии или latest")
  .transform((v) => (v === "latest" ? ("latest" as const) : Number(v)))
  .refine((v) => v === "latest" || v >= 1, "номер версии начинается с 1");

const VariantTypeSchema = z.enum(VARIANT_TYPES).openapi({ example: "initial" });
const DispositionSchema = z.enum(["attachment", "inline"]);

/** A query flag: `?versions`, `?versions=true`, `?versions=1` are on; `false` and `0` are off. */
const FlagSchema = z
  .enum(["", "true", "false", "1", "0"])
  .transform((v) => v !== "false" && v !== "0")
  .optional()
  .openapi({ type: "boolean" });

/** `u`, `exp`, `sig` of a signed link; validity is judged by the signature check (403), not here. */
const SignedQuerySchema = z.object({
  u: z.string().max(64).optional(),
  exp: z.string().max(20).optional(),
  sig: z.string().max(128).optional(),
});

const IsoDate = z.string().openapi({ format: "date-time", example: "2026-11-22T10:15:00.000Z" });

export const CreateAssetSchema = z
  .object({
    asset_name: AssetNameSchema,
    asset_mime: MimeSchema,
    in_group: IdSchema.nullish().openapi({ description: "group to list the asset in (not the virtual root)" }),
    asset_class: IdSchema.nullish(),
  })
  .openapi("AssetCreate");

export const UpdateAssetSchema = z
  .object({ asset_name: AssetNameSchema.optional(), asset_mime: MimeSchema.optional(), asset_class: IdSchema.nullable().optional() })
  .refine((v) => Object.values(v).some((x) => x !== undefined), "нужно передать хотя бы одно поле для изменения")
  .openapi("AssetUpdate");

const IdListSchema = z.object({ ids: z.array(IdSchema).min(1).max(MAX_LIST_ITEMS) });

export const CreateVersionSchema = z
  .object({
    to_group: IdSchema.nullish(),
    variant_type: VariantTypeSchema.default("initial"),
    file_name: AssetNameSchema.optional().openapi({ description: "the file's name; the asset's name when absent (SPEC sends none)" }),
    mime_type: MimeSchema.optional().openapi({ description: "the bytes' MIME type; the asset's mimetype when absent" }),
    size: z
      .number()
      .int()
      .min(0)
      .max(TECHNICAL_MAX_UPLOAD_BYTES)
      .optional()
      .openapi({
        description: `bytes the upload will send (0 for an empty file); above ${MAX_SINGLE_UPLOAD_BYTES} the answer is the multipart form; above UPLOAD_MAX_BYTES (default 50 GiB) 413. When absent (SPEC sends none) the answer is the single form and the PUT's Content-Length is the size, up to ${MAX_SINGLE_UPLOAD_BYTES} bytes`,
        example: 1048576,
      }),
    name: AssetNameSchema.optional(),
    multipart: z
      .boolean()
      .optional()
      .openapi({ description: "ask for the multipart form even for a small file (an empty file always gets the single form)" }),
  })
  .openapi("CreateVersion", { example: { to_group: null, variant_type: "initial" } });

const PlaySchema = z
  .object({
    version: z.number().int().min(1).optional(),
    variant_type: VariantTypeSchema.optional(),
    disposition: DispositionSchema.optional(),
  })
  .openapi("PlayRequest");

const TagRefSchema = z.object({ tag_id: z.string(), tag_name: z.string() });
const GroupRefSchema = z.object({ group_id: z.string(), group_name: z.string() }).openapi("AssetGroup");

export const VariantSchema = z
  .object({
    variant_id: z.string(),
    storage: z.string(),
    name: z.string(),
    mime_type: z.string(),
    format: z.string().nullable(),
    variant_type: VariantTypeSchema,
    content_size: z.number().int(),
    file_name: z.string(),
    preview_storage_id: z.string().nullable(),
    metadata_storage_id: z.string().nullable(),
    user_id: z.string(),
    sha256: z.string().nullable(),
    ctime: IsoDate,
    version: z.number().int(),
  })
  .openapi("Variant");

export const VersionEntrySchema = z
  .object({
    version: z.number().int(),
    version_id: z.string(),
    desc: z.string().nullable(),
    ctime: IsoDate,
    variant_id: z.string(),
    variant_name: z.string(),
    variant_type: VariantTypeSchema,
    user_id: z.string(),
    content_size: z.number().int(),
    mime_type: z.string(),
    file_name: z.string(),
  })
  .openapi("Version");

export const AssetSchema = z
  .object({
    asset_id: z.string(),
    name: z.string().optional(),
    owner: z.string().optional(),
    owner_name: z.string().nullable().optional(),
    creator: z.string().optional(),
    creator_name: z.string().nullable().optional(),
    ctime: IsoDate.optional(),
    mtime: IsoDate.optional(),
    atime: IsoDate.optional(),
    mimetype: z.string().optional(),
    class: z.string().nullable().optional(),
    tags: z.array(TagRefSchema).optional(),
    default_storage: z.string().optional(),
    asset_access: z.array(z.enum(ACCESS_LEVELS)).optional(),
    asset_latest_version: z.number().int().optional(),
    asset_latest_version_variants: z.array(VariantSchema).optional(),
    asset_links: z
      .array(GroupRefSchema)
      .optional()
      .openapi({ description: "SPEC §3 asset_links: the folders listing the asset that the caller may see (as member-of answers)" }),
    ver: z.number().int().optional().openapi({ description: "latest version; 0 while the asset has no bytes" }),
    var: z.string().nullable().optional().openapi({ description: "main variant (master, else initial, else untyped)" }),
    var_size: z.number().int().nullable().optional(),
    var_hash: z.array(z.object({ alg: z.literal("sha256"), value: z.string() })).optional(),
    versions: z.array(VersionEntrySchema).optional(),
    variants: z.array(VariantSchema).optional(),
    groups: z.array(GroupRefSchema).optional(),
  })
  .openapi("Asset");

const VersionViewSchema = z
  .object({
    version_id: z.string(),
    asset_id: z.string(),
    version: z.number().int(),
    desc: z.string().nullable(),
    ctime: IsoDate,
    user_id: z.string(),
  })
  .openapi("VersionInfo");

const UploadInfoSchema = z
  .object({
    mode: z.literal("single"),
    variant_id: z.string(),
    key: z.string().openapi({ description: "the server-generated object key (for Uppy's generateObjectKey)" }),
    upload_url: z.string().openapi({ description: "PUT the bytes here; no bearer needed (the link is signed, about 1 hour)" }),
    method: z.literal("PUT"),
    expire: IsoDate,
    max_size: z.number().int().openapi({
      description: "the PUT must send exactly this many bytes; when create-version got no size, the most it may send (its Content-Length is the size)",
    }),
    size_known: z.boolean().openapi({ description: "false when create-version got no size: any Content-Length up to max_size is accepted" }),
    headers: z.object({ "content-type": z.string() }),
  })
  .openapi("UploadInfo");

const MultipartUploadInfoSchema = z
  .object({
    mode: z.literal("multipart"),
    variant_id: z.string(),
    key: z.string().openapi({ description: "the server-generated object key every signed S3 call is for (Uppy's generateObjectKey)" }),
    part_size: z.number().int().openapi({ description: "bytes per part; the last part may be shorter" }),
    expire: IsoDate.openapi({ description: "the upload is aborted when no part arrives for a day" }),
    max_size: z.number().int().openapi({ description: "the parts must add up to exactly this many bytes" }),
    sign_url: z.literal("/api/upload/sign"),
  })
  .openapi("MultipartUploadInfo");

export const UploadCompleteSchema = z
  .object({
    asset_id: z.string(),
    asset_version: z.number().int(),
    asset_variant_id: z.string(),
    storage_id: z.string(),
    storage_path: z.string(),
    mime_type: z.string(),
    checksum: z.string().openapi({ description: "hex SHA-256 of the stored bytes" }),
    checksum_alg: z.literal("sha256"),
    file_name: z.string(),
    file_size: z.number().int(),
  })
  .openapi("WorkerUploadComplete");

const PlayResultSchema = z
  .object({ link: z.string(), expire: IsoDate, range: z.literal(true) })
  .openapi("PlayResult", { description: "A signed link (about 6 hours) that serves the bytes without a bearer and supports Range" });

const TrashedAssetSchema = z.object({
  asset_id: z.string(),
  name: z.string(),
  mimetype: z.string(),
  owner: z.string(),
  ver: z.number().int(),
  deleted_at: IsoDate,
  purge_at: IsoDate,
  location: z
    .object({ group_id: z.string(), group_name: z.string() })
    .nullable()
    .openapi({ description: "the folder it is listed in (a restore puts it back there); null when the caller may not read one" }),
});

const AssetListItemSchema = z.object({
  asset_id: z.string(),
  name: z.string(),
  mimetype: z.string(),
  ctime: IsoDate,
  mtime: IsoDate,
  ver: z.number().int(),
});

const JsonObjectSchema = z.record(z.string(), z.unknown()).openapi({ description: "stored JSON; {} until processing fills it" });

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const plainError = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

const binary = z.string().openapi({ format: "binary" });
const contentAnswers = {
  200: {
    description: "The bytes (Content-Type of the variant, Content-Length, ETag, Last-Modified, Accept-Ranges)",
    content: { "application/octet-stream": { schema: binary } },
  },
  206: { description: "One byte range (Content-Range)", content: { "application/octet-stream": { schema: binary } } },
  304: { description: "Not modified (If-None-Match)" },
  416: plainError("Malformed or unsatisfiable Range (Content-Range: bytes */size)"),
};

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers

/** Sets the actor when an Authorization header is sent (and then it must be valid); content calls also take links. */
const bearerIfSent = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("authorization") !== undefined) return requireAuth(c, next);
  await next();
});

/** Bearer when sent, else the signed link's parameters; neither is a 401. */
function credentialOf(c: Context<AppEnv>, link: SignedParams, purpose: "download" | "play"): ContentCredential {
  const actor = c.get("actor") as Actor | undefined;
  if (actor) return { actor };
  if (link.u === undefined && link.exp === undefined && link.sig === undefined)
    throw new AppError("UNAUTHORIZED", ru.errors.unauthenticated);
  return { link, purpose };
}

function contentRequest(c: Context<AppEnv>, disposition?: "attachment" | "inline"): ContentRequest {
  return { range: c.req.header("range"), ifNoneMatch: c.req.header("if-none-match"), ifRange: c.req.header("if-range"), disposition };
}

/** Service links are root-relative (Remix pages use them as is); API answers give absolute URLs. */
function absolute<T extends { link: string }>(c: Context<AppEnv>, value: T): T {
  return { ...value, link: new URL(value.link, c.req.url).href };
}

const VariantSelectorSchema = z
  .string()
  .max(32)
  .refine((v) => (VARIANT_TYPES as readonly string[]).includes(v) || ID_PATTERN.test(v), "ожидается тип варианта или его идентификатор");

// ---------------------------------------------------------------------------------------------------------------
// Routes. Order matters: fixed paths before `/{id}`.

export const assetRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/create",
      tags: ["Assets"],
      summary: "Create an asset (no bytes yet), optionally listed in a group",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(CreateAssetSchema) },
      responses: { 200: json(z.object({ asset_id: z.string() }), "Created"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await createAsset(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create-list",
      tags: ["Assets"],
      summary: `Create up to ${MAX_LIST_ITEMS} assets in one batch (all or nothing)`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(z.object({ assets: z.array(CreateAssetSchema).min(1).max(MAX_LIST_ITEMS) })) },
      responses: {
        200: json(z.array(z.object({ asset_id: z.string() })), "Created, in the order given"),
        ...errorResponses(400, 401, 403, 404, 415),
      },
    }),
    async (c) => c.json(await createAssets(c.var.rc, c.var.actor, c.req.valid("json").assets), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/delete-list",
      tags: ["Assets"],
      summary: "Move assets to the trash (all or nothing)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(IdListSchema) },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => {
      await trashAssets(c.var.rc, c.var.actor, c.req.valid("json").ids);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/trash",
      tags: ["Assets"],
      summary: "Trashed assets that can still be restored (30 days), newest first",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(TrashedAssetSchema), "Trashed assets"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await trashedAssetsPage(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/acl-assets",
      tags: ["Assets"],
      summary: "Assets the caller holds rights on (for now: owns), by name",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(AssetListItemSchema), "Assets"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await aclAssets(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/version-by-ids",
      tags: ["Assets"],
      summary: "Versions by id; those the caller may not read are left out",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(IdListSchema) },
      responses: { 200: json(z.array(VersionViewSchema), "Versions"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await versionsByIds(c.var.rc, c.var.actor, c.req.valid("json").ids), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/restore/{id}",
      tags: ["Assets"],
      summary: "Take an asset out of the trash (within 30 days)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(AssetSchema, "Restored"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await restoreAsset(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/version/{id}",
      tags: ["Assets"],
      summary: "One version of an asset with its variants",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: jsonBody(z.object({ version: z.number().int().min(1) })) },
      responses: {
        200: json(VersionViewSchema.extend({ variants: z.array(VariantSchema) }), "The version"),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => c.json(await getVersion(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").version), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/versions/{id}",
      tags: ["Assets"],
      summary: "Versions of an asset, newest first: one row per ready variant",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.array(VersionEntrySchema), "Versions"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await listVersions(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variants/{id}/{version}",
      tags: ["Assets"],
      summary: "Ready variants of one version",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({
          id: pathId("id"),
          version: VersionNumberSchema.openapi({ param: { name: "version", in: "path" }, type: "integer" }),
        }),
      },
      responses: { 200: json(z.array(VariantSchema), "Variants"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await listVariants(c.var.rc, c.var.actor, id, version), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create-version/{id}",
      tags: ["Assets"],
      summary: "Start a new version: answers a signed single-PUT link, or the multipart form for large files",
      description:
        "Inserts a pending variant (invisible until its bytes are complete). Up to 95 MiB (and for empty files) the answer is a signed single-PUT link; above it, or with `multipart: true`, the multipart form: sign each S3 call at /api/upload/sign and send it to /api/s3. The version is created only when every byte is stored and hashed.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: jsonBody(CreateVersionSchema) },
      responses: {
        200: json(z.union([UploadInfoSchema, MultipartUploadInfoSchema]), "Upload info (single or multipart form)"),
        413: plainError("Larger than UPLOAD_MAX_BYTES, or than the asset's storage can take"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const info = await createVersionUpload(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json"));
      if (info.mode === "multipart") return c.json(info, 200);
      return c.json({ ...info, upload_url: new URL(info.upload_url, c.req.url).href }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/content/upload/{variantId}",
      tags: ["Assets"],
      summary: "Upload the bytes of a pending variant (signed link, no bearer)",
      description:
        "Send exactly the declared number of bytes with Content-Length (411 without it, 400 when it differs); an optional Content-MD5 or x-amz-checksum-sha256 (base64) is verified (400 on mismatch, nothing stored). The bytes are hashed (SHA-256) while they stream to storage; then the version, the ready variant, the asset's latest version and the group membership are committed in one transaction. A second PUT answers 409.",
      request: {
        params: z.object({ variantId: pathId("variantId") }),
        query: SignedQuerySchema,
        body: { required: true, content: { "*/*": { schema: binary } } },
      },
      responses: {
        201: json(UploadCompleteSchema, "Stored and committed"),
        411: plainError("Content-Length missing"),
        ...errorResponses(400, 403, 404, 409, 503),
      },
    }),
    async (c) => {
      const done = await receiveUpload(c.var.rc, c.req.valid("param").variantId, c.req.valid("query"), {
        body: c.req.raw.body,
        contentLength: c.req.header("content-length"),
        checksums: { contentMd5: c.req.header("content-md5"), checksumSha256: c.req.header("x-amz-checksum-sha256") },
      });
      return c.json(done, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/drop-empty-version/{id}",
      tags: ["Assets"],
      summary: "Drop pending uploads whose links have expired",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.object({ dropped: z.number().int() }), "How many were dropped"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await dropEmptyVersions(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/download/{id}/{version}/{variant}",
      tags: ["Assets"],
      summary: "Download a variant of a version (variant type or id); Range supported",
      description: "Authorised by a bearer token or by a signed download link (`u`, `exp`, `sig`).",
      security: [...bearerSecurity, {}],
      middleware: [bearerIfSent] as const,
      request: {
        params: z.object({
          id: pathId("id"),
          version: VersionSelectorSchema.openapi({ param: { name: "version", in: "path" }, type: "string", example: "latest" }),
          variant: VariantSelectorSchema.openapi({ param: { name: "variant", in: "path" }, example: "initial" }),
        }),
        query: SignedQuerySchema,
      },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id, version, variant } = c.req.valid("param");
      return downloadAssetContent(c.var.rc, credentialOf(c, c.req.valid("query"), "download"), id, version, variant, contentRequest(c));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/download-variant/{variantId}",
      tags: ["Assets"],
      summary: "Download a variant; Range supported",
      description: "Authorised by a bearer token or by a signed download link (`u`, `exp`, `sig`).",
      security: [...bearerSecurity, {}],
      middleware: [bearerIfSent] as const,
      request: { params: z.object({ variantId: pathId("variantId") }), query: SignedQuerySchema },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) =>
      variantContent(c.var.rc, credentialOf(c, c.req.valid("query"), "download"), c.req.valid("param").variantId, contentRequest(c)),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/stream/{variantId}",
      tags: ["Assets"],
      summary: "Serve a variant through a signed play link (inline; Range for seeking)",
      request: {
        params: z.object({ variantId: pathId("variantId") }),
        query: SignedQuerySchema.extend({ disposition: DispositionSchema.optional() }),
      },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 409) },
    }),
    async (c) => {
      const { disposition, ...link } = c.req.valid("query");
      return variantContent(c.var.rc, credentialOf(c, link, "play"), c.req.valid("param").variantId, contentRequest(c, disposition));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/content/play/{id}",
      tags: ["Assets"],
      summary: "A play link to a version (latest by default) and variant type (most viewable by default)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: { required: false, content: { "application/json": { schema: PlaySchema } } } },
      responses: { 200: json(PlayResultSchema, "Play link"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(absolute(c, await playAsset(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/content/play-variant/{variant}",
      tags: ["Assets"],
      summary: "A play link to a variant (`disposition: attachment` for download buttons)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({ variant: pathId("variant") }),
        body: { required: false, content: { "application/json": { schema: z.object({ disposition: DispositionSchema.optional() }) } } },
      },
      responses: { 200: json(PlayResultSchema, "Play link"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) =>
      c.json(absolute(c, await playLink(c.var.rc, c.var.actor, c.req.valid("param").variant, c.req.valid("json").disposition)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/play-variant/{variant}",
      tags: ["Assets"],
      summary: "A play link to a variant (query `disposition=attachment` for download buttons)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ variant: pathId("variant") }), query: z.object({ disposition: DispositionSchema.optional() }) },
      responses: { 200: json(PlayResultSchema, "Play link"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(absolute(c, await playLink(c.var.rc, c.var.actor, c.req.valid("param").variant, c.req.valid("query").disposition)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content-size/{id}",
      tags: ["Assets"],
      summary: "Stored bytes of all the asset's ready variants",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.object({ size: z.number().int() }), "Size in bytes"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await contentSize(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/member-of/{id}",
      tags: ["Assets"],
      summary: "Groups the asset is listed in that the caller can see",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.array(GroupRefSchema), "Groups"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await memberOf(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/tech-fields/{id}/{variantId}",
      tags: ["Assets"],
      summary: "Technical fields of a variant of an asset",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ id: pathId("id"), variantId: pathId("variantId") }) },
      responses: { 200: json(JsonObjectSchema, "Technical fields"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, variantId } = c.req.valid("param");
      return c.json(await techFields(c.var.rc, c.var.actor, id, variantId), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variant-tech-fields/{variantId}",
      tags: ["Assets"],
      summary: "Technical fields of a variant",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ variantId: pathId("variantId") }) },
      responses: { 200: json(JsonObjectSchema, "Technical fields"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await variantTechFields(c.var.rc, c.var.actor, c.req.valid("param").variantId), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variant-tech-props/{id}",
      tags: ["Assets"],
      summary: "Technical properties of a variant (or of an asset's main variant)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(JsonObjectSchema, "Technical properties"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await variantTechProps(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/copy/{a}/{b}",
      tags: ["Assets"],
      summary: "Copy asset a into group b (versions and variants share the stored bytes)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ a: pathId("a"), b: pathId("b") }) },
      responses: { 200: json(z.object({ asset_id: z.string() }), "The copy"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { a, b } = c.req.valid("param");
      return c.json(await copyAsset(c.var.rc, c.var.actor, a, b), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/asset-proxy-doc/{id}/{version}",
      tags: ["Assets"],
      summary: "The best viewable rendition of a version, with a play link",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({
          id: pathId("id"),
          version: VersionSelectorSchema.openapi({ param: { name: "version", in: "path" }, type: "string" }),
        }),
      },
      responses: {
        200: json(
          z.object({ variant_id: z.string(), mime_type: z.string(), variant_type: VariantTypeSchema, link: z.string(), expire: IsoDate }),
          "Rendition",
        ),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(absolute(c, await proxyDoc(c.var.rc, c.var.actor, id, version)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Assets"],
      summary: "An asset: its fields and Info form, plus versions, variants, groups or tags on request",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParams,
        query: z.object({ info: FlagSchema, versions: FlagSchema, variants: FlagSchema, groups: FlagSchema, tags: FlagSchema }),
      },
      responses: { 200: json(AssetSchema, "The asset"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await getAsset(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags: ["Assets"],
      summary: "Rename an asset, change its MIME type or class",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: jsonBody(UpdateAssetSchema) },
      responses: { 200: json(AssetSchema, "The asset"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await updateAsset(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags: ["Assets"],
      summary: "Move an asset to the trash (restorable for 30 days)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      await trashAsset(c.var.rc, c.var.actor, c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
