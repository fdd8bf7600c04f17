import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { REVIEW_STATUSES } from "../../../shared/review-status";
import { CommentCountsSchema } from "./comment-counts.schemas";
import {
  MAX_COLLECTION_IDS,
  addItems,
  collectionLocations,
  createCollection,
  deleteCollection,
  deleteMember,
  getCollection,
  listCollections,
  listItems,
  listMembers,
  putMember,
  removeItems,
  reorderItems,
  updateCollection,
  type ReadableFiles,
} from "../../services/collections";
import { readEachRouted, type Reader } from "../library-reads";
import { requireAuth } from "../middleware/require-auth";
import { LocatedSchema, LocationsQuery } from "./map.routes";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

// Control characters (C0, DEL, C1) never belong in a name.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const CollectionNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((v) => !CONTROL_CHARS.test(v), "имя не может содержать управляющие символы")
  .check(visibleName)
  .openapi({ example: "Лучшее для клиента", pattern: TRIMMED_TEXT_PATTERN });

const DescriptionSchema = z.string().max(2000).openapi({ example: "Двадцать кадров из шести папок" });

const RoleSchema = z.enum(["view", "comment", "edit"], { error: ru.collections.badRole }).openapi({ example: "comment" });

const RoleAnswerSchema = z.enum(["owner", "admin", "edit", "comment", "view"]);

export const CollectionSchema = z
  .object({
    collection_id: z.string(),
    name: z.string(),
    description: z.string(),
    owner_id: z.string(),
    owner_name: z.string().nullable(),
    role: RoleAnswerSchema,
    count: z.number().int().openapi({ description: "items the caller may read" }),
    ctime: z.string().nullable(),
    mtime: z.string().nullable(),
  })
  .openapi("Collection");

const ListedCollectionSchema = CollectionSchema.extend({
  cover: z.string().nullable().openapi({ description: "thumbnail of the first readable item with a preview" }),
}).openapi("ListedCollection");

const CollectionItemSchema = z
  .object({
    asset_id: z.string(),
    name: z.string(),
    mimetype: z.string(),
    added_by: z.string().nullable(),
    added_by_name: z.string().nullable(),
    added_at: z.string().nullable(),
    ctime: z.string().nullable(),
    mtime: z.string().nullable(),
    owner: z.string(),
    owner_name: z.string().nullable(),
    ver: z.number().int(),
    var: z.string().nullable(),
    var_size: z.number().nullable(),
    preview: z.string().nullable(),
    review_status: z.enum(REVIEW_STATUSES).nullable().openapi({ description: "current review status of the latest version" }),
    comments: CommentCountsSchema,
  })
  .openapi("CollectionItem");

const ItemsPageSchema = z
  .object({
    total: z.number().int().openapi({ description: "items the caller may read" }),
    hidden: z.number().int().openapi({ description: "items the caller may not read: a count, nothing else" }),
    items: z.array(CollectionItemSchema),
  })
  .openapi("CollectionItemsPage");

const MemberSchema = z
  .object({ subj: z.string(), subj_type: z.enum(["user", "group"]), name: z.string().nullable(), role: RoleSchema, ctime: z.string().nullable() })
  .openapi("CollectionMember");

const CreateSchema = z.object({ name: CollectionNameSchema, description: DescriptionSchema.optional() }).openapi("CollectionCreate");

const PatchSchema = z
  .object({ name: CollectionNameSchema.optional(), description: DescriptionSchema.optional() })
  .refine((v) => v.name !== undefined || v.description !== undefined, ru.collections.emptyPatch)
  .openapi("CollectionPatch");

const AssetIdsSchema = z
  .object({
    asset_ids: z
      .array(IdSchema)
      .min(1)
      .max(MAX_COLLECTION_IDS, ru.collections.tooManyIds(MAX_COLLECTION_IDS))
      .openapi({ description: `1 to ${MAX_COLLECTION_IDS} file ids` }),
  })
  .openapi("CollectionAssetIds");

const MemberInputSchema = z.object({ subj: IdSchema, subj_type: z.enum(["user", "group"]), role: RoleSchema }).openapi("CollectionMemberInput");

const ItemsQuerySchema = z.object({
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(500).default(100),
});

const MemberParamsSchema = z.object({
  id: IdSchema.openapi({ param: { name: "id", in: "path" } }),
  subj: IdSchema.openapi({ param: { name: "subj", in: "path" } }),
});

/** Whether files are readable, asked where each lives (decision 051): a rule only a library's shard holds decides. */
const readableWhereTheyLive =
  (at: Reader): ReadableFiles =>
  (ids) =>
    readEachRouted(
      at,
      "readableFiles",
      ids,
      (id) => id,
      (ids, share) => [ids, share] as const,
    );

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
/** A JSON body with the example the document shows (and the contract suite checks against the schema). */
const body = <T extends z.ZodType>(schema: T, example: z.input<T>) => ({ body: { required: true, content: { "application/json": { schema, example } } } });
const TAGS = ["Collections"];
const NOT_SHARED = "Someone the collection is not shared with gets the same 404 as for no collection.";

/** Collections (decision record 034): named, ordered sets of files, never wider than the files' own rights. */
export const collectionsRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      tags: TAGS,
      summary: "Create a collection",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: body(CreateSchema, { name: "Лучшее для клиента", description: "Двадцать кадров из шести папок" }),
      responses: { 201: json(CollectionSchema, "Created"), ...errorResponses(400, 401, 415) },
    }),
    async (c) => c.json(await createCollection(c.var.rc, c.var.actor, c.req.valid("json")), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: TAGS,
      summary: "My collections and those shared with me or my groups",
      description: "Each with the caller's role, the count of items the caller may read and a cover.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(z.object({ items: z.array(ListedCollectionSchema) }), "Collections"), ...errorResponses(401) },
    }),
    async (c) => c.json(await listCollections(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: TAGS,
      summary: "One collection",
      description: NOT_SHARED,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(CollectionSchema, "Collection"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await getCollection(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      tags: TAGS,
      summary: "Rename or describe a collection (edit role)",
      description: NOT_SHARED,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(PatchSchema, { name: "Лучшее для клиента (финал)" }) },
      responses: { 200: json(CollectionSchema, "Changed"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await updateCollection(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      tags: TAGS,
      summary: "Delete a collection (owner or administrator); its files stay",
      description: NOT_SHARED,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.object({ collection_id: z.string() }), "Deleted"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => c.json(await deleteCollection(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/items",
      tags: TAGS,
      summary: "A page of the items the caller may read, in collection order",
      description: `\`hidden\` counts the items the caller may not read and says nothing else about them. ${NOT_SHARED}`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: ItemsQuerySchema },
      responses: { 200: json(ItemsPageSchema, "Items"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await listItems(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/locations",
      tags: TAGS,
      summary: "The items the caller may read that carry a position (EXIF GPS), for the map view",
      description: `Items the caller may not read are left out without a trace. \`bbox\` (west,south,east,north) keeps those taken inside the area. At most 2,000 in collection order; \`truncated\` says when there are more. ${NOT_SHARED}`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: LocationsQuery },
      responses: { 200: json(z.object({ items: z.array(LocatedSchema), truncated: z.boolean() }), "Placed items"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await collectionLocations(c.var.rc, c.var.actor, c.req.valid("param").id, { bbox: q.bbox, take: q.take }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/items",
      tags: TAGS,
      summary: "Add files at the end (edit role), all or nothing",
      description: `Every id must be a file the caller may read, or nothing is added (404 naming the first). At most ${MAX_COLLECTION_IDS} ids.`,
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(AssetIdsSchema, { asset_ids: ["0123456789abcdef0123456789abcdef"] }) },
      responses: {
        200: json(z.object({ collection_id: z.string(), added: z.number().int() }), "Added"),
        ...errorResponses(400, 401, 403, 404, 415),
      },
    }),
    async (c) =>
      c.json(await addItems(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").asset_ids, readableWhereTheyLive(c.var)), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/remove-items",
      tags: TAGS,
      summary: "Take files out of a collection (edit role); the files are untouched",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(AssetIdsSchema, { asset_ids: ["0123456789abcdef0123456789abcdef"] }) },
      responses: { 200: json(z.object({ collection_id: z.string() }), "Removed"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await removeItems(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").asset_ids), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{id}/order",
      tags: TAGS,
      summary: "Put the listed items in this order before the rest (edit role)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(AssetIdsSchema, { asset_ids: ["0123456789abcdef0123456789abcdef"] }) },
      responses: { 200: json(z.object({ collection_id: z.string() }), "Reordered"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await reorderItems(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json").asset_ids), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/members",
      tags: TAGS,
      summary: "Who the collection is shared with",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(z.object({ items: z.array(MemberSchema) }), "Members"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await listMembers(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/{id}/members",
      tags: TAGS,
      summary: "Share with a user or a group of users at a role, or change the role (owner or administrator)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, ...body(MemberInputSchema, { subj: "0123456789abcdef0123456789abcdef", subj_type: "user", role: "comment" }) },
      responses: { 200: json(MemberSchema, "Shared"), ...errorResponses(400, 401, 403, 404, 415) },
    }),
    async (c) => c.json(await putMember(c.var.rc, c.var.actor, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/members/{subj}",
      tags: TAGS,
      summary: "Stop sharing with a user or group (owner or administrator; a user may leave)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: MemberParamsSchema },
      responses: { 200: json(z.object({ collection_id: z.string(), subj: z.string() }), "Unshared"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const { id, subj } = c.req.valid("param");
      return c.json(await deleteMember(c.var.rc, c.var.actor, id, subj), 200);
    },
  );
