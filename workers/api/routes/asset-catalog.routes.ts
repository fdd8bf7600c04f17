import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ru } from "../../../shared/i18n/ru";
import { VARIANT_TYPES } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN } from "../../lib/ids";
import { changeClass, classesByIds, createClass, deleteClass, listClasses } from "../../services/metadata";
import {
  PREVIEW_KIND_NAMES,
  PREVIEW_MAX_BYTES,
  PREVIEW_MIME_TYPES,
  PREVIEW_SIZES,
  type PreviewKindName,
  actorFromPlayLink,
  previewsByAssets,
  previewsByVariants,
  readPreview,
  uploadPreview,
  acceptWaveform,
} from "../../services/media";
import { acceptHeal, uploadVideoProxy } from "../../services/library";
import { HEAL_KINDS } from "../../db/schema/index";
import { VIDEO_PROXY_MAX_BYTES, VIDEO_PROXY_MIME_TYPES } from "../../services/library/pure";
import { WAVEFORM_MAX_BUCKETS } from "../../../shared/waveform";
import { enforceRateLimit, rateLimit } from "../middleware/rate-limit";
import { refreshCopiesSoon, runWhereItLives } from "../library-place";
import { readRouted } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { ErrorSchema, bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";
import type { AppEnv } from "../types";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** An asset class name: 1–100 characters after trimming, no control characters. */
export const ClassNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v), ru.catalog.nameControlChars)
  .check(visibleName)
  .openapi({ example: "Интервью", pattern: TRIMMED_TEXT_PATTERN });

/** Field template ids an asset of the class shows; duplicates are dropped, order kept. */
const DefFieldsSchema = z
  .array(IdSchema)
  .max(200)
  .transform((ids) => [...new Set(ids)])
  .openapi({ description: "field template ids" });

export const AssetClassSchema = z.object({ id: z.string(), name: z.string(), def_fields: z.array(z.string()) }).openapi("AssetClass");
export const ClassCreateSchema = z.object({ name: ClassNameSchema, def_fields: DefFieldsSchema.optional() }).openapi("AssetClassCreate");
export const ClassChangeSchema = z
  .object({ name: ClassNameSchema.optional(), def_fields: DefFieldsSchema.optional() })
  .refine((v) => v.name !== undefined || v.def_fields !== undefined, ru.catalog.nothingToChange)
  .openapi("AssetClassChange", { minProperties: 1 });

const IdListSchema = z.object({ ids: z.array(IdSchema).max(500) });

export const PreviewSizeSchema = z
  .object({ name: z.string(), width: z.number().int(), height: z.number().int(), quality: z.number().int() })
  .openapi("PreviewSize");

const PreviewListSchema = IdListSchema.extend({ size: z.enum(PREVIEW_KIND_NAMES).default("thumb") }).openapi("PreviewListRequest");

const UploadPreviewQuerySchema = z.object({
  version: z.coerce.number().int().min(1).max(1_000_000_000).optional().openapi({ description: "version number; default: the latest" }),
  size: z.enum(PREVIEW_KIND_NAMES).default("thumb").openapi({ description: "a preview size, or `strip` (a video's hover-scrub sprite of 10 frames)" }),
  heal: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional()
    .openapi({ description: "heal-on-view: `read` suffices, stored only when the version has no such preview (409 otherwise; a PDF's text card gives way once)" }),
});

const PreviewParamsSchema = z.object({
  id: IdSchema.openapi({ param: { name: "id", in: "path" } }),
  version: z
    .string()
    .regex(/^\d{1,9}$/, "ожидается номер версии")
    .transform(Number)
    .openapi({ param: { name: "version", in: "path" }, description: "version number; 0: the asset's version-less preview", example: "1" }),
  // SPEC names the segment {variant} without saying what it holds: a preview size (thumb, medium: preview-size's
  // `name`), a SPEC §3 variant type, or a variant's id; the last two pick the default size (thumb): previews belong
  // to a version, not a variant, so a variant id only has to be a ready variant of that version.
  variant: z
    .string()
    .max(32)
    .refine((v) => (PREVIEW_KIND_NAMES as readonly string[]).includes(v) || (VARIANT_TYPES as readonly string[]).includes(v) || ID_PATTERN.test(v), {
      message: "ожидается размер превью, тип варианта или его идентификатор",
    })
    .transform((v): { size: PreviewKindName; variantId: string | null } =>
      (PREVIEW_KIND_NAMES as readonly string[]).includes(v)
        ? { size: v as PreviewKindName, variantId: null }
        : { size: "thumb", variantId: ID_PATTERN.test(v) ? v : null },
    )
    .openapi({
      param: { name: "variant", in: "path" },
      // the refinement above, published
      pattern: `^(?:${[...PREVIEW_KIND_NAMES, ...VARIANT_TYPES].join("|")}|[0-9a-f]{32})$`,
      type: "string",
      description: "preview size (thumb, medium, strip), a variant type (initial, master, …) or a variant id of that version, for the default size thumb",
      example: "thumb",
    }),
});

const PreviewLinkQuerySchema = z.object({
  u: z.string().max(64).optional(),
  exp: z.string().max(16).optional(),
  sig: z.string().max(128).optional(),
  p: z.string().max(64).optional().openapi({ description: "the preview id the link was made for: when it is still the current one, the answer is immutable" }),
});

/** SPEC §3 Preview list: `list` holds links relative to `base_url` (the API's origin). */
const previewList = <T extends z.ZodType>(item: T) =>
  z.object({
    base_url: z.string().openapi({ description: "the API's origin; each `preview` link is a path under it", example: "https://mam.example.com" }),
    list: z.array(item),
  });

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const tooLarge = { 413: { description: "Body too large", content: { "application/json": { schema: ErrorSchema } } } };
const binary = z.string().openapi({ type: "string", format: "binary" });

/** shared/waveform.ts as a request/response body: bounded buckets, each 0..1. */
const WaveformBodySchema = z
  .object({
    version: z.literal(1),
    sampleRate: z.number().int().min(1).max(1_536_000),
    durationSec: z.number().min(0).max(1_000_000),
    peaks: z.array(z.number().min(0).max(1)).min(1).max(WAVEFORM_MAX_BUCKETS),
  })
  .openapi("Waveform", { example: { version: 1, sampleRate: 44100, durationSec: 212.5, peaks: [0.02, 0.41, 0.87, 0.65, 0.3] } });

/** A bearer token, or — for `<img src>` — a signed `play` link (`u`, `exp`, `sig`) for the asset in the path. */
const bearerOrPlayLink = createMiddleware<AppEnv>(async (c, next) => {
  const sig = c.req.query("sig");
  if (sig === undefined || c.req.header("authorization")) return requireAuth(c, next);
  const actor = await actorFromPlayLink(c.var.rc, c.req.param("id") ?? "", { u: c.req.query("u"), exp: c.req.query("exp"), sig });
  if (!actor) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  c.set("actor", actor);
  await next();
});

/** Asset classes and previews (SPEC §7 Assets: class-*, content/preview*, upload-preview, preview-size). */
const HealParamsSchema = z.object({ id: IdSchema, version: z.coerce.number().int().min(0).max(1_000_000_000) });
const HealAcceptSchema = z
  .object({ kind: z.enum(HEAL_KINDS), maker: IdSchema.openapi({ description: "the user whose heal is accepted" }) })
  .strict()
  .openapi("HealAccept", { example: { kind: "proxy", maker: "0195f1c2a4b37c0d9e8f1a2b3c4d5e6f" } });
const HealPersonSchema = z.object({ id: z.string(), name: z.string().nullable() });
const HealStateSchema = z
  .object({
    version: z.number().int(),
    can_accept: z.boolean(),
    made: z.array(z.object({ kind: z.string(), made_by: HealPersonSchema, accepted_by: HealPersonSchema.nullable() })),
    pending: z.array(z.object({ kind: z.enum(HEAL_KINDS), made_by: HealPersonSchema, ctime: z.string(), mine: z.boolean() })),
  })
  .openapi("HealState");

export const assetCatalogRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/class-by-ids",
      tags: ["Asset classes"],
      summary: "The known asset classes among the given ids",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: IdListSchema } } } },
      responses: { 200: json(z.array(AssetClassSchema), "Classes"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await classesByIds(c.var.rc, c.var.actor, c.req.valid("json").ids), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/class/list",
      tags: ["Asset classes"],
      summary: "Asset classes by name",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        query: z.object({
          skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
          take: z.coerce.number().int().min(1).max(1000).default(500),
        }),
      },
      responses: { 200: json(z.array(AssetClassSchema), "Classes"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await listClasses(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/class/create",
      tags: ["Asset classes"],
      summary: "Add an asset class (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: ClassCreateSchema } } } },
      responses: { 200: json(AssetClassSchema, "Created"), ...errorResponses(400, 401, 403, 409, 415) },
    }),
    async (c) => c.json(await createClass(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/class/change/{id}",
      tags: ["Asset classes"],
      summary: "Rename an asset class or change its fields (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: ClassChangeSchema } } } },
      responses: { 200: json(AssetClassSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const changed = await changeClass(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json"));
      refreshCopiesSoon(c);
      return c.json(changed, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/class/delete/{id}",
      tags: ["Asset classes"],
      summary: "Delete an unused asset class (administrators)",
      description: "409, naming how many assets and groups use it, while any does.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.object({ id: z.string() }), "Deleted"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await deleteClass(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/preview-size",
      tags: ["Previews"],
      summary: "The preview sizes (fit inside width × height, JPEG/WebP quality)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.array(PreviewSizeSchema), "Preview config"), ...errorResponses(401) },
    }),
    (c) =>
      c.json(
        PREVIEW_SIZES.map((s) => ({ ...s })),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/upload-preview/{id}",
      tags: ["Previews"],
      summary: "Upload a preview image for an asset version",
      description: `The body is the image (${PREVIEW_MIME_TYPES.join(", ")}; at most ${
        PREVIEW_MAX_BYTES / 1024 / 1024
      } MiB). Needs update rights on the asset and replaces the previous preview of that version and size; with \`heal=true\` (heal-on-view) read rights suffice, the image must fit the size's box, it is stored only when the version has no such preview (409 otherwise; a PDF's text card is replaced once) and calls are rate-limited.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        query: UploadPreviewQuerySchema,
        body: { required: true, content: Object.fromEntries(PREVIEW_MIME_TYPES.map((type) => [type, { schema: binary }])) },
      },
      responses: {
        200: json(
          z
            .object({
              preview_id: z.string(),
              size: z.enum(PREVIEW_KIND_NAMES),
              width: z.number().int().optional(),
              height: z.number().int().optional(),
              mime_type: z.string(),
              content_size: z.number().int(),
              pending: z.boolean().openapi({ description: "a heal by a caller without update: shown to him alone until accepted" }),
            })
            .openapi("UploadedPreview"),
          "Stored",
        ),
        ...errorResponses(400, 401, 403, 404, 409, 415, 429, 503),
        ...tooLarge,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { version, size, heal } = c.req.valid("query");
      // Only healing is limited: an upload from a page is one call per file its uploader chose.
      if (heal) await enforceRateLimit(c, "preview-heal");
      // Where the file's library lives (decision 043, «Uploads»), the picture decoded and stored here either way.
      const result = await runWhereItLives(c, id, (rc) => uploadPreview(rc, c.var.actor, {
        assetId: id,
        version,
        size,
        heal,
        contentType: c.req.header("content-type"),
        contentLength: c.req.header("content-length"),
        body: c.req.raw.body,
      }), { streamed: true });
      return c.json(result, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/upload-proxy/{id}",
      tags: ["Previews"],
      summary: "Store a browser-made playable copy of a video version (its proxy_lowres variant)",
      description: `For videos the browser cannot play (MPEG-TS/AVCHD, some MOV/MKV): the viewing page converts the file (WebCodecs) and posts the result. The body is the video (${VIDEO_PROXY_MIME_TYPES.join(", ")}; Content-Length required, at most ${
        VIDEO_PROXY_MAX_BYTES / 1024 / 1024
      } MiB). Needs update rights on the asset and replaces the version's previous proxy; with \`heal=true\` (heal on view) read rights suffice, it is stored only when the version has no \`proxy_lowres\` yet (409 otherwise: first writer wins) and calls are rate-limited like preview heals. The bytes are stored in the version's storage first; the variant row is committed only after they are (nothing is left behind on a refusal).`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        query: z.object({
          version: z.coerce.number().int().min(1).max(1_000_000_000).optional().openapi({ description: "version number; default: the latest" }),
          heal: z
            .enum(["true", "false", "1", "0"])
            .transform((v) => v === "true" || v === "1")
            .optional()
            .openapi({ description: "heal-on-view: `read` suffices, stored only when the version has no proxy_lowres (409 otherwise)" }),
        }),
        body: { required: true, content: Object.fromEntries(VIDEO_PROXY_MIME_TYPES.map((type) => [type, { schema: binary }])) },
      },
      responses: {
        201: json(
          z
            .object({
              variant_id: z.string(),
              version: z.number().int(),
              variant_type: z.literal("proxy_lowres"),
              mime_type: z.string(),
              content_size: z.number().int(),
              replaced: z.boolean(),
              pending: z.boolean().openapi({ description: "a heal by a caller without update: played to him alone until accepted" }),
              link: z.string().optional().openapi({ description: "a signed play link to a pending proxy (its maker's page plays it)" }),
            })
            .openapi("StoredVideoProxy"),
          "Stored",
        ),
        ...errorResponses(400, 401, 403, 404, 409, 415, 429),
        411: { description: "Content-Length missing", content: { "application/json": { schema: ErrorSchema } } },
        ...tooLarge,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { version, heal } = c.req.valid("query");
      // The same bucket as preview heals: a reader's page stores a video's proxy once.
      if (heal) await enforceRateLimit(c, "preview-heal");
      const result = await runWhereItLives(c, id, (rc) => uploadVideoProxy(rc, c.var.actor, {
        assetId: id,
        version,
        heal,
        contentType: c.req.header("content-type"),
        contentLength: c.req.header("content-length"),
        body: c.req.raw.body,
      }), { streamed: true });
      return c.json(result, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/waveform/{id}",
      tags: ["Previews"],
      summary: "Post an audio file's waveform (peaks computed by a browser)",
      description: `For formats the Worker does not decode (MP3, AAC, OGG, FLAC): the page decodes the audio and posts its peaks (at most ${WAVEFORM_MAX_BUCKETS} buckets, each 0..1). Needs update rights on the asset, like upload-preview: stores the peaks for GET /waveform and draws them as the version's thumb and medium previews (PNG), replacing earlier ones. With \`heal=true\` (heal on view) read rights suffice: the peaks are stored only when the version has none (409 otherwise), their pictures only fill missing sizes, and calls are rate-limited like preview heals.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        query: z.object({
          version: z.coerce.number().int().min(1).max(1_000_000).optional(),
          heal: z
            .enum(["true", "false", "1", "0"])
            .transform((v) => v === "true" || v === "1")
            .optional()
            .openapi({ description: "heal-on-view: `read` suffices, stored only when the version has no waveform (409 otherwise)" }),
        }),
        body: { required: true, content: { "application/json": { schema: WaveformBodySchema } } },
      },
      responses: {
        200: json(
          z
            .object({
              buckets: z.number().int(),
              previews: z.array(z.object({ size: z.enum(PREVIEW_KIND_NAMES), width: z.number().int(), height: z.number().int() })),
              pending: z.boolean().openapi({ description: "a heal by a caller without update: shown to him alone until accepted" }),
            })
            .openapi("StoredWaveform"),
          "Stored",
        ),
        ...errorResponses(400, 401, 403, 404, 409, 415, 429, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { version, heal } = c.req.valid("query");
      // The same bucket as preview heals: a reader's page stores a file's peaks once, with its thumb.
      if (heal) await enforceRateLimit(c, "preview-heal");
      const waveform = c.req.valid("json");
      return c.json(await runWhereItLives(c, id, (rc) => acceptWaveform(rc, c.var.actor, { assetId: id, version, waveform, heal })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/heal/{id}/{version}",
      tags: ["Previews"],
      summary: "Who made a version's browser-made pictures and proxy, and which heals await acceptance",
      description:
        "`version` 0 means the latest. Read rights. A heal by a user without update on the file (heal on view) is shown to him alone until a user with update accepts it: `pending` lists every waiting heal for a caller with update (`can_accept`), only the caller's own otherwise.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: HealParamsSchema },
      responses: { 200: json(HealStateSchema, "Makers and pending heals"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await readRouted(c.var, "healState", [id, version]), 200, { "Cache-Control": "private, no-store" });
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/heal/{id}/{version}/accept",
      tags: ["Previews"],
      summary: "Accept a pending heal: the maker's picture, proxy or waveform becomes the one everyone sees",
      description:
        "Needs update rights on the file (403 otherwise; 404 when the caller cannot read it or nothing of that maker and kind waits). The accepted heal replaces the shared one of its kind, and every other pending heal of that kind and version is deleted.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: HealParamsSchema, body: { required: true, content: { "application/json": { schema: HealAcceptSchema } } } },
      responses: {
        200: json(
          z.object({ kind: z.enum(HEAL_KINDS), made_by: z.string(), accepted_by: z.string() }).openapi("AcceptedHeal"),
          "Accepted",
        ),
        ...errorResponses(400, 401, 403, 404, 415),
      },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      const { kind, maker } = c.req.valid("json");
      return c.json(await runWhereItLives(c, id, (rc) => acceptHeal(rc, c.var.actor, { assetId: id, version, kind, maker })), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/waveform/{id}/{version}",
      tags: ["Previews"],
      summary: "An audio file's waveform (peaks per bucket)",
      description: "`version` 0 means the latest. 404 while none is made (WAV: by the preview task; other audio: by a browser).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ id: IdSchema, version: z.coerce.number().int().min(0).max(1_000_000) }) },
      responses: { 200: json(WaveformBodySchema, "Peaks"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await readRouted(c.var, "readWaveform", [id, version]), 200, { "Cache-Control": "private, max-age=60" });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/preview/{id}/{version}/{variant}",
      tags: ["Previews"],
      summary: "A preview image",
      description:
        "`variant` is the preview size, or a SPEC variant type (initial, master, …) meaning the default size `thumb`. Falls back to the asset's version-less preview. Authorised by a bearer token or a signed link from preview-by-list.",
      security: [...bearerSecurity, {}],
      middleware: [bearerOrPlayLink] as const,
      request: { params: PreviewParamsSchema, query: PreviewLinkQuerySchema },
      responses: {
        200: { description: "The image", content: Object.fromEntries(PREVIEW_MIME_TYPES.map((type) => [type, { schema: binary }])) },
        304: { description: "Not modified (If-None-Match)" },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { id, version, variant } = c.req.valid("param");
      const preview = await readRouted(c.var, "findPreview", [id, version, variant.size, variant.variantId ?? null]);
      // Signed links carry the preview id, so their URL changes when the preview does (content-addressed): the
      // browser keeps them without revalidating until the link expires. Private: each was signed for one user.
      const headers = {
        ETag: preview.etag,
        "Cache-Control":
          c.req.query("sig") && c.req.query("p") === preview.id
            ? "private, max-age=3600, immutable"
            : c.req.query("sig")
              ? "private, max-age=3600"
              : "private, max-age=60",
        "X-Content-Type-Options": "nosniff",
        // Who made it (decision 029): a viewer heals a PDF whose picture is still its text card.
        ...(preview.maker ? { "X-Preview-Maker": preview.maker } : {}),
        // The caller's own heal that nobody with `update` has accepted yet: only he is shown it.
        ...(preview.pending ? { "X-Preview-Pending": "1" } : {}),
      };
      const ifNoneMatch = c.req.header("if-none-match");
      if (ifNoneMatch && ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === preview.etag)) {
        return c.body(null, 304, headers);
      }
      const object = await readPreview(c.var.rc, preview.storageKey);
      return c.body(object.body, 200, { ...headers, "Content-Type": preview.mimeType });
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/content/preview-by-list",
      tags: ["Previews"],
      summary: "Preview links of assets (their latest version)",
      description:
        "Readable assets only (others are left out); `preview` is null when the asset has none. Links are signed and expire in 1–2 hours.",
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("previews")] as const,
      request: { body: { required: true, content: { "application/json": { schema: PreviewListSchema } } } },
      responses: {
        200: json(previewList(z.object({ asset_id: z.string(), preview: z.string().nullable() })).openapi("AssetPreviewList"), "Links"),
        ...errorResponses(400, 401, 415),
      },
    }),
    async (c) => {
      const { ids, size } = c.req.valid("json");
      return c.json({ base_url: new URL(c.req.url).origin, list: await previewsByAssets(c.var.rc, c.var.actor, ids, size) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/content/preview-by-varlist",
      tags: ["Previews"],
      summary: "Preview links of the versions that variants belong to",
      description: "Ready variants of readable assets only (others are left out); `preview` is null when there is none.",
      security: bearerSecurity,
      middleware: [requireAuth, rateLimit("previews")] as const,
      request: { body: { required: true, content: { "application/json": { schema: PreviewListSchema } } } },
      responses: {
        200: json(previewList(z.object({ variant_id: z.string(), preview: z.string().nullable() })).openapi("VariantPreviewList"), "Links"),
        ...errorResponses(400, 401, 415),
      },
    }),
    async (c) => {
      const { ids, size } = c.req.valid("json");
      return c.json({ base_url: new URL(c.req.url).origin, list: await previewsByVariants(c.var.rc, c.var.actor, ids, size) }, 200);
    },
  );
