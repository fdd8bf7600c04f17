import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { REVIEW_STATUSES } from "../../../shared/review-status";

export { REVIEW_STATUSES, type ReviewStatus } from "../../../shared/review-status";

/**
 * One review decision on one version of a file (decision record 036). Rows are only ever added: the newest row of a
 * version is its current status, the rest is its trail.
 */
export const reviewDecisions = sqliteTable(
  "review_decisions",
  {
    decisionId: text("decision_id").primaryKey(),
    assetId: text("asset_id").notNull(),
    version: integer("version", { mode: "number" }).notNull(),
    status: text("status", { enum: REVIEW_STATUSES }).notNull(),
    byId: text("by_id").notNull(),
    at: integer("at", { mode: "number" }).notNull(),
    note: text("note"),
  },
  (t) => [index("review_decisions_version_idx").on(t.assetId, t.version, t.at, t.decisionId), index("review_decisions_asset_idx").on(t.assetId, t.at, t.decisionId)],
);
