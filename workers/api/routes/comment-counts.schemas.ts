/** The comment counts a listed file carries (folder members, collection items, search hits; decision record 035). */
import { z } from "@hono/zod-openapi";

export const CommentCountsSchema = z
  .object({
    total: z.number().int().min(0).openapi({ description: "all comments on the file (every version, replies included)" }),
    open: z.number().int().min(0).openapi({ description: "those not resolved" }),
  })
  .openapi("CommentCounts", {
    description: "comments on the file, for the tile's badge; the same for everyone who may read the file (public links show none)",
  });
