/** The contract of the asset calls: request and answer schemas of /api/asset (they feed the OpenAPI document). */
import { z } from "@hono/zod-openapi";
import { VARIANT_TYPES } from "../../db/schema/index";
import { ACCESS_LEVELS } from "../../services/access";
import { TECHNICAL_MAX_UPLOAD_BYTES } from "../../services/storage/pure";
import { MAX_SINGLE_UPLOAD_BYTES, MAX_LIST_ITEMS } from "../../services/library";
import { ErrorSchema } from "../router";
import { EntityNameSchema, IdSchema, MimeSchema } from "../schemas";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** An asset or file name: the shared entity name rules, and well-formed Unicode (storable and encodable). */
export const AssetNameSchema = EntityNameSchema.refine((v) => !LONE_SURROGATE.test(v), "имя содержит некорректные символы Юникода");

export const pathId = (name: string) => IdSchema.openapi({ param: { name, in: "path" } });
export const IdParams = z.object({ id: pathId("id") });

/** A version number in a path: 1, 2, 3 … */
export const VersionNumberSchema = z
  .string()
  .regex(/^\d{1,9}$/, "ожидается номер версии")
  .transform(Number)
  .refine((n) => n >= 1, "номер версии начинается с 1")
  .openapi({ type: "integer", minimum: 1, maximum: 999_999_999 });

/** A version in a path: a number or `latest`. */
export const VersionSelectorSchema = z
  .string()
  .regex(/^(\d{1,9}|latest)$/, "ожидается номер версии или latest")
  .transform((v) => (v === "latest" ? ("latest" as const) : Number(v)))
  .refine((v) => v === "latest" || v >= 1, "номер версии начинается с 1")
  // the regex above is lost with the transform: published as the parameter's pattern
  .openapi({ pattern: "^([1-9][0-9]{0,8}|latest)$" });

export const VariantTypeSchema = z.enum(VARIANT_TYPES).openapi({ example: "initial" });
export const DispositionSchema = z.enum(["attachment", "inline"]);

/** A query flag: `?versions`, `?versions=true`, `?versions=1` are on; `false` and `0` are off. */
export const FlagSchema = z
  .enum(["", "true", "false", "1", "0"])
  .transform((v) => v !== "false" && v !== "0")
  .optional()
  .openapi({ type: "boolean" });

/** `u`, `exp`, `sig` of a signed link; validity is judged by the signature check (403), not here. */
export const SignedQuerySchema = z.object({
  u: z.string().max(64).optional(),
  exp: z.string().max(20).optional(),
  sig: z.string().max(128).optional(),
});

/** A signed link to a variant's bytes: the signature, and the file the variant is of (unsigned; the link is read in its library). */
/** The file a variant is of: it places the read where the file's library lives; without it the catalog's copy answers. */
const FileOfVariant = IdSchema.optional().openapi({
  description: "the file the variant is of: links made by the API and the app's calls carry it (a variant of another file is not found)",
});
export const FileOfVariantQuerySchema = z.object({ a: FileOfVariant });
export const VariantLinkQuerySchema = SignedQuerySchema.extend({ a: FileOfVariant });

export const IsoDate = z.string().openapi({ format: "date-time", example: "2026-11-22T10:15:00.000Z" });

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
  .openapi("AssetUpdate", { minProperties: 1 });

export const IdListSchema = z.object({ ids: z.array(IdSchema).min(1).max(MAX_LIST_ITEMS) });

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

export const PlaySchema = z
  .object({
    version: z.number().int().min(1).optional(),
    variant_type: VariantTypeSchema.optional(),
    disposition: DispositionSchema.optional(),
  })
  .openapi("PlayRequest");

const TagRefSchema = z.object({ tag_id: z.string(), tag_name: z.string() });
export const GroupRefSchema = z.object({ group_id: z.string(), group_name: z.string() }).openapi("AssetGroup");

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

/** A listed version's state (issue 29): made by create-version and empty, receiving bytes, or committed. */
export const VERSION_STATES = ["empty", "uploading", "ready"] as const;

export const VersionEntrySchema = z
  .object({
    version: z.number().int(),
    state: z.enum(VERSION_STATES).openapi({
      description:
        "ready: committed (only ready versions have previews and downloads, and the newest is the current one); empty: made by create-version, no bytes yet (drop-empty-version removes it); uploading: its bytes are arriving",
    }),
    version_id: z.string().nullable().openapi({ description: "null until the version's bytes are committed" }),
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

export const VersionViewSchema = z
  .object({
    version_id: z.string(),
    asset_id: z.string(),
    version: z.number().int(),
    desc: z.string().nullable(),
    ctime: IsoDate,
    user_id: z.string(),
  })
  .openapi("VersionInfo");

export const UploadInfoSchema = z
  .object({
    mode: z.literal("single"),
    variant_id: z.string(),
    version: z.number().int().openapi({ description: "the version this call made: listed as empty (then uploading) until its bytes are committed" }),
    key: z.string().openapi({ description: "the server-generated object key (for Uppy's generateObjectKey)" }),
    upload_url: z.string().openapi({ description: "PUT the bytes here; no bearer needed (the link is signed, about 1 hour)" }),
    method: z.literal("PUT"),
    expire: IsoDate,
    max_size: z.number().int().openapi({
      description:
        "the PUT must send exactly this many bytes; when create-version got no size, the most it may send (its Content-Length is the size)",
    }),
    size_known: z
      .boolean()
      .openapi({ description: "false when create-version got no size: any Content-Length up to max_size is accepted" }),
    headers: z.object({ "content-type": z.string() }),
  })
  .openapi("UploadInfo");

export const MultipartUploadInfoSchema = z
  .object({
    mode: z.literal("multipart"),
    variant_id: z.string(),
    version: z.number().int().openapi({ description: "the version this call made: listed as empty (then uploading) until its bytes are committed" }),
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

export const PlayResultSchema = z
  .object({ link: z.string(), expire: IsoDate, range: z.literal(true) })
  .openapi("PlayResult", { description: "A signed link (about 6 hours) that serves the bytes without a bearer and supports Range" });

export const TrashedAssetSchema = z.object({
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

export const AssetListItemSchema = z.object({
  asset_id: z.string(),
  name: z.string(),
  mimetype: z.string(),
  ctime: IsoDate,
  mtime: IsoDate,
  ver: z.number().int(),
});

export const JsonObjectSchema = z.record(z.string(), z.unknown()).openapi({ description: "stored JSON; {} until processing fills it" });

export const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
export const plainError = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

export const binary = z.string().openapi({ format: "binary" });
export const contentAnswers = {
  200: {
    description: "The bytes (Content-Type of the variant, Content-Length, ETag, Last-Modified, Accept-Ranges)",
    content: { "application/octet-stream": { schema: binary } },
  },
  206: { description: "One byte range (Content-Range)", content: { "application/octet-stream": { schema: binary } } },
  304: { description: "Not modified (If-None-Match)" },
  416: plainError("Malformed or unsatisfiable Range (Content-Range: bytes */size)"),
};
