import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ru } from "../../../shared/i18n/ru";
import {
  AnchorSchema,
  listAssetComments,
  listNotifications,
  loginCandidates,
  mentionTokens,
  notificationSettings,
  openInboxStream,
  putNotificationSettings,
  readNotifications,
} from "../../services/comments";
import { acceptsGzip } from "../../lib/accept-encoding";
import { mapAnswer } from "../../db/library-shard-call";
import { jsonBodyResponse, jsonTextBody } from "../../lib/json-body-cache";
import { fileOfComment, writeWhereItLives } from "../library-place";
import { readWhereItLives } from "../library-reads";
import { enforceRateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema } from "../schemas";
import type { AppEnv } from "../types";

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
/** A JSON body with the example the document shows (and the contract suite checks against the schema). */
const body = <T extends z.ZodType>(schema: T, example: z.input<T>) => ({
  body: { required: true, content: { "application/json": { schema, example } } },
});

/** Most notifications marked read by id in one call. */
const MAX_READ_IDS = 500;

// Control characters other than line breaks and tabs never belong in a comment.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Plain text, 1–10,000 characters, never rendered as markup; stored exactly as typed. */
export const CommentTextSchema = z
  .string()
  .max(10_000)
  .refine((t) => t.trim().length > 0, ru.comments.emptyText)
  .refine((t) => !CONTROL.test(t), ru.comments.controlChars)
  .openapi({ example: "Логотип обрезан справа, @ivan посмотри" });

const CommentCreateSchema = z
  .object({
    text: CommentTextSchema,
    version: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "default: the latest version" }),
    anchor: AnchorSchema.optional().openapi({
      description: "{region: {x,y,w,h}} fractions of the picture; {time: {start, end?}} seconds; {page: n} from 1; {path} a drawn mark",
    }),
    parent_id: IdSchema.optional(),
  })
  .strict()
  .openapi("CommentCreate");

const CommentSchema = z
  .object({
    comment_id: z.string(),
    asset_id: z.string(),
    version: z.number().int(),
    author_id: z.string(),
    author_name: z.string(),
    text: z.string(),
    anchor: z.record(z.string(), z.unknown()).nullable(),
    parent_id: z.string().nullable(),
    resolved: z.boolean(),
    mentions: z.array(z.string()).openapi({ description: "logins named with @login" }),
    ctime: z.string(),
    mtime: z.string(),
  })
  .openapi("Comment");

const CommentListQuerySchema = z.object({
  version: z.coerce.number().int().min(1).max(1_000_000).optional(),
  skip: z.coerce.number().int().min(0).max(1_000_000).default(0),
  take: z.coerce.number().int().min(1).max(5000).default(2000),
});

const NotificationSchema = z
  .object({
    id: z.string(),
    kind: z.string().openapi({ description: "mention, reply, comment, review_requested, review_decided or collection_shared" }),
    asset_id: z.string().nullable(),
    asset_name: z.string().nullable(),
    comment_id: z.string().nullable(),
    by_id: z.string().nullable(),
    by_name: z.string().nullable(),
    text: z.string(),
    link: z.record(z.string(), z.unknown()).openapi({ description: "version, anchor (moment, page, region) or collection_id" }),
    ctime: z.string(),
    read: z.boolean(),
  })
  .openapi("Notification");

const NotificationQuerySchema = z.object({
  unread: z.enum(["0", "1", "true", "false"]).optional().openapi({ description: "1: only unread ones" }),
  skip: z.coerce.number().int().min(0).max(1_000_000).default(0),
  take: z.coerce.number().int().min(1).max(200).default(50),
});

const ReadSchema = z
  .union([z.object({ all: z.literal(true) }).strict(), z.object({ ids: z.array(IdSchema).min(1).max(MAX_READ_IDS) }).strict()])
  .openapi("NotificationsRead");

const SettingsSchema = z
  .object({ email: z.email().max(254).nullable(), digest: z.boolean() })
  .strict()
  .openapi("NotificationSettings");

const FollowSchema = z.object({ asset_id: z.string(), following: z.boolean() }).openapi("Follow");

/**
 * Texts written on files, per person (people behind one address each get their own): a comment stays for everyone who
 * reads the file, notifies whom it mentions and travels with the file into its library's shard.
 */
const limitWriting = (c: Context<AppEnv>) => enforceRateLimit(c, "comments", { perIp: false });

/** Comments on files, «Следить», and the inbox (decision 035). */
export const commentRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/asset/{id}/comments",
      tags: ["Comments"],
      summary: "Comment on a file version, optionally pinned to a region, a moment or a page",
      description: "Read on the file is enough. 404 for a file the caller may not read, exactly as for none.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        ...body(CommentCreateSchema, { text: "Логотип обрезан справа", anchor: { region: { x: 0.7, y: 0.1, w: 0.2, h: 0.15 } } }),
      },
      responses: { 201: json(CommentSchema, "Created"), ...errorResponses(400, 401, 404, 409, 415, 429) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      await limitWriting(c);
      // People it mentions ride along to a library shard, which checks their logins (decision 043, «Writes»).
      const logins = mentionTokens(input.text).flatMap(loginCandidates);
      return c.json(await writeWhereItLives(c, id, "createComment", [id, input], { named: { logins } }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/asset/{id}/comments",
      tags: ["Comments"],
      summary: "The comments of a file, oldest first (replies carry parent_id)",
      description:
        "A page holds `take` comments, or fewer once their texts reach 2 MB (one at least): while `skip` plus the items answered is below `total`, the next page begins there.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: CommentListQuerySchema },
      responses: {
        200: json(
          z.object({ total: z.number().int(), following: z.boolean(), latest_version: z.number().int(), items: z.array(CommentSchema) }),
          "Comments",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      // The service answers the list already serialised (kept per comment revision, gzipped once); the body is the
      // schema's JSON, which the route's typed answer cannot express as bytes (hence the cast).
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      // In a library's shard the list is read afresh there (no isolate keeps another object's rows).
      const body = await readWhereItLives(
        c.var,
        id,
        () => listAssetComments(c.var.rc, c.var.actor, id, query),
        async (shard, caller) =>
          mapAnswer(await shard.routedRead(caller, c.var.actor, "commentListText", [id, query]), (text) =>
            text === null ? null : jsonTextBody(text),
          ),
      );
      return (await jsonBodyResponse(body, acceptsGzip(c.req.header("accept-encoding")))) as never;
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/comments/{id}",
      tags: ["Comments"],
      summary: "Edit a comment's text (its author only)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        ...body(z.object({ text: CommentTextSchema }).strict().openapi("CommentEdit"), { text: "Логотип обрезан справа и снизу" }),
      },
      responses: { 200: json(CommentSchema, "Edited"), ...errorResponses(400, 401, 403, 404, 409, 415, 429) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { text } = c.req.valid("json");
      await limitWriting(c);
      const logins = mentionTokens(text).flatMap(loginCandidates);
      return c.json(await writeWhereItLives(c, id, "editComment", [id, text], { named: { logins }, placedBy: fileOfComment(c, id) }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/comments/{id}",
      tags: ["Comments"],
      summary: "Delete a comment and its replies (its author, or whoever holds acl on the file)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(z.object({ comment_id: z.string(), deleted: z.literal(true) }), "Deleted"),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "deleteComment", [id], { placedBy: fileOfComment(c, id) }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/comments/{id}/resolve",
      tags: ["Comments"],
      summary: "Resolve or reopen a comment (read on the file)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParamsSchema,
        ...body(z.object({ resolved: z.boolean() }).strict().openapi("CommentResolve"), { resolved: true }),
      },
      responses: { 200: json(CommentSchema, "Resolved or reopened"), ...errorResponses(400, 401, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { resolved } = c.req.valid("json");
      return c.json(await writeWhereItLives(c, id, "resolveComment", [id, resolved], { placedBy: fileOfComment(c, id) }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/asset/{id}/follow",
      tags: ["Comments"],
      summary: "Follow a file («Следить»): its comments and review decisions come to the inbox",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(FollowSchema, "Following"), ...errorResponses(400, 401, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "setFollow", [id, true]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/asset/{id}/follow",
      tags: ["Comments"],
      summary: "Stop following a file (also one uploaded or commented on)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(FollowSchema, "Not following"), ...errorResponses(400, 401, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "setFollow", [id, false]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/notifications",
      tags: ["Notifications"],
      summary: "The caller's inbox, newest first, with the unread count",
      description: "Only notifications about files the caller may read now (or about no file).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: NotificationQuerySchema },
      responses: {
        200: json(z.object({ unread: z.number().int(), items: z.array(NotificationSchema) }), "Inbox"),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(
        await listNotifications(c.var.rc, c.var.actor, { unread: q.unread === "1" || q.unread === "true", skip: q.skip, take: q.take }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/notifications/read",
      tags: ["Notifications"],
      summary: "Mark notifications read: the listed ids or all",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(ReadSchema, { all: true }),
      responses: { 200: json(z.object({ unread: z.number().int() }), "Unread left"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await readNotifications(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/notifications/settings",
      tags: ["Notifications"],
      summary: "Where and whether the e-mail digest goes",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(SettingsSchema, "Settings"), ...errorResponses(401) },
    }),
    async (c) => c.json(await notificationSettings(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/notifications/settings",
      tags: ["Notifications"],
      summary: "Allow or stop the e-mail digest (at most one a quarter hour)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(SettingsSchema, { email: "editor@example.com", digest: true }),
      responses: { 200: json(SettingsSchema, "Settings"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await putNotificationSettings(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/notifications/stream",
      tags: ["Notifications"],
      summary: "Live inbox changes (Server-Sent Events: `event: inbox` when something new arrived)",
      description: "The events carry no content; the browser then reads GET /api/notifications.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: { description: "text/event-stream" }, ...errorResponses(401) },
    }),
    async (c) => openInboxStream(c.var.rc, c.var.actor.id, c.req.raw),
  );
