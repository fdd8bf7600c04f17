import { createRoute, z } from "@hono/zod-openapi";
import {
  MAX_LIST_ITEMS,
  aclAssets,
  copyAsset,
  createAsset,
  createAssets,
  getAsset,
  getVersion,
  versionsByIds,
} from "../../services/library";
import { prefetchAccess } from "../../services/access";
import { runWhereItLives, writeWhereItLives } from "../library-place";
import { readOfVariant, readRouted, readWhereItLives, trashWhereItLives } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { PagingQuerySchema } from "../schemas";
import {
  pathId,
  IdParams,
  VersionNumberSchema,
  FlagSchema,
  CreateAssetSchema,
  UpdateAssetSchema,
  IdListSchema,
  GroupRefSchema,
  VariantSchema,
  VersionEntrySchema,
  AssetSchema,
  VersionViewSchema,
  TrashedAssetSchema,
  AssetListItemSchema,
  JsonObjectSchema,
  FileOfVariantQuerySchema,
  json,
  jsonBody,
} from "./asset.schemas";

/**
 * SPEC §7 asset calls under /api/asset: identity, versions and variants, trash, copy and related reads. The bytes
 * (uploads, downloads, streaming, signed links) are asset-content.routes.ts; asset classes and previews live in the
 * catalog router. Both are mounted before this one.
 */

// ---------------------------------------------------------------------------------------------------------------
// Routes. Order matters: fixed paths before `/{id}`.

export const assetRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/create",
      tags: ["Assets"],
      summary: "Create an asset (no bytes yet), optionally listed in a group",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(CreateAssetSchema) },
      responses: { 200: json(z.object({ asset_id: z.string() }), "Created"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (!input.in_group) return c.json(await createAsset(c.var.rc, c.var.actor, input), 200);
      // Where the folder's library lives (decision 043, «Uploads»); a class rides along.
      const named = { classes: input.asset_class ? [input.asset_class] : [] };
      const [created] = await writeWhereItLives(c, input.in_group, "createAssets", [[input]], { named });
      return c.json(created, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create-list",
      tags: ["Assets"],
      summary: `Create up to ${MAX_LIST_ITEMS} assets in one batch (all or nothing)`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(z.object({ assets: z.array(CreateAssetSchema).min(1).max(MAX_LIST_ITEMS) })) },
      responses: {
        200: json(z.array(z.object({ asset_id: z.string() })), "Created, in the order given"),
        ...errorResponses(400, 401, 403, 404, 415),
      },
    }),
    async (c) => {
      const { assets } = c.req.valid("json");
      const [first, ...rest] = assets.map((a) => a.in_group).filter((g): g is string => !!g);
      if (!first) return c.json(await createAssets(c.var.rc, c.var.actor, assets), 200);
      const named = { classes: assets.flatMap((a) => (a.asset_class ? [a.asset_class] : [])) };
      return c.json(await writeWhereItLives(c, first, "createAssets", [assets], { named, sameLibrary: rest }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/delete-list",
      tags: ["Assets"],
      summary: "Move assets to the trash (all or nothing)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(IdListSchema) },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { ids } = c.req.valid("json");
      await writeWhereItLives(c, ids[0], "trashAssets", [ids], { files: ids, sameLibrary: ids.slice(1) });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/trash",
      tags: ["Assets"],
      summary: "Trashed assets that can still be restored (30 days), newest first",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(TrashedAssetSchema), "Trashed assets"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await trashWhereItLives(c.var, "trashedAssets", c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/acl-assets",
      tags: ["Assets"],
      summary: "Assets the caller holds rights on (for now: owns), by name",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: PagingQuerySchema },
      responses: { 200: json(z.array(AssetListItemSchema), "Assets"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await aclAssets(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/version-by-ids",
      tags: ["Assets"],
      summary: "Versions by id; those the caller may not read are left out",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: jsonBody(IdListSchema) },
      responses: { 200: json(z.array(VersionViewSchema), "Versions"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await versionsByIds(c.var.rc, c.var.actor, c.req.valid("json").ids), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/restore/{id}",
      tags: ["Assets"],
      summary: "Take an asset out of the trash (within 30 days)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(AssetSchema, "Restored"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, id, "restoreAsset", [id], { files: [id] }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/version/{id}",
      tags: ["Assets"],
      summary: "One version of an asset with its variants",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: jsonBody(z.object({ version: z.number().int().min(1) })) },
      responses: {
        200: json(VersionViewSchema.extend({ variants: z.array(VariantSchema) }), "The version"),
        ...errorResponses(400, 401, 404, 415),
      },
    }),
    async (c) => c.json(await getVersion(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").version), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/versions/{id}",
      tags: ["Assets"],
      summary: "Versions of an asset, newest first: one row per ready variant",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.array(VersionEntrySchema), "Versions"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "listVersions", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variants/{id}/{version}",
      tags: ["Assets"],
      summary: "Ready variants of one version",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({
          id: pathId("id"),
          version: VersionNumberSchema.openapi({ param: { name: "version", in: "path" }, type: "integer" }),
        }),
      },
      responses: { 200: json(z.array(VariantSchema), "Variants"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(await readRouted(c.var, "listVariants", [id, version]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/content-size/{id}",
      tags: ["Assets"],
      summary: "Stored bytes of all the asset's ready variants",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.object({ size: z.number().int() }), "Size in bytes"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "contentSize", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/member-of/{id}",
      tags: ["Assets"],
      summary: "Groups the asset is listed in that the caller can see",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 200: json(z.array(GroupRefSchema), "Groups"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await readRouted(c.var, "memberOf", [c.req.valid("param").id]), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/tech-fields/{id}/{variantId}",
      tags: ["Assets"],
      summary: "Technical fields of a variant of an asset",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ id: pathId("id"), variantId: pathId("variantId") }) },
      responses: { 200: json(JsonObjectSchema, "Technical fields"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id, variantId } = c.req.valid("param");
      return c.json(await readRouted(c.var, "techFields", [id, variantId]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variant-tech-fields/{variantId}",
      tags: ["Assets"],
      summary: "Technical fields of a variant",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ variantId: pathId("variantId") }), query: FileOfVariantQuerySchema },
      responses: { 200: json(JsonObjectSchema, "Technical fields"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { variantId } = c.req.valid("param");
      const { a } = c.req.valid("query");
      return c.json(await readOfVariant(c.var, "variantTechFields", [a, variantId]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/variant-tech-props/{id}",
      tags: ["Assets"],
      summary: "Technical properties of a variant (or of an asset's main variant)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, query: FileOfVariantQuerySchema },
      responses: { 200: json(JsonObjectSchema, "Technical properties"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { a } = c.req.valid("query");
      return c.json(await readOfVariant(c.var, "variantTechProps", [a, id]), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/copy/{a}/{b}",
      tags: ["Assets"],
      summary: "Copy asset a into group b (versions and variants share the stored bytes)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ a: pathId("a"), b: pathId("b") }) },
      responses: { 200: json(z.object({ asset_id: z.string() }), "The copy"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { a, b } = c.req.valid("param");
      // The copy lives where its folder's library lives (decision 043): from the same library only, once that is in
      // its shard (a copy from a library in a shard into one still in the catalog reads the catalog's copy).
      return c.json(await runWhereItLives(c, b, (rc) => copyAsset(rc, c.var.actor, a, b), { sameLibrary: [a] }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Assets"],
      summary: "An asset: its fields and Info form, plus versions, variants, groups or tags on request",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: IdParams,
        query: z.object({ info: FlagSchema, versions: FlagSchema, variants: FlagSchema, groups: FlagSchema, tags: FlagSchema }),
      },
      responses: { 200: json(AssetSchema, "The asset"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const options = c.req.valid("query");
      const asset = await readWhereItLives(
        c.var,
        id,
        () => {
          // a read of one asset: its access rows load beside the asset's own rows (decision 030)
          prefetchAccess(c.var.rc, c.var.actor, { id, type: "asset" });
          return getAsset(c.var.rc, c.var.actor, id, options);
        },
        (shard, caller) => shard.asset(caller, c.var.actor, id, options),
      );
      return c.json(asset, 200);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags: ["Assets"],
      summary: "Rename an asset, change its MIME type or class",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams, body: jsonBody(UpdateAssetSchema) },
      responses: { 200: json(AssetSchema, "The asset"), ...errorResponses(400, 401, 403, 404, 409, 415) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const input = c.req.valid("json");
      const asset = await writeWhereItLives(c, id, "updateAsset", [id, input], {
        named: { classes: input.asset_class ? [input.asset_class] : [] },
        files: [id],
      });
      return c.json(asset, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags: ["Assets"],
      summary: "Move an asset to the trash (restorable for 30 days)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParams },
      responses: { 204: { description: "Trashed" }, ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      await writeWhereItLives(c, id, "trashAsset", [id], { files: [id] });
      return c.body(null, 204);
    },
  );
