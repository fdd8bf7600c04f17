import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A request that one person review one version of a file, by a date (decision record 036). */
export const reviewRequests = sqliteTable(
  "review_requests",
  {
    requestId: text("request_id").primaryKey(),
    assetId: text("asset_id").notNull(),
    version: integer("version", { mode: "number" }).notNull(),
    requesterId: text("requester_id").notNull(),
    reviewerId: text("reviewer_id").notNull(),
    /** epoch ms; null: no date */
    due: integer("due", { mode: "number" }),
    note: text("note"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [index("review_requests_asset_idx").on(t.assetId, t.ctime), index("review_requests_reviewer_idx").on(t.reviewerId, t.ctime)],
);
