import { createRoute, z } from "@hono/zod-openapi";
import { HELPER_PLATFORM_IDS } from "../../../shared/helper-platforms";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { helperDownload, listHelperBuilds } from "../../services/system";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";

const PlatformSchema = z.enum(HELPER_PLATFORM_IDS).openapi({ example: "windows-x64" });
const HelperBuildSchema = z
  .object({ platform: PlatformSchema, file: z.string(), size: z.number().int(), uploaded_at: z.string() })
  .openapi("HelperBuild");

/** The local disk helper as a program to download (decision 023, `npm run helper:build`); any signed-in user. */
export const helperRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/builds",
      tags: ["Helper"],
      summary: "The helper programs an administrator has uploaded, one per platform",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: { description: "Uploaded builds", content: { "application/json": { schema: z.array(HelperBuildSchema) } } },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json(await listHelperBuilds(c.var.rc), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/download/{platform}",
      tags: ["Helper"],
      summary: "Downloads the helper program for one platform",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ platform: PlatformSchema }) },
      responses: {
        200: { description: "The program", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const response = await helperDownload(c.var.rc, c.req.valid("param").platform);
      if (!response) throw new AppError("NOT_FOUND", ru.helperBuilds.notUploaded);
      return response;
    },
  );
