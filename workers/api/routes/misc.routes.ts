import { createRoute, z } from "@hono/zod-openapi";
import { BUILD_INFO } from "../../../shared/generated/build-info";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { checkHealth, chooseUploadServer, uploadServers } from "../../services/system";
import { requireAuth } from "../middleware/require-auth";
import { API_VERSION } from "../middleware/request-lifecycle";
import { bearerSecurity, createRouter, errorResponses } from "../router";

const HealthCheckSchema = z.object({ ok: z.boolean(), latency_ms: z.number(), error: z.string().optional() });
const HealthSchema = z
  .object({ status: z.enum(["ok", "fail"]), checks: z.object({ d1: HealthCheckSchema, r2: HealthCheckSchema }) })
  .openapi("Health");
const UldlServerSchema = z.object({ id: z.string(), url: z.string() }).openapi("UploadServer");
export const UldlStatusSchema = z
  .array(z.object({ id: z.string().min(1).max(64), ping: z.number().nullable() }))
  .min(1)
  .max(100)
  .openapi("UploadServerPings");

export const miscRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/version",
      tags: ["Misc"],
      summary: "Build and API versions",
      responses: {
        200: {
          description: "Versions",
          content: { "application/json": { schema: z.object({ version: z.string(), api_version: z.string(), built_at: z.string() }) } },
        },
      },
    }),
    (c) => c.json({ version: BUILD_INFO.version, api_version: API_VERSION, built_at: BUILD_INFO.builtAt }, 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags: ["Misc"],
      summary: "Checks D1 and R2 with real round trips",
      responses: {
        200: { description: "Healthy", content: { "application/json": { schema: HealthSchema } } },
        503: { description: "A dependency failed", content: { "application/json": { schema: HealthSchema } } },
      },
    }),
    async (c) => {
      const health = await checkHealth(c.var.rc);
      c.header("Cache-Control", "no-store");
      return health.status === "ok" ? c.json(health, 200) : c.json(health, 503);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/ping",
      tags: ["Misc"],
      summary: "Reachability probe for upload server selection",
      responses: { 200: { description: "pong", content: { "text/plain": { schema: z.string() } } } },
    }),
    (c) => {
      c.header("Cache-Control", "no-store");
      return c.text("pong", 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/uldl-list",
      tags: ["Misc"],
      summary: "Upload/download servers; each is probed with GET {url}/ping",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: { description: "Servers", content: { "application/json": { schema: z.array(UldlServerSchema) } } },
        ...errorResponses(401),
      },
    }),
    (c) => c.json(uploadServers(c.var.rc, new URL(c.req.url).origin), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/uldl-status",
      tags: ["Misc"],
      summary: "Report pings (ms; null when unreachable) and get the chosen server id as text",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: UldlStatusSchema } } } },
      responses: {
        200: { description: "Chosen server id", content: { "text/plain": { schema: z.string() } } },
        ...errorResponses(400, 401),
      },
    }),
    (c) => {
      const chosen = chooseUploadServer(uploadServers(c.var.rc, new URL(c.req.url).origin), c.req.valid("json"));
      if (!chosen) throw new AppError("BAD_REQUEST", ru.errors.unknownServer);
      return c.text(chosen, 200);
    },
  );
