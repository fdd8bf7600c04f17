import type { OpenAPIHono } from "@hono/zod-openapi";
import { API_VERSION } from "./middleware/request-lifecycle";

/**
 * The published OpenAPI document (`GET /api/openapi.json`, committed as docs/openapi.json): the registry's document
 * plus what no single route can say about itself — operation names, the security of public calls, path-parameter
 * rules, tags and `info`. Finishing the document here, in one place, keeps every route file free of boilerplate and
 * makes a new route get the same treatment without anyone remembering to add it.
 */

type Registryish = Pick<OpenAPIHono, "getOpenAPI31Document">;
export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/** `info` and `servers` of the document. */
const objectConfig = (): Parameters<OpenAPIHono["getOpenAPI31Document"]>[0] => ({
  openapi: "3.1.0",
  info: {
    title: "Edge MAM API",
    // SPEC §9 "API description version": what clients send in `x-api-version`.
    version: API_VERSION,
    description:
      "REST API of the media asset manager. Send `Authorization: Bearer <token>` (from /api/auth/login), `x-api-version: 1.0` and optionally `prefer-uldl-server`. Errors are `{ statusCode, message, error, requestId }`. Operation ids are `<method><Path segments>` (docs/api.md, «Operation ids»); they are part of the contract.",
    // Each installation is run by its own administrators; the document names no address it cannot vouch for.
    contact: { name: "The administrators of this Edge MAM installation" },
  },
  servers: [{ url: "/", description: "The origin serving this document" }],
});

/** One tag per domain of the API, in the order Swagger UI lists them. Every tag an operation uses must be here. */
export const API_TAGS: readonly { name: string; description: string }[] = [
  { name: "Misc", description: "Version, health, upload/download servers and the API reference itself." },
  { name: "Auth", description: "Sign-in, tokens, single sign-on and the caller's own rights." },
  { name: "Access", description: "Access rules (ACL) on folders and files, inheritance and effective rights." },
  { name: "Users", description: "Users, robots and their API tokens, settings and bookmarks." },
  { name: "Audit", description: "The audit log of administrative actions." },
  { name: "Groups", description: "Folders (groups): tree, members, moving, sizes." },
  { name: "Assets", description: "Files (assets), their versions and variants, upload and download." },
  { name: "Asset classes", description: "Asset classes and the field templates they carry." },
  { name: "Previews", description: "Preview images, waveforms and their links." },
  { name: "Tags", description: "Tags and tagging of files and folders." },
  { name: "Storage", description: "Storages (R2, S3) and where entities keep their bytes." },
  { name: "Uploads (S3)", description: "Direct multipart uploads to S3-compatible storage: signing and the S3 facade." },
  { name: "Uploads", description: "The per-user upload queue and its live updates." },
  { name: "Tasks", description: "Background tasks: queueing, status, logs and results." },
  { name: "Automations", description: "User-defined workflows: triggers, conditions, actions, runs." },
  { name: "Events", description: "The global event log." },
  { name: "Fields", description: "Metadata field templates and their values on entities." },
  { name: "Taxonomy", description: "Taxonomies (trees of taxa) and their members." },
  { name: "Lists", description: "Value lists and their records." },
  { name: "Search", description: "Full-text, vector and autocomplete search, and answers from documents (RAG)." },
  { name: "Shortlinks", description: "Links sharing a file or folder with anyone." },
  { name: "WOPI", description: "Office-document editing (WOPI host)." },
  { name: "Survey", description: "The satisfaction survey." },
  { name: "Shop", description: "Selling licences to files and folders: listings, basket, checkout." },
  { name: "Helper", description: "The local disk helper's downloads and setup." },
  { name: "Collections", description: "Named, ordered sets of files shared at a role, never wider than the files' own rights." },
  { name: "Comments", description: "Comments pinned to a region, a moment or a page of a file version; following a file." },
  { name: "Notifications", description: "The inbox: mentions, replies, comments on followed files, reviews, shared collections." },
  { name: "Reviews", description: "Review decisions on a file's versions, their trail and review requests." },
];

/**
 * Operation ids that the rule of `deriveOperationId` would give twice, pinned by hand ("METHOD /path" as the document
 * writes it). Also the place to keep an id stable when its path must change.
 */
export const OPERATION_ID_OVERRIDES: Readonly<Record<string, string>> = {
  "GET /api/user": "getUsers",
  "GET /api/user/{id}": "getUser",
  "GET /api/asset/content/stream/{variantId}/{fileName}": "getAssetContentStreamFile",
  "GET /api/collections": "listCollections",
  "GET /api/collections/{id}": "getCollection",
  "PATCH /api/collections/{id}": "patchCollection",
  "DELETE /api/collections/{id}": "deleteCollection",
  "DELETE /api/collections/{id}/members/{subj}": "deleteCollectionMember",
};

/**
 * The calls that take no bearer, and so are published with `security: []`: SPEC §7's exceptions (sign-in, SSO,
 * version, health), calls authorised by a credential of their own (signed links and upload URLs, the S3 facade's
 * signature, WOPI's access_token, the upload socket's subprotocol, a share link's password) and webhooks. Every other
 * operation declares `bearer` in its route; one that declares nothing fails the lint (`security-defined`), so being
 * public is always a decision written here.
 */
export const PUBLIC_CALLS: ReadonlySet<string> = new Set([
  "GET /api/version",
  "GET /api/health",
  "GET /api/ping",
  "GET /api/auth/sso/{provider}",
  "GET /api/auth/sso-cb/{provider}",
  "POST /api/auth/login",
  "GET /api/auth/refresh",
  "GET /api/auth/logout",
  "POST /api/auth/exchange-token",
  "POST /api/auth/token-owner",
  "GET /api/auth/sso-providers",
  "PUT /api/asset/content/upload/{variantId}",
  "GET /api/asset/content/stream/{variantId}",
  "GET /api/asset/content/stream/{variantId}/{fileName}",
  "POST /api/s3/{bucket}/assets/{assetId}/{variantId}",
  "PUT /api/s3/{bucket}/assets/{assetId}/{variantId}",
  "GET /api/s3/{bucket}/assets/{assetId}/{variantId}",
  "DELETE /api/s3/{bucket}/assets/{assetId}/{variantId}",
  "GET /api/uploads/ws",
  "GET /api/tasklist/export/{id}",
  "GET /api/sl/info/{id}",
  "POST /api/sl/info/{id}",
  "GET /api/sl/media/{link}/{asset}/{kind}",
  "GET /api/sl/zip/{link}/{folder}",
  "GET /api/zip/{id}",
  "GET /api/wopi/files/{id}",
  "POST /api/wopi/files/{id}",
  "GET /api/wopi/files/{id}/contents",
  "POST /api/wopi/files/{id}/contents",
  "GET /api/wopi/files/{id}/text",
  "GET /api/shop/preview/{id}",
  "POST /api/shop/stripe/webhook",
  "POST /api/csp-report",
]);

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/**
 * The operation id of a call: the HTTP method in lower case, then every literal path segment after `/api` in
 * PascalCase (split at `-`, `_` and `.`), path parameters left out: `POST /api/group/create` → `postGroupCreate`,
 * `GET /api/group/members/{id}` → `getGroupMembers`, `PATCH /api/user/ui_settings` → `patchUserUiSettings`.
 * It depends on the call alone, so adding a route never renames another.
 */
export function deriveOperationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api(?=\/|$)/, "")
    .split("/")
    .filter((segment) => segment !== "" && !segment.startsWith("{"))
    .flatMap((segment) => segment.split(/[-_.]/))
    .filter((word) => word !== "");
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** A path parameter's schema without the `null` a coerced zod number declares: a URL segment is never null. */
function pathParameterSchema(schema: unknown): unknown {
  if (!isObject(schema) || !Array.isArray(schema.type)) return schema;
  const types = schema.type.filter((type) => type !== "null");
  return { ...schema, type: types.length === 1 ? types[0] : types };
}

/** Nesting budget of the schema walk: the document is a few dozen levels deep at most. */
const MAX_SCHEMA_DEPTH = 64;

/**
 * zod tuples are published as `prefixItems` alone, which JSON Schema reads as "at least these, then anything":
 * a tuple has exactly its items, so the bounds are stated (`minItems` = `maxItems` = the number of items).
 */
function closeTuples(node: unknown, depth = 0): void {
  if (depth > MAX_SCHEMA_DEPTH || typeof node !== "object" || node === null) return;
  if (!Array.isArray(node)) {
    const schema = node as Json;
    if (Array.isArray(schema.prefixItems) && schema.items === undefined) {
      schema.minItems ??= schema.prefixItems.length;
      schema.maxItems ??= schema.prefixItems.length;
    }
  }
  for (const value of Object.values(node)) closeTuples(value, depth + 1);
}

const BAD_HEADER_ANSWER = {
  description: "Invalid `x-api-version` (another major version) or `prefer-uldl-server` header",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};

/**
 * Completes the registry's document in place and returns it:
 * - `operationId` on every operation (the route's own, else `OPERATION_ID_OVERRIDES`, else `deriveOperationId`);
 * - every `{name}` of a path declared once as a required path parameter;
 * - `security: []` on the `PUBLIC_CALLS` (everything else declares `bearer` in its route);
 * - a 400 on operations that describe no 4xx: the protocol headers are checked on every call;
 * - tuples closed at their length;
 * - the tag list with descriptions, `info` and `servers`.
 */
export function finishDocument(doc: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
    for (const method of HTTP_METHODS) {
      const operation = (item as Json)[method];
      if (!isObject(operation)) continue;
      operation.operationId ??= OPERATION_ID_OVERRIDES[`${method.toUpperCase()} ${path}`] ?? deriveOperationId(method, path);
      const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
      for (const parameter of parameters) {
        if (parameter.in !== "path") continue;
        parameter.required = true;
        parameter.schema = pathParameterSchema(parameter.schema);
      }
      for (const name of names) {
        if (!parameters.some((parameter) => parameter.in === "path" && parameter.name === name)) {
          parameters.push({ name, in: "path", required: true, schema: { type: "string" } });
        }
      }
      if (parameters.length > 0) operation.parameters = parameters;
      if (operation.security === undefined && PUBLIC_CALLS.has(`${method.toUpperCase()} ${path}`)) operation.security = [];
      const responses = isObject(operation.responses) ? operation.responses : {};
      if (!Object.keys(responses).some((code) => code.startsWith("4"))) responses["400"] = BAD_HEADER_ANSWER;
      operation.responses = responses;
    }
  }
  closeTuples(doc.paths);
  closeTuples(doc.components);
  doc.tags = API_TAGS.map((tag) => ({ ...tag }));
  // OpenAPI 3.1's SPDX `identifier` (the config's type is 3.0's, which knows only `url`).
  doc.info.license = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };
  return doc;
}

/**
 * Declares the two routes that serve the reference itself (`GET /api/openapi.json`, `GET /api/docs`), which are plain
 * Hono routes, so that the document lists every route under `/api`.
 */
export function registerReferenceRoutes(registry: OpenAPIHono["openAPIRegistry"]): void {
  registry.registerPath({
    method: "get",
    path: "/api/openapi.json",
    tags: ["Misc"],
    summary: "This OpenAPI document",
    description: "The OpenAPI 3.1 description of the API, for client generators (committed as docs/openapi.json).",
    security: [],
    responses: { 200: { description: "The document", content: { "application/json": { schema: { type: "object" } } } } },
  });
  registry.registerPath({
    method: "get",
    path: "/api/docs",
    tags: ["Misc"],
    summary: "API reference (Swagger UI)",
    description: "An HTML page rendering this document with Swagger UI.",
    security: [],
    responses: { 200: { description: "The page", content: { "text/html": { schema: { type: "string" } } } } },
  });
}

const cache = new WeakMap<object, OpenApiDocument>();

/** The finished document of an app, built once per app (the registry does not change after mounting). */
export function openApiDocument(app: Registryish): OpenApiDocument {
  let doc = cache.get(app);
  if (!doc) {
    doc = finishDocument(app.getOpenAPI31Document(objectConfig()));
    cache.set(app, doc);
  }
  return doc;
}
