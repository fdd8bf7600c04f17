import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { changeTaxon, createTaxon, deleteTaxon, listedTaxa, taxonomyTree, treeList, type TaxonNode } from "../../services/metadata";
import { globalChange, refreshCopiesSoon, writeWhereItLives } from "../library-place";
import { countsInShards, pageWhereItLives, readRouted } from "../library-reads";
import { binaryOrder } from "../../lib/binary-order";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, TRIMMED_TEXT_PATTERN, visibleName } from "../schemas";

const param = (name: string) => IdSchema.openapi({ param: { name, in: "path" } });

const TaxonNodeSchema: z.ZodType<TaxonNode> = z
  .lazy(() => z.object({ taxon_id: z.string(), name: z.string(), members: z.number().int(), children: z.array(TaxonNodeSchema) }))
  .openapi({ type: "object", description: "a taxon with its direct member count and children, by name" });

export const TaxonCreateSchema = z
  .object({ path: z.string().min(1).max(2100).check(visibleName).openapi({ example: "Спорт/Футбол/Клубы" }) })
  .openapi("TaxonCreate");

export const TaxonChangeSchema = z
  .object({
    name: z.string().trim().min(1).max(100).check(visibleName).openapi({ pattern: TRIMMED_TEXT_PATTERN }).optional(),
    parent_id: IdSchema.optional(),
  })
  .refine((v) => v.name !== undefined || v.parent_id !== undefined, ru.catalog.nothingToChange)
  .openapi("TaxonChange", { minProperties: 1 });

const MemberSchema = z.object({
  taxon_id: z.string(),
  object_id: z.string(),
  object_type: z.enum(["asset", "group"]),
  name: z.string(),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

/** Taxonomies (SPEC §7 Taxonomy): trees of taxa managed by administrators, membership by anyone who may edit the object. */
export const taxonomyRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/tree-list",
      tags: ["Taxonomy"],
      summary: "The taxonomies",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: json(z.array(z.object({ tree_id: z.string(), name: z.string(), members: z.number().int() })), "Trees"),
        ...errorResponses(401),
      },
    }),
    async (c) => c.json(await treeList(c.var.rc, c.var.actor, countsInShards(c.var, "taxonCounts")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/tree/{id}",
      tags: ["Taxonomy"],
      summary: "One taxonomy as a nested tree",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(TaxonNodeSchema, "Tree"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await taxonomyTree(c.var.rc, c.var.actor, c.req.valid("param").id, countsInShards(c.var, "taxonCounts")), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/create/{treeId}",
      tags: ["Taxonomy"],
      summary: "Create the taxa of a path (administrators)",
      description:
        'Existing segments are reused (like mkdir -p). SPEC has no call that creates a taxonomy (a tree), so this one does: with treeId of 32 \'f\' characters (`ffffffffffffffffffffffffffffffff`, like the virtual root group) it starts a new taxonomy named by the first segment of `path` (the answer\'s `tree_id` is its id; an existing taxonomy of that name is reused), and the remaining segments become its first taxa. Example: `POST /api/taxonomy/create/ffffffffffffffffffffffffffffffff` with `{ "path": "Спорт/Футбол" }` creates the taxonomy «Спорт» with the taxon «Футбол».',
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ treeId: param("treeId") }), body: body(TaxonCreateSchema) },
      responses: {
        200: json(z.object({ taxon_id: z.string(), tree_id: z.string(), created: z.number().int() }), "Created"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => c.json(await createTaxon(c.var.rc, c.var.actor, c.req.valid("param").treeId, c.req.valid("json").path), 200),
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/change/{treeId}/{taxonId}",
      tags: ["Taxonomy"],
      summary: "Rename or move a taxon within its tree (administrators)",
      description: "A move under itself or a descendant is refused (400).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ treeId: param("treeId"), taxonId: param("taxonId") }), body: body(TaxonChangeSchema) },
      responses: {
        200: json(z.object({ taxon_id: z.string(), name: z.string(), parent_id: z.string().nullable() }), "Changed"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { treeId, taxonId } = c.req.valid("param");
      const changed = await changeTaxon(c.var.rc, c.var.actor, treeId, taxonId, c.req.valid("json"));
      refreshCopiesSoon(c);
      return c.json(changed, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/delete/{treeId}/{taxonId}/{force}",
      tags: ["Taxonomy"],
      summary: "Delete a taxon and its subtree (administrators)",
      description: "Refused with 409 while the subtree has members or sub-taxa unless force is true.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({
          treeId: param("treeId"),
          taxonId: param("taxonId"),
          force: z.enum(["true", "false"]).openapi({ param: { name: "force", in: "path" } }),
        }),
      },
      responses: {
        200: json(z.object({ taxon_id: z.string(), taxa_removed: z.number().int(), members_removed: z.number().int() }), "Deleted"),
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { treeId, taxonId, force } = c.req.valid("param");
      return c.json(await deleteTaxon(c.var.rc, c.var.actor, treeId, taxonId, force === "true", globalChange(c)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/add-member/{taxonId}",
      tags: ["Taxonomy"],
      summary: "Classify an asset or group under a taxon",
      description: "Needs update on the object.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ taxonId: param("taxonId") }), body: body(z.object({ objectId: IdSchema }).openapi("TaxonMemberAdd")) },
      responses: {
        200: json(z.object({ added: z.boolean() }), "Added (false: it was a member already)"),
        ...errorResponses(400, 401, 403, 404, 409, 415),
      },
    }),
    async (c) => {
      const { taxonId } = c.req.valid("param");
      const { objectId } = c.req.valid("json");
      // The classification rides along to a library shard, which checks it (decision 043, «Writes»).
      return c.json(await writeWhereItLives(c, objectId, "addTaxonMember", [taxonId, objectId], { named: { taxa: [taxonId] } }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/del-member/{taxonId}/{objectId}",
      tags: ["Taxonomy"],
      summary: "Remove an asset or group from a taxon",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: z.object({ taxonId: param("taxonId"), objectId: param("objectId") }) },
      responses: { 200: json(z.object({ removed: z.boolean() }), "Removed"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const { taxonId, objectId } = c.req.valid("param");
      return c.json(await writeWhereItLives(c, objectId, "delTaxonMember", [taxonId, objectId], { named: { taxa: [taxonId] } }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/list-members/{taxon}/{treeId}",
      tags: ["Taxonomy"],
      summary: "Members of a taxon (deep=true: of its subtree) that the caller may see",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: {
        params: z.object({ taxon: param("taxon"), treeId: param("treeId") }),
        query: z.object({
          deep: z.enum(["true", "false"]).default("false"),
          skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
          take: z.coerce.number().int().min(1).max(500).default(100),
        }),
      },
      responses: { 200: json(z.array(MemberSchema), "Members"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { taxon, treeId } = c.req.valid("param");
      const q = c.req.valid("query");
      const taxa = await listedTaxa(c.var.rc, taxon, treeId, q.deep === "true");
      // Each library's members where it lives, merged in the list's order: by name, then by id.
      const page = await pageWhereItLives<"taxonMembers">(
        c.var,
        "taxonMembers",
        (window, scope) => [[], taxa, window, scope],
        { skip: q.skip, take: q.take },
        (a, b) => binaryOrder(a.name, b.name) || binaryOrder(a.object_id, b.object_id),
      );
      return c.json(page, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/for-entity/{id}",
      tags: ["Taxonomy"],
      summary: "The taxa an asset or group is classified under",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(z.array(z.object({ taxon_id: z.string(), name: z.string(), tree_id: z.string() })), "Taxa"),
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => c.json(await readRouted(c.var, "taxaOfEntity", [c.req.valid("param").id]), 200),
  );
