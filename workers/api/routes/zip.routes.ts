// The ZIP of a selection: POST answers the archive, a signed link to it, or an export task; the link's GET streams it.
import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import type { Actor, RequestContext } from "../../services/access";
import { openZipLink, requestZip, ZIP_MAX_IDS, type StartZipTask, type ZipSelection } from "../../services/archive";
import { planZipWhereItLives } from "../library-reads";
import { readableCollectionItems } from "../../services/collections";
import { createTask } from "../../services/tasks";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";

export const ZipRequestSchema = z
  .object({
    asset_ids: z.array(IdSchema).max(ZIP_MAX_IDS).default([]).openapi({ description: "files, at the archive's top" }),
    group_ids: z.array(IdSchema).max(ZIP_MAX_IDS).default([]).openapi({ description: "folders, recursively with their paths" }),
    collection_id: IdSchema.optional().openapi({
      description: `a collection: its items the caller may read (or those of asset_ids among them), at most ${ZIP_MAX_IDS}; unreadable items are left out unnamed`,
    }),
    as: z
      .enum(["stream", "url"])
      .default("stream")
      .openapi({ description: "stream: the archive in the answer; url: a signed link (10 minutes) the browser downloads natively" }),
  })
  .refine((b) => b.collection_id !== undefined || b.asset_ids.length + b.group_ids.length > 0, { message: ru.zip.empty, path: ["asset_ids"] })
  .refine((b) => b.collection_id === undefined || b.group_ids.length === 0, { message: ru.collectionExport.zipWithFolders, path: ["group_ids"] })
  .refine((b) => b.asset_ids.length + b.group_ids.length <= ZIP_MAX_IDS, { message: ru.zip.tooManyIds(ZIP_MAX_IDS), path: ["asset_ids"] })
  .openapi("ZipRequest", { example: { asset_ids: ["0123456789abcdef0123456789abcdef"], group_ids: ["fedcba9876543210fedcba9876543210"] } });

const binary = z.string().openapi({ format: "binary" });
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const ip = (header: string | undefined) => header ?? null;

/**
 * A collection's part of a ZIP: its items the caller may read now (or those of `among`), checked by the collections
 * domain (404 for someone it is not shared with); the planner then keeps those the caller may download. Items the
 * caller cannot read never reach the plan, so the archive's skipped list never names them.
 */
async function collectionZipSelection(rc: RequestContext, actor: Actor, id: string, among: readonly string[]): Promise<ZipSelection> {
  const { ids } = await readableCollectionItems(rc, actor, id, ZIP_MAX_IDS + 1, among.length > 0 ? among : undefined);
  if (ids.length > ZIP_MAX_IDS) throw new AppError("BAD_REQUEST", ru.collectionExport.zipTooMany(ZIP_MAX_IDS));
  if (ids.length === 0) throw new AppError("BAD_REQUEST", ru.collectionExport.zipEmpty);
  return { assetIds: ids, groupIds: [] };
}

/** An export task of the selection, owned by the caller; the task checks the caller's rights again as it runs. */
const startZipTask =
  (rc: RequestContext): StartZipTask =>
  (actor, selection, name) =>
    createTask(rc, {
      operationClass: "export",
      name: ru.zip.taskTitle(name),
      ownerId: actor.id,
      entities: [...selection.groupIds.map((id) => ({ id, type: "group" as const })), ...selection.assetIds.map((id) => ({ id, type: "asset" as const }))],
      options: { recursive: true },
    });

export const zipRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags: ["Assets"],
      summary: "A ZIP of files and folders (recursively) or of a collection: the archive, a signed link to it, or an export task when large",
      description:
        "Every chosen file the caller may download; folders recursively with their paths; names made unique. What the caller may see but not download (and ids not found) is listed in a «ПРОПУЩЕНО.txt» entry. Zip64, so no 4 GiB or 65,535-entry limit. Above 10,000 files or 32 GiB the answer is 202 with an export task (GET /api/tasklist/task-result/{id} gives its download link).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: ZipRequestSchema } } } },
      responses: {
        200: {
          description: "The archive (as=stream), or its signed link (as=url)",
          content: {
            "application/zip": { schema: binary },
            "application/json": { schema: z.object({ url: z.string(), expires_at: z.string() }).openapi("ZipLink") },
          },
        },
        202: json(z.object({ job_id: z.string() }).openapi("ZipTask"), "Too large for one request: an export task was queued"),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const selection = body.collection_id
        ? await collectionZipSelection(c.var.rc, c.var.actor, body.collection_id, body.asset_ids)
        : { assetIds: body.asset_ids, groupIds: body.group_ids };
      const answer = await requestZip(
        c.var.rc,
        c.var.actor,
        selection,
        body.as,
        startZipTask(c.var.rc),
        ip(c.req.header("cf-connecting-ip")),
        (actor, chosen) => planZipWhereItLives({ rc: c.var.rc, actor }, chosen),
      );
      if (answer.kind === "stream") return answer.response;
      if (answer.kind === "task") return c.json({ job_id: answer.job_id }, 202);
      return c.json({ url: answer.url, expires_at: answer.expires_at }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Assets"],
      summary: "The ZIP of a selection, through the signed link POST /api/zip answered (as=url)",
      request: {
        params: z.object({ id: IdSchema.openapi({ param: { name: "id", in: "path" } }) }),
        query: z.object({ u: z.string().max(64).optional(), exp: z.string().max(20).optional(), sig: z.string().max(128).optional() }),
      },
      responses: {
        200: { description: "The archive", content: { "application/zip": { schema: binary } } },
        ...errorResponses(400, 404, 409),
      },
    }),
    async (c) =>
      openZipLink(c.var.rc, c.req.valid("param").id, c.req.valid("query"), ip(c.req.header("cf-connecting-ip")), (actor, chosen) =>
        planZipWhereItLives({ rc: c.var.rc, actor }, chosen),
      ),
  );
