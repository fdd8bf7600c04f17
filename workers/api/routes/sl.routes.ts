import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { ru } from "../../../shared/i18n/ru";
import { SHARE_ACL } from "../../services/sharing/pure";
import {
  CACHE_STATUS_HEADER,
  cachedSharedInfo,
  cachedShortlinkMedia,
  closedError,
  isClosed,
  linkCreator,
  listActiveLinks,
  MAX_PASSWORD_LENGTH,
  MAX_RECIPIENTS,
  openShortlink,
  sharedMediaTarget,
  sharedZipPlan,
  shortlinkZip,
  storeSharedInfo,
  unlockCookieName,
  unlockLink,
  type MediaKind,
  type MediaTargetRead,
  type SharedZipRead,
} from "../../services/sharing";
import type { RoutedReadArgs, RoutedReadValue } from "../../services/routed-reads";
import { noLibrarySwitched } from "../../db/library-directory";
import { itemOfLink, writeWhereItLives } from "../library-place";
import { planZipWhereItLives, readRouted } from "../library-reads";
import { rejectCrossSite, requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema } from "../schemas";
import type { AppEnv } from "../types";

const IsoOrNull = z
  .string()
  .max(40)
  .refine((v) => !Number.isNaN(Date.parse(v)), "ожидается дата и время ISO 8601")
  .nullable()
  .openapi({ format: "date-time", example: "2026-12-01T00:00:00.000Z" });

/** `[start, end]`: not before / not after, either null (open-ended). */
const TimeRangeSchema = z.tuple([IsoOrNull, IsoOrNull]).nullable().openapi({ example: ["2026-11-25T00:00:00.000Z", "2026-12-01T00:00:00.000Z"] });

/** 1–256 characters; "" (what a client's empty form field sends), null or nothing mean no password. */
const PasswordSchema = z
  .union([z.literal("").transform(() => null), z.string().max(MAX_PASSWORD_LENGTH, ru.sharing.passwordLength(MAX_PASSWORD_LENGTH))])
  .nullable()
  .optional();

const AclSchema = z
  .array(z.enum(SHARE_ACL, { error: ru.sharing.badAcl }))
  .min(1)
  .max(SHARE_ACL.length)
  .openapi({ example: ["read", "download"], description: "read (view), download (originals), download_proxy (proxies); view is always included" });

const EmailSchema = z.email(ru.sharing.badEmail).max(254);
/** One address or a list of up to 50. */
const EmailsSchema = z
  .union([
    z.literal("").transform((): string[] => []),
    EmailSchema.transform((e) => [e]),
    z.array(EmailSchema).max(MAX_RECIPIENTS, ru.sharing.tooManyRecipients(MAX_RECIPIENTS)),
  ])
  .openapi({ example: ["colleague@example.com"] });

export const ShortlinkCreateSchema = z
  .object({
    time_range: TimeRangeSchema.optional(),
    password: PasswordSchema,
    acl: AclSchema.optional(),
    email: EmailsSchema.nullable().optional(),
  })
  .openapi("ShortlinkRequest");

export const ShortlinkUpdateSchema = z
  .object({ time_range: TimeRangeSchema.optional(), password: PasswordSchema, acl: AclSchema.optional() })
  .openapi("ShortlinkUpdate");

const ShortlinkSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    entity_id: z.string(),
    entity_type: z.enum(["asset", "group", "collection"]),
    entity_name: z.string().nullable(),
    creator: z.string(),
    creator_name: z.string().nullable(),
    created: z.string(),
    time_range: z.tuple([z.string().nullable(), z.string().nullable()]),
    has_password: z.boolean(),
    acl: z.array(z.enum(SHARE_ACL)),
    views: z.number().int(),
    downloads: z.number().int(),
    last_opened: z.string().nullable(),
  })
  .openapi("Shortlink");

const SharedFolderSchema = z.object({ group_id: z.string(), name: z.string() }).openapi("SharedFolder");

const SharedAssetSchema = z
  .object({
    asset_id: z.string(),
    name: z.string(),
    mimetype: z.string(),
    size: z.number().nullable(),
    thumb_url: z.string().nullable().openapi({ description: "null when the file has no preview (show a type icon)" }),
    preview_url: z.string().nullable(),
    media_url: z.string(),
    download_url: z.string().nullable(),
    proxy_download_url: z.string().nullable(),
  })
  .openapi("SharedAsset");

const SharedInfoSchema = z
  .union([
    z.object({ id: z.string(), password_required: z.literal(true) }),
    z.object({
      id: z.string(),
      password_required: z.literal(false),
      entity_type: z.enum(["asset", "group", "collection"]),
      entity_id: z.string(),
      name: z.string(),
      creator_name: z.string(),
      acl: z.array(z.enum(SHARE_ACL)),
      time_range: z.tuple([z.string().nullable(), z.string().nullable()]),
      asset: SharedAssetSchema.optional(),
      group: z
        .object({
          folder_id: z.string(),
          path: z.array(SharedFolderSchema),
          folders: z.array(SharedFolderSchema),
          items: z.array(SharedAssetSchema),
          page: z.number(),
          page_size: z.number(),
          has_more: z.boolean(),
          zip_url: z.string().nullable(),
        })
        .optional()
        .openapi({ description: "a folder's page, or a collection's (no sub-folders; its items the creator may read, in collection order)" }),
    }),
  ])
  .openapi("SharedInfo");

/** Link ids are checked by the service (malformed ones are the same 404 as unknown ones); this only bounds them. */
const LinkParams = z.object({ id: z.string().max(64).openapi({ param: { name: "id", in: "path" }, example: "Qm9vTGlua0lkMTIzNDU2Nz" }) });
const PageQuery = z.object({
  page: z.coerce.number().int().min(0).max(100_000).default(0),
  folder: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .openapi({ description: "a folder inside the shared folder (404 outside it)" }),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const binary = z.string().openapi({ format: "binary" });

function visitor(c: Context<AppEnv>) {
  return { ip: c.req.header("cf-connecting-ip") ?? null };
}

function origin(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

/**
 * What a media URL serves, read where its file's library lives (decision 051): the link's maker, whose rights it
 * carries, found by the link's catalog row (as the link's writes are placed), then the file's place beside his copy.
 * Over the catalog at once while this isolate knows no library is in a shard, or for no such link.
 */
function mediaWhereItLives(c: Context<AppEnv>): MediaTargetRead {
  return (linkId, assetId, kind, cookie) =>
    asLinkMaker(c, linkId, "sharedMedia", [assetId, linkId, kind, cookie], () => sharedMediaTarget(c.var.rc, linkId, assetId, kind, cookie));
}

/** A folder's ZIP is planned where it lives; a collection's (placed in the catalog), its items where each lives. */
function zipWhereItLives(c: Context<AppEnv>): SharedZipRead {
  const rc = c.var.rc;
  return (linkId, folderId, cookie) =>
    asLinkMaker(c, linkId, "sharedZip", [folderId, linkId, cookie], () =>
      sharedZipPlan(rc, linkId, folderId, cookie, (creator, items) => planZipWhereItLives({ rc, actor: creator }, items)),
    );
}

/**
 * What a link serves, read where its file or folder lives as the link's maker (whose rights it carries); a
 * collection's link, or while no library lives in a shard, over the catalog (`here`).
 */
async function asLinkMaker<K extends "sharedMedia" | "sharedZip">(
  c: Context<AppEnv>,
  linkId: string,
  name: K,
  args: RoutedReadArgs<K>,
  here: () => Promise<RoutedReadValue<K>>,
): Promise<RoutedReadValue<K>> {
  const creator = noLibrarySwitched() ? undefined : await linkCreator(c.var.rc, linkId);
  return creator ? readRouted({ rc: c.var.rc, actor: creator }, name, args) : here();
}

/** Open-link answers are per visitor (cookie, counts): never cached by anyone. */
function noStore(c: Context<AppEnv>) {
  c.header("Cache-Control", "no-store");
  c.header("X-Robots-Tag", "noindex");
}

/** Shortlinks (SPEC §7): sharing an asset, a group or a collection with anyone, and the anonymous calls of `/sl/{id}`. */
export const slRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/create/{id}",
      tags: ["Shortlinks"],
      summary: "Share an asset, a group or a collection: answers the link as text (needs read and acl, download rights need download; a collection: its owner or an administrator)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(ShortlinkCreateSchema) },
      responses: {
        200: { description: "The link, https://<host>/sl/<id>", content: { "text/plain": { schema: z.string() } } },
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const { id } = c.req.valid("param");
      const url = await writeWhereItLives(c, id, "createShortlink", [id, { ...input, email: input.email ?? undefined }, origin(c), visitor(c)]);
      return c.text(url, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/for-entity/{id}",
      tags: ["Shortlinks"],
      summary: "The live links of an item (everyone's for those holding acl on it, else the caller's own)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.array(ShortlinkSchema), "Links"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "linksForEntity", [c.req.valid("param").id, origin(c)]), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/list",
      tags: ["Shortlinks"],
      summary: "Every active link (administrators), newest first",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        query: z.object({ skip: z.coerce.number().int().min(0).max(10_000_000).default(0), take: z.coerce.number().int().min(1).max(500).default(50) }),
      },
      responses: { 200: json(z.array(ShortlinkSchema), "Links"), ...errorResponses(400, 401, 403) },
    }),
    async (c) => {
      const { skip, take } = c.req.valid("query");
      return c.json(await listActiveLinks(c.var.rc, c.var.actor, origin(c), skip, take), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/info/{id}",
      tags: ["Shortlinks"],
      summary: "Open a link (anonymous): the item, or only that a password is needed; 410 revoked/expired, 403 not yet open",
      request: { params: LinkParams, query: PageQuery },
      responses: { 200: json(SharedInfoSchema, "The shared item"), ...errorResponses(403, 404, 410) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { page, folder } = c.req.valid("query");
      // Links without a password go through the edge cache (keyed on the link's revision, never on the cookie).
      const cached = await cachedSharedInfo(c.var.rc, origin(c), id, { page, folder }, visitor(c));
      // A hit is the stored SharedInfo JSON as it was serialised (the typed answer cannot express that, hence the cast).
      if (cached.hit) return cached.hit as never;
      const info = await openShortlink(c.var.rc, id, getCookie(c, unlockCookieName(id)), visitor(c), page, folder);
      noStore(c);
      c.header(CACHE_STATUS_HEADER, cached.slot ? "miss" : "bypass");
      if (isClosed(info)) {
        if (info.state === "password") return c.json({ id, password_required: true as const }, 200);
        throw closedError(info);
      }
      if (cached.slot) storeSharedInfo(c.var.rc, cached.slot, info);
      return c.json(info, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/info/{id}",
      tags: ["Shortlinks"],
      summary: "Open a password link: sets a short-lived signed HttpOnly cookie for the link's page and media",
      // it sets a cookie: another site must not post guesses or plant an unlock in the visitor's browser
      middleware: [rejectCrossSite] as const,
      request: { params: LinkParams, query: PageQuery, body: body(z.object({ password: z.string().max(MAX_PASSWORD_LENGTH) }).openapi("ShortlinkPassword")) },
      responses: { 200: json(SharedInfoSchema, "The shared item"), ...errorResponses(400, 401, 403, 404, 410, 415, 429) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { page, folder } = c.req.valid("query");
      const { cookie, maxAge, info } = await unlockLink(c.var.rc, id, c.req.valid("json").password, visitor(c), { page, folder });
      if (cookie) {
        setCookie(c, unlockCookieName(id), cookie, {
          httpOnly: true,
          sameSite: "Lax",
          secure: new URL(c.req.url).protocol === "https:",
          path: "/",
          maxAge,
        });
      }
      noStore(c);
      if (!info || isClosed(info)) throw closedError(info ?? { state: "not_found" });
      return c.json(info, 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags: ["Shortlinks"],
      summary: "Change a link's window, password (null removes it) or rights (its creator, the item's acl holders, administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: LinkParams, body: body(ShortlinkUpdateSchema) },
      responses: { 200: json(ShortlinkSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const changed = await writeWhereItLives(c, id, "updateShortlink", [id, c.req.valid("json"), origin(c), visitor(c)], {
        placedBy: itemOfLink(c, id),
      });
      return c.json(changed, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags: ["Shortlinks"],
      summary: "Revoke a link: its page and media URLs stop working at once",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: LinkParams },
      responses: { 200: json(z.object({ id: z.string(), revoked: z.literal(true) }), "Revoked"), ...errorResponses(401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "revokeShortlink", [id, visitor(c)], { placedBy: itemOfLink(c, id) }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/media/{link}/{asset}/{kind}",
      tags: ["Shortlinks"],
      summary: "Bytes through a link's signed URL: view (inline, Range), original/proxy (download), thumb/medium previews",
      request: {
        params: z.object({
          link: z.string().max(64).openapi({ param: { name: "link", in: "path" } }),
          asset: z.string().max(64).openapi({ param: { name: "asset", in: "path" } }),
          kind: z.enum(["view", "original", "proxy", "thumb", "medium"]).openapi({ param: { name: "kind", in: "path" } }),
        }),
        query: z.object({ u: z.string().max(64).optional(), exp: z.string().max(20).optional(), sig: z.string().max(128).optional() }),
      },
      responses: {
        200: { description: "The bytes", content: { "application/octet-stream": { schema: binary } } },
        206: { description: "One byte range", content: { "application/octet-stream": { schema: binary } } },
        304: { description: "Not modified" },
        ...errorResponses(400, 401, 403, 404, 410),
      },
    }),
    async (c) => {
      const { link, asset, kind } = c.req.valid("param");
      return cachedShortlinkMedia(
        c.var.rc,
        origin(c),
        link,
        asset,
        kind as MediaKind,
        c.req.valid("query"),
        getCookie(c, unlockCookieName(link)),
        { range: c.req.header("range"), ifNoneMatch: c.req.header("if-none-match"), ifRange: c.req.header("if-range") },
        mediaWhereItLives(c),
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/zip/{link}/{folder}",
      tags: ["Shortlinks"],
      summary: "A shared folder's files (originals) as one ZIP, through the link's signed URL (links that allow download)",
      request: {
        params: z.object({
          link: z.string().max(64).openapi({ param: { name: "link", in: "path" } }),
          folder: z.string().max(64).openapi({ param: { name: "folder", in: "path" } }),
        }),
        query: z.object({ u: z.string().max(64).optional(), exp: z.string().max(20).optional(), sig: z.string().max(128).optional() }),
      },
      responses: {
        200: { description: "The archive", content: { "application/zip": { schema: binary } } },
        ...errorResponses(400, 401, 403, 404, 409, 410),
      },
    }),
    async (c) => {
      const { link, folder } = c.req.valid("param");
      return shortlinkZip(c.var.rc, link, folder, c.req.valid("query"), getCookie(c, unlockCookieName(link)), visitor(c), zipWhereItLives(c));
    },
  );
