import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { createStorage, getStorageUsage, listStorageInfos, updateStorage } from "../../services/storage";
import { readRouted } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { outboundUrlProblem, PUBLIC_HTTP_URL_PATTERN } from "../../lib/outbound-url";
import { IdParamsSchema, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export const StorageNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !CONTROL_CHARS.test(v), ru.catalog.nameControlChars)
  .check(visibleName)
  .openapi({ example: "Архив S3", pattern: TRIMMED_TEXT_PATTERN });

/**
 * An endpoint URL: http(s), no user info, query or fragment (the bucket and key are appended path-style), and never a
 * loopback, private, link-local or metadata address: filtered exactly as automation webhooks are (issue 24), so an
 * administrator's form cannot make the Worker call the operator's internal network.
 */
const EndpointUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (
        (url.protocol === "https:" || url.protocol === "http:") &&
        !url.username &&
        !url.password &&
        !url.search &&
        !url.hash &&
        !v.includes("#")
      );
    } catch {
      return false;
    }
  }, ru.catalog.urlScheme)
  .superRefine((value, ctx) => {
    // An address that does not parse was already reported by the check above; this one judges the host. Loopback is
    // judged by the service, where the deployment's STORAGE_ALLOW_LOOPBACK is known (only the local e2e run sets it).
    const problem = outboundUrlProblem(value, { allowLoopback: true });
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
  })
  // the checks above, published as a pattern (a subset: host names only, no IP address)
  .openapi({ example: "https://s3.eu-central-1.amazonaws.com", pattern: PUBLIC_HTTP_URL_PATTERN });

export const StorageSetupSchema = z
  .object({
    url: EndpointUrlSchema,
    bucket: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,62}$/, ru.catalog.bucketName)
      .openapi({ example: "media-archive" }),
    region: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, ru.catalog.regionName)
      .nullable()
      .optional()
      .openapi({ example: "auto", description: 'SigV4 region; "auto" when omitted' }),
  })
  .openapi("StorageSetup");

export const StorageCredsSchema = z
  .object({
    user: z.string().min(1).max(256).openapi({ description: "access key id" }),
    passwd: z.string().min(1).max(1024).openapi({ description: "secret access key" }),
    token: z.string().max(4096).nullable().optional().openapi({ description: "session token (temporary credentials)" }),
  })
  .openapi("StorageCreds");

export const StorageCreateSchema = z
  .object({
    name: StorageNameSchema,
    setup: StorageSetupSchema,
    creds: StorageCredsSchema,
    verify: z
      .boolean()
      .optional()
      .openapi({ description: "try the endpoint with the keys first (a signed ListObjectsV2, 5 s): 400 with the reason and nothing saved when it fails" }),
  })
  .openapi("StorageCreate");

export const StorageUpdateSchema = z
  .object({
    name: StorageNameSchema.optional(),
    setup: StorageSetupSchema.optional(),
    creds: StorageCredsSchema.optional(),
    default: z
      .literal(true)
      .optional()
      .openapi({ description: "make it the default storage: new files go here unless a folder or file on their way chooses another" }),
    verify: z
      .boolean()
      .optional()
      .openapi({ description: "try the endpoint with the keys first (a signed ListObjectsV2, 5 s): 400 with the reason and nothing saved when it fails" }),
  })
  .refine((v) => v.name !== undefined || v.setup !== undefined || v.creds !== undefined || v.default === true, ru.catalog.nothingToChange)
  .openapi("StorageUpdate", {
    minProperties: 1,
    // a rule across fields the generated schema cannot state (anyOf of required keys is not generated): said in words
    description: "at least one of `name`, `setup`, `creds`, `default`; `verify` alone changes nothing (400)",
  });

export const StorageSchema = z
  .object({
    storage_id: z.string(),
    storage_name: z.string(),
    storage_setup: z
      .object({ url: z.string().nullable(), bucket: z.string().nullable(), region: z.string().nullable() })
      .openapi({ description: "where the bucket is; null for the built-in R2 storage and for callers who are not administrators" }),
    kind: z.enum(["r2", "s3"]),
    has_creds: z.boolean(),
    is_default: z.boolean().openapi({ description: "the default storage: new files go here unless a folder or file on their way chooses another" }),
  })
  .openapi("Storage");

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

/** SPEC §7 storage calls. Credentials go in, never out. */
export const storageRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/create",
      tags: ["Storage"],
      summary: "Add an external S3-compatible storage (administrators)",
      description: "Credentials are encrypted (AES-GCM) before they are stored and are never answered. 409 when the name is taken.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: { required: true, content: { "application/json": { schema: StorageCreateSchema } } } },
      responses: { 200: json(StorageSchema, "Created"), ...errorResponses(400, 401, 403, 409, 415) },
    }),
    async (c) => c.json(await createStorage(c.var.rc, c.var.actor, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/list",
      tags: ["Storage"],
      summary: "Storages, the built-in R2 first",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.array(StorageSchema), "Storages"), ...errorResponses(401) },
    }),
    async (c) => c.json(await listStorageInfos(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/update/{id}",
      tags: ["Storage"],
      summary: "Rename, move or re-key a storage (administrators)",
      description: "The built-in R2 storage can only be renamed (409 otherwise).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: { required: true, content: { "application/json": { schema: StorageUpdateSchema } } } },
      responses: { 200: json(StorageSchema, "Updated"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => c.json(await updateStorage(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/usage/{id}",
      tags: ["Storage"],
      summary: "Bytes, variants and assets a storage holds",
      description: "Administrators see the whole storage; others the part their own assets use.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(
          z
            .object({
              storage_id: z.string(),
              bytes: z.number().int(),
              variants: z.number().int(),
              assets: z.number().int(),
              folders: z
                .array(z.object({ id: z.string(), name: z.string() }))
                .openapi({ description: "folders (at most 50, by name) whose own default storage this is; empty for non-administrators" }),
            })
            .openapi("StorageUsage"),
          "Usage",
        ),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await getStorageUsage(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/for-entity/{id}",
      tags: ["Storage"],
      summary: "The storage an asset or group uses",
      description:
        "A group: its own default storage, else the nearest ancestor's. An asset: its own, else that of the nearest group listing it. Else the built-in R2 storage.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(StorageSchema, "Storage"),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await readRouted(c.var, "storageForEntity", [c.req.valid("param").id]), 200),
  );
