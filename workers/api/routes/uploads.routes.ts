import { createRoute, z } from "@hono/zod-openapi";
import {
  AddItemSchema,
  ItemIdSchema,
  ItemPatchSchema,
  KeepAliveIdsSchema,
  QUEUE_POLICY,
  ReportsSchema,
  UPLOAD_STATUSES,
  AddItemsSchema,
} from "../../../durable-objects/upload-queue.rules";
import {
  QUEUE_SOCKET_PROTOCOL,
  addUploads,
  cancelUpload,
  clearCompletedUploads,
  getUploadQueue,
  keepUploadsAlive,
  openUploadSocket,
  removeUpload,
  reportUploads,
  updateUpload,
} from "../../services/uploads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";

/** One queued file as every queue call and the WebSocket answer it. */
export const UploadItemSchema = z
  .object({
    id: z.string().openapi({ description: "chosen by the client (1–64 characters)", example: "0193a1b2c3d4e5f60718293a4b5c6d7e" }),
    fileName: z.string().openapi({ example: "Интервью 🎬.mov" }),
    size: z.number().int().openapi({ description: "bytes" }),
    groupId: z.string().nullable(),
    assetId: z.string().nullable(),
    versionOf: z.string().optional().openapi({ description: "present when the file is a new version of this asset (set at add)" }),
    variantId: z.string().nullable(),
    uploadId: z.string().nullable().openapi({ description: "the storage's multipart upload id" }),
    status: z.enum(UPLOAD_STATUSES),
    progress: z.number().openapi({ description: "0–100; 100 from uploaded on" }),
    speed: z.number().nullable().openapi({ description: "bytes per second while uploading, else null" }),
    error: z.string().nullable(),
    cancelled: z.boolean().openapi({ description: "cancel was asked: the engine holding it stops it, deletes the asset and removes it" }),
    ctime: z.number().int().openapi({ description: "epoch ms" }),
    mtime: z.number().int().openapi({ description: "epoch ms of the last visible change" }),
    lastSeen: z.number().int().openapi({ description: "epoch ms of the last keep-alive or report" }),
  })
  .openapi("UploadItem");

export const UploadQueueSchema = z
  .object({
    items: z.array(UploadItemSchema).openapi({ description: "in queue order (arrival)" }),
    finished: z.boolean().openapi({ description: "every item is completed or error" }),
    next: z.string().nullable().openapi({ description: "id of the oldest waiting item while the queue is not finished" }),
  })
  .openapi("UploadQueue");

export const UploadAddSchema = z
  .object({ items: AddItemsSchema.openapi({ description: `1–${QUEUE_POLICY.maxAddBatch} files` }) })
  .openapi("UploadAdd");
export const UploadNewItemSchema = AddItemSchema.openapi("UploadNewItem");
export const UploadPatchSchema = ItemPatchSchema.openapi("UploadPatch");
export const UploadReportsSchema = z
  .object({ reports: ReportsSchema.openapi({ description: `1–${QUEUE_POLICY.maxReportBatch} reports, applied in order` }) })
  .openapi("UploadReports");

const ReportResultSchema = z
  .object({
    id: z.string(),
    status: z.union([z.literal(200), z.literal(404), z.literal(409)]).openapi({ description: "what PATCH /uploads/{id} would have answered" }),
    item: UploadItemSchema.optional().openapi({ description: "the item after the report (status 200)" }),
    message: z.string().optional().openapi({ description: "why it was refused (404, 409)" }),
  })
  .openapi("UploadReportResult");

export const UploadKeepAliveSchema = z.object({ ids: KeepAliveIdsSchema }).openapi("UploadKeepAlive");
export const UploadCancelSchema = z
  .object({
    removed: z.boolean(),
    item: UploadItemSchema.nullable().openapi({ description: "the item marked cancelled; null when removed" }),
  })
  .openapi("UploadCancel");

const ItemParamsSchema = z.object({
  id: ItemIdSchema.openapi({ param: { name: "id", in: "path" }, example: "0193a1b2c3d4e5f60718293a4b5c6d7e" }),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

/**
 * The caller's upload queue (SPEC §3 upload queue item, §4 statuses): one Durable Object per user, so every call
 * reaches only the caller's own queue. Every change is pushed to the user's tabs over `GET /api/uploads/ws`.
 */
export const uploadsRoutes = createRouter()
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "get",
      path: "/",
      summary: "The caller's upload queue",
      responses: { 200: json(UploadQueueSchema, "The queue"), ...errorResponses(401) },
    }),
    async (c) => c.json(await getUploadQueue(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/",
      summary: "Queue files",
      description:
        "Items start waiting. Adding an id that is already queued is idempotent: its current item comes back unchanged. " +
        `409 when the queue would hold more than ${QUEUE_POLICY.maxItems} items.`,
      request: body(UploadAddSchema),
      responses: {
        200: json(z.object({ items: z.array(UploadItemSchema) }), "The item of every input, in input order"),
        ...errorResponses(400, 401, 409, 415),
      },
    }),
    async (c) => c.json({ items: await addUploads(c.var.rc, c.var.actor, c.req.valid("json").items) }, 200),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/keepalive",
      summary: "Keep-alive of a tab (every 3 s)",
      description:
        `Marks the listed items as still held by a browser. A busy, uploading or uploaded item not heard from for ` +
        `${QUEUE_POLICY.staleAfterMs / 1000} s becomes error and its multipart upload is aborted. Unknown ids are ignored.`,
      request: body(UploadKeepAliveSchema),
      responses: { 204: { description: "Noted" }, ...errorResponses(400, 401, 415) },
    }),
    async (c) => {
      await keepUploadsAlive(c.var.rc, c.var.actor, c.req.valid("json").ids);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/report",
      summary: "Several engine reports at once",
      description:
        "The batched form of PATCH /uploads/{id}: each report `{ id, patch }` is applied in order, as PATCH would, and answers its own " +
        "result (the item, or 404/409 with the reason), so a refused report does not hold back the others. A tab uploading many small " +
        "files sends its status changes this way, a few requests a second instead of one per change.",
      request: body(UploadReportsSchema),
      responses: { 200: json(z.object({ results: z.array(ReportResultSchema) }), "One result per report, in order"), ...errorResponses(400, 401, 404, 415) },
    }),
    async (c) => c.json({ results: await reportUploads(c.var.rc, c.var.actor, c.req.valid("json").reports) }, 200),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/clear",
      summary: "Remove the completed items",
      responses: { 200: json(z.object({ removed: z.number().int() }), "How many items were removed"), ...errorResponses(401) },
    }),
    async (c) => c.json({ removed: await clearCompletedUploads(c.var.rc, c.var.actor) }, 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/ws",
      tags: ["Uploads"],
      summary: "Live queue updates (WebSocket)",
      description:
        'Upgrades to a WebSocket that first receives `{type:"snapshot",items}`, then `{type:"item",item}` and ' +
        '`{type:"removed",id}` for every change (`snapshot` again after a clear). Browsers cannot send Authorization ' +
        `on a WebSocket: pass the access token as the subprotocol next to \`${QUEUE_SOCKET_PROTOCOL}\` ` +
        `(\`new WebSocket(url, ["${QUEUE_SOCKET_PROTOCOL}", token])\`) or in the \`token\` query parameter. ` +
        "The socket is closed with code 4401 at the first event after the token expires: reconnect with a fresh one. " +
        'The socket answers "ping" with "pong", `{type:"snapshot"}` with a snapshot, and takes `{type:"keepalive",ids}` as a keep-alive.',
      request: {
        query: z.object({
          token: z.string().max(4096).optional().openapi({ description: "access token (when not sent as a subprotocol)" }),
        }),
      },
      responses: { 101: { description: "Switching protocols" }, ...errorResponses(400, 401) },
    }),
    async (c) =>
      openUploadSocket(c.var.rc, c.req.raw, {
        authorization: c.req.header("authorization"),
        protocols: c.req.header("sec-websocket-protocol"),
        token: c.req.valid("query").token,
      }),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "patch",
      path: "/{id}",
      summary: "Report status, progress or ids of an item",
      description:
        "Transitions: waiting→busy|uploading|error, busy→uploading|error, uploading→uploaded|error|waiting, " +
        "uploaded→saving|error, saving→completed|error, error→waiting; completed is final. Progress and speed only " +
        "while uploading (progress becomes 100 from uploaded on); an error text only with status error. A cancelled " +
        "item only takes status error. Anything else is 409 and changes nothing.",
      request: { params: ItemParamsSchema, ...body(UploadPatchSchema) },
      responses: { 200: json(UploadItemSchema, "The item"), ...errorResponses(400, 401, 404, 409, 415) },
    }),
    async (c) => c.json(await updateUpload(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "post",
      path: "/{id}/cancel",
      summary: "Cancel an item",
      description:
        "A waiting item is removed at once. Any other item (except a completed one: 409) is marked `cancelled`: the " +
        "engine holding it cancels it in the worker, deletes the asset and then calls DELETE (or reports status error " +
        "when that fails).",
      request: { params: ItemParamsSchema },
      responses: { 200: json(UploadCancelSchema, "What the cancel did"), ...errorResponses(400, 401, 404, 409) },
    }),
    async (c) => c.json(await cancelUpload(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      tags: ["Uploads"],
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      method: "delete",
      path: "/{id}",
      summary: "Remove an item",
      description: "Called after the engine cancelled the upload and the asset was deleted, or to dismiss an item.",
      request: { params: ItemParamsSchema },
      responses: { 204: { description: "Removed" }, ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      await removeUpload(c.var.rc, c.var.actor, c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
