import { createRoute, z } from "@hono/zod-openapi";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema } from "../schemas";
import { MAX_MAP_POINTS } from "../../services/library";
import { readRouted } from "../library-reads";
import { BboxSchema } from "./search.routes";

/**
 * The map view of a folder: its photos that carry a position (EXIF GPS). Search answers the same for a result
 * (`lat`/`lon` on hits, the `bbox` filter). Mounted on /api/group before the group router.
 */

/** The map's query, shared with a collection's map (collections.routes.ts). */
export const LocationsQuery = z
  .object({
    bbox: BboxSchema.optional(),
    take: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_MAP_POINTS)
      .optional()
      .openapi({ description: `at most ${MAX_MAP_POINTS}` }),
  })
  .strict();

export const LocatedSchema = z
  .object({
    asset_id: z.string(),
    name: z.string(),
    mimetype: z.string(),
    lat: z.number(),
    lon: z.number(),
    preview: z.string().nullable(),
  })
  .openapi("LocatedAsset");

export const mapRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/locations/{id}",
    tags: ["Groups"],
    summary: "The folder's files that carry a position (EXIF GPS), for the map view",
    description:
      "Needs read on the folder (404 otherwise, as for no folder); files the caller may not read are left out. `bbox` (west,south,east,north) keeps those taken inside the area. At most 2,000 by name; `truncated` says when there are more.",
    security: bearerSecurity,
    middleware: [requireAuth] as const,
    request: { params: IdParamsSchema, query: LocationsQuery },
    responses: {
      200: {
        description: "Placed files",
        content: { "application/json": { schema: z.object({ items: z.array(LocatedSchema), truncated: z.boolean() }) } },
      },
      ...errorResponses(400, 401, 404),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    return c.json(await readRouted(c.var, "groupLocations", [c.req.valid("param").id, { bbox: q.bbox, take: q.take }], "group"), 200);
  },
);
