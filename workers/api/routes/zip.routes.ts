// The ZIP of a selection: POST answers the archive, a signed link to it, or an export task; the link's GET streams it.
import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import type { RequestContext } from "../../services/access";
import { openZipLink, requestZip, ZIP_MAX_IDS, type StartZipTask } from "../../services/archive";
import { createTask } from "../../services/tasks";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdSchema } from "../schemas";

export const ZipRequestSchema = z
  .object({
    asset_ids: z.array(IdSchema).max(ZIP_MAX_IDS).default([]).openapi({ description: "files, at the archive's top" }),
    group_ids: z.array(IdSchema).max(ZIP_MAX_IDS).default([]).openapi({ description: "folders, recursively with their paths" }),
    as: z
      .enum(["stream", "url"])
      .default("stream")
      .openapi({ description: "stream: the archive in the answer; url: a signed link (10 minutes) the browser downloads natively" }),
  })
  .refine((b) => b.asset_ids.length + b.group_ids.length > 0, { message: ru.zip.empty, path: ["asset_ids"] })
  .refine((b) => b.asset_ids.length + b.group_ids.length <= ZIP_MAX_IDS, { message: ru.zip.tooManyIds(ZIP_MAX_IDS), path: ["asset_ids"] })
  .openapi("ZipRequest");

const binary = z.string().openapi({ format: "binary" });
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const ip = (header: string | undefined) => header ?? null;

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
      summary: "A ZIP of files and folders (recursively): the archive, a signed link to it, or an export task when large",
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
        ...errorResponses(400, 401, 415),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const answer = await requestZip(
        c.var.rc,
        c.var.actor,
        { assetIds: body.asset_ids, groupIds: body.group_ids },
        body.as,
        startZipTask(c.var.rc),
        ip(c.req.header("cf-connecting-ip")),
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
    async (c) => openZipLink(c.var.rc, c.req.valid("param").id, c.req.valid("query"), ip(c.req.header("cf-connecting-ip"))),
  );
