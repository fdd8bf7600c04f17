import { createRoute, z } from "@hono/zod-openapi";
import { libraryShardPlan } from "../../services/library";
import { rateLimit } from "../middleware/rate-limit";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { json } from "./asset.schemas";

const LibraryMoveStatusSchema = z
  .object({
    shard: z.number().int().openapi({ description: "the shard it moves into" }),
    state: z.enum(["copying", "moving", "shard"]).openapi({
      description: "copying: writes go on and are journaled; moving: its writes pause for the last entries; shard: it lives in its shard",
    }),
    step: z.enum(["folders", "assets", "catch-up", "check", "final", "done"]),
    error: z.string().nullable().openapi({ description: "the last difference its check found (the library was then copied again)" }),
    started_at: z.string().openapi({ format: "date-time" }),
    switched_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("LibraryMoveStatus");

const LibraryShardPlanEntrySchema = z
  .object({
    id: z.string().openapi({ description: "the library's top-level folder" }),
    name: z.string(),
    folders: z.number().int().openapi({ description: "folders of its subtree, itself included" }),
    memberships: z.number().int().openapi({ description: "listings in its folders (files and folders)" }),
    assets: z.number().int().openapi({ description: "files listed in its folders" }),
    assets_shared: z.number().int().openapi({ description: "of those, files listed in another library too" }),
    versions: z.number().int(),
    variants: z.number().int(),
    file_bytes: z.number().int().openapi({ description: "bytes of the variants' files; they stay in their storage, only rows move" }),
    previews: z.number().int(),
    comments: z.number().int(),
    field_values: z.number().int(),
    rules: z.number().int().openapi({ description: "access rules on its folders and files" }),
    links: z.number().int().openapi({ description: "shortlinks to its folders and files" }),
    rows: z.number().int().openapi({ description: "the rows above: what moving it would copy" }),
    bytes_estimate: z.number().int().openapi({ description: "its share of the catalog's bytes, by its share of the rows counted" }),
    move: LibraryMoveStatusSchema.nullable().openapi({ description: "its move into a shard of its own, once one was started" }),
  })
  .openapi("LibraryShardPlanEntry");

const LibraryShardPlanSchema = z
  .object({
    libraries: z.array(LibraryShardPlanEntrySchema),
    assets_unplaced: z.number().int().openapi({ description: "files listed in no folder (they stay in the global database)" }),
    catalog_bytes: z.number().int().openapi({ description: "the catalog database's size as D1 reports it" }),
    shard_limit_bytes: z.number().int().openapi({ description: "the most one shard may hold (10 GB)" }),
  })
  .openapi("LibraryShardPlan");

/** Library shards (decision 043): the dry run of moving each library into its own shard. */
export const libraryShardsRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/plan",
    tags: ["Storage"],
    summary: "Dry run: what moving each library into its own shard would move (administrators)",
    description:
      "A library is a top-level folder with its subtree. For each one: its folders, listings, files (and how many of them are listed in another library too), versions, variants, previews, comments, field values, rules and links, the rows that makes and the bytes they are estimated to take, beside the 10 GB a shard may hold, and where its move stands once one was started (`POST /api/tasklist/enqueue-task/library-move` with the library as the one entity starts or resumes it). Reads only; one round trip, each figure one pass over the catalog, so it is limited to 10 calls a minute per administrator (429 with Retry-After beyond).",
    security: bearerSecurity,
    middleware: [requireAuth, rateLimit("library-plan")] as const,
    responses: {
      200: json(LibraryShardPlanSchema, "Every library, by name"),
      ...errorResponses(401, 403, 429),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    return c.json(await libraryShardPlan(c.var.rc, c.var.actor), 200);
  },
);
