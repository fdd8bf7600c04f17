import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "./types";
import { validationHook } from "./validation";

/** A resource router: every router validates with the same hook so all 400s look alike. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

/** The JSON error body, as documented in the OpenAPI document. */
export const ErrorSchema = z
  .object({
    statusCode: z.number().int().openapi({ example: 400 }),
    message: z.string().openapi({ example: "Поле «user»: обязательное поле" }),
    error: z.string().openapi({ example: "Bad Request" }),
    requestId: z.string().optional(),
  })
  .openapi("Error");

/** Standard error answers for a route's `responses`. */
export function errorResponses(...codes: (400 | 401 | 403 | 404 | 409 | 410 | 415 | 429 | 503)[]) {
  const descriptions: Record<number, string> = {
    400: "Invalid input",
    401: "Not signed in or invalid token",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    410: "Gone",
    415: "Unsupported content type",
    429: "Too many attempts",
    503: "Unavailable",
  };
  return Object.fromEntries(
    codes.map((code) => [code, { description: descriptions[code], content: { "application/json": { schema: ErrorSchema } } }]),
  ) as Record<(typeof codes)[number], { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }>;
}

/** Security requirement for routes that need a bearer token. */
export const bearerSecurity = [{ bearer: [] }];
