import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ru } from "../../../shared/i18n/ru";
import { VARIANT_TYPES } from "../../db/schema/index";
import { AppError } from "../../lib/errors";
import { ID_PATTERN } from "../../lib/ids";
import {
  createVersionUpload,
  dropEmptyVersions,
  linkActor,
  linkUser,
  receiveUpload,
  serveDownload,
  serveLinked,
  textRenditionResponse,
  variantContent,
  type ContentCredential,
  type ContentRequest,
  type SignedParams,
} from "../../services/library";
import type { Actor } from "../../services/access";
import { findVariant } from "../../db/repositories/asset-versions.repository";
import { runWhereItLives } from "../library-place";
import { fileOfVariant, readOfVariant, readRouted } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";
import type { AppEnv } from "../types";
import {
  pathId,
  IdParams,
  VersionSelectorSchema,
  VariantTypeSchema,
  DispositionSchema,
  SignedQuerySchema,
  FileOfVariantQuerySchema,
  VariantLinkQuerySchema,
  IsoDate,
  CreateVersionSchema,
  PlaySchema,
  UploadInfoSchema,
  MultipartUploadInfoSchema,
  UploadCompleteSchema,
  PlayResultSchema,
  json,
  jsonBody,
  plainError,
  binary,
  contentAnswers,
} from "./asset.schemas";

/**
 * The bytes of assets under /api/asset: create-version and the single-PUT upload, downloads and streaming (bearer or
 * signed link, with ranges), play links, and the best viewable rendition. Mounted before asset.routes.ts.
 */

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

/**
 * A variant's bytes for a bearer or through a signed link. Named with its file (`a`: the links the API makes, the
 * app's calls), it is read where the file's library lives: a link's signature and its user checked here (global
 * rows), the variant and the rights on the file there. Without it (an older client or link), its file is the one its
 * catalog row names (`fileOfVariant`); a variant the catalog does not know is the catalog's to answer.
 */
async function linkedContent(
  c: Context<AppEnv>,
  credential: ContentCredential,
  variantId: string,
  assetId: string | undefined,
  req: ContentRequest,
): Promise<Response> {
  const file = assetId ?? (await fileOfVariant(c.var.rc, variantId));
  if (file === undefined) return variantContent(c.var.rc, credential, variantId, req);
  if ("actor" in credential) {
    return serveDownload(c.var.rc, credential.actor.id, await readRouted(c.var, "variantDownload", [file, variantId]), req);
  }
  const by = await linkActor(c.var.rc, credential.purpose, variantId, credential.link);
  c.set("actor", by);
  const linked = await readRouted(c.var, "linkedVariant", [file, variantId, credential.purpose]);
  return serveLinked(c.var.rc, by.id, linked, credential.purpose, req);
}

/** Service links are root-relative (Remix pages use them as is); API answers give absolute URLs. */
function absolute<T extends { link: string }>(c: Context<AppEnv>, value: T): T {
  return { ...value, link: new URL(value.link, c.req.url).href };
}

const VariantSelectorSchema = z
  .string()
  .max(32)
  .refine((v) => (VARIANT_TYPES as readonly string[]).includes(v) || ID_PATTERN.test(v), "ожидается тип варианта или его идентификатор")
  // the refinement above, published: a variant type or a variant id
  .openapi({ pattern: `^(?:${VARIANT_TYPES.join("|")}|[0-9a-f]{32})$` });

const DropEmptyVersionSchema = z
  .object({
    version: z.number().int().min(1).max(999_999_999).optional().openapi({ description: "the empty version to remove; absent: all of them" }),
    variant_id: IdSchema.optional().openapi({ description: "or the version of this upload (the variant create-version answered)" }),
  })
  .strict()
  .refine((b) => b.version === undefined || b.variant_id === undefined, { message: "укажите либо version, либо variant_id", path: ["version"] })
  // "not both", published: the object has no other field (strict), so at most one property
  .openapi("DropEmptyVersion", { example: { version: 3 }, maxProperties: 1 });

// ---------------------------------------------------------------------------------------------------------------
// Routes

export const assetContentRoutes = createRouter()
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
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      // Where the file's library lives (decision 043, «Uploads»); its commit changes every listing of the file.
      const info = await runWhereItLives(c, id, (rc) => createVersionUpload(rc, c.var.actor, id, input), {
        files: [id],
        sameLibrary: input.to_group ? [input.to_group] : [],
      });
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
      const { variantId } = c.req.valid("param");
      const link = c.req.valid("query");
      const upload = {
        body: c.req.raw.body,
        contentLength: c.req.header("content-length"),
        checksums: { contentMd5: c.req.header("content-md5"), checksumSha256: c.req.header("x-amz-checksum-sha256") },
      };
      // Placed by its file, once the link names who sends it (decision 043, «Uploads»).
      const [actor, variant] = await Promise.all([linkActor(c.var.rc, "upload", variantId, link), findVariant(c.var.rc.db, variantId)]);
      const files = variant ? [variant.assetId] : [];
      const done = await runWhereItLives(c, files[0] ?? variantId, (rc) => receiveUpload(rc, variantId, link, upload), {
        actor,
        files,
        streamed: true,
      });
      return c.json(done, 201);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/drop-empty-version/{id}",
      tags: ["Assets"],
      summary: "Remove versions create-version made that never received content",
      description:
        "Needs update on the asset. Without a body (SPEC's call) every empty version of the asset goes; with `version` (or `variant_id`, the upload create-version answered), that one: 404 when the asset has no such version, 409 (nothing removed) when it has content or its bytes are arriving (a multipart upload begun). A single-request upload keeps nothing before its commit, so its version is removable even while its PUT streams (that PUT then answers 404).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: { required: false, content: { "application/json": { schema: DropEmptyVersionSchema } } } },
      responses: {
        200: json(
          z.object({ dropped: z.number().int(), versions: z.array(z.number().int()).openapi({ description: "the numbers removed, newest first" }) }),
          "What was removed",
        ),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { id } = c.req.valid("param");
      return c.json(await runWhereItLives(c, id, (rc) => dropEmptyVersions(rc, c.var.actor, id, body?.version, body?.variant_id)), 200);
    },
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
      const credential = credentialOf(c, c.req.valid("query"), "download");
      if ("link" in credential) {
        // The user the link names is found here; its signature is checked where the variant is resolved.
        const by = await linkUser(c.var.rc, credential.link.u);
        c.set("actor", by);
        const download = await readRouted(c.var, "linkedDownload", [id, version, variant, credential.link]);
        return serveDownload(c.var.rc, by.id, download, contentRequest(c));
      }
      const download = await readRouted(c.var, "resolveDownload", [id, version, variant]);
      return serveDownload(c.var.rc, credential.actor.id, download, contentRequest(c));
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
      request: { params: z.object({ variantId: pathId("variantId") }), query: VariantLinkQuerySchema },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { a, ...link } = c.req.valid("query");
      return linkedContent(c, credentialOf(c, link, "download"), c.req.valid("param").variantId, a, contentRequest(c));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/stream/{variantId}",
      tags: ["Assets"],
      summary: "Serve a variant through a signed play link (inline; Range for seeking)",
      request: {
        params: z.object({ variantId: pathId("variantId") }),
        query: VariantLinkQuerySchema.extend({ disposition: DispositionSchema.optional() }),
      },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 409) },
    }),
    async (c) => {
      const { disposition, a, ...link } = c.req.valid("query");
      return linkedContent(c, credentialOf(c, link, "play"), c.req.valid("param").variantId, a, contentRequest(c, disposition));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/stream/{variantId}/{fileName}",
      tags: ["Assets"],
      summary: "The same as /content/stream/{variantId}; the file name is only for the browser (a PDF viewer's title)",
      request: {
        params: z.object({ variantId: pathId("variantId"), fileName: z.string().min(1).max(512) }),
        query: VariantLinkQuerySchema.extend({ disposition: DispositionSchema.optional() }),
      },
      responses: { ...contentAnswers, ...errorResponses(400, 401, 403, 409) },
    }),
    async (c) => {
      const { disposition, a, ...link } = c.req.valid("query");
      return linkedContent(c, credentialOf(c, link, "play"), c.req.valid("param").variantId, a, contentRequest(c, disposition));
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
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(absolute(c, await readRouted(c.var, "playAsset", [id, c.req.valid("json")], "asset")), 200);
    },
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
        query: FileOfVariantQuerySchema,
        body: { required: false, content: { "application/json": { schema: z.object({ disposition: DispositionSchema.optional() }) } } },
      },
      responses: { 200: json(PlayResultSchema, "Play link"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) =>
      c.json(
        absolute(c, await readOfVariant(c.var, "playVariant", [c.req.valid("query").a, c.req.valid("param").variant, c.req.valid("json").disposition])),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content/play-variant/{variant}",
      tags: ["Assets"],
      summary: "A play link to a variant (query `disposition=attachment` for download buttons)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({ variant: pathId("variant") }),
        query: FileOfVariantQuerySchema.extend({ disposition: DispositionSchema.optional() }),
      },
      responses: { 200: json(PlayResultSchema, "Play link"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { a, disposition } = c.req.valid("query");
      return c.json(absolute(c, await readOfVariant(c.var, "playVariant", [a, c.req.valid("param").variant, disposition])), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/asset-proxy-doc/{id}/{version}",
      tags: ["Assets"],
      summary: "The best viewable rendition of a version, with a play link; or, with `as=text`, the document's text rendition",
      description:
        "Without `as` (or `as=link`): the best viewable rendition (a proxy, else the master or original — for a PDF its PDF) with a play link; a caller with only `read` gets a screen rendition or 403. With `as=text`: the text the extractor read from that version, as `text/plain; charset=utf-8` named after the file (`read` suffices; 404 when no text was extracted).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({
          id: pathId("id"),
          version: VersionSelectorSchema.openapi({ param: { name: "version", in: "path" }, type: "string" }),
        }),
        query: z.object({ as: z.enum(["link", "text"]).optional().openapi({ description: "`text`: the text rendition itself" }) }),
      },
      responses: {
        200: {
          description: "Rendition (JSON), or the text rendition with `as=text`",
          content: {
            "application/json": {
              schema: z.object({ variant_id: z.string(), mime_type: z.string(), variant_type: VariantTypeSchema, link: z.string(), expire: IsoDate }),
            },
            "text/plain": { schema: z.string() },
          },
        },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      // The text rendition is a plain-text body, outside the JSON answer's typing.
      if (c.req.valid("query").as === "text") return textRenditionResponse(await readRouted(c.var, "textRendition", [id, version])) as never;
      return c.json(absolute(c, await readRouted(c.var, "proxyDoc", [id, version], "asset")), 200);
    },
  );
