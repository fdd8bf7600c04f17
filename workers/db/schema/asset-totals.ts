import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

/**
 * Per-asset totals the folder rollups are summed from (migration 0014; decision record 017): `bytes` of every ready
 * variant of every version, and how many memberships (`listings`) the asset has, so that group-size finds the few
 * assets listed more than once in a subtree without scanning. Maintained by triggers on variants, assets and
 * group_members in the same statement as the change.
 */
export const assetTotals = sqliteTable(
  "asset_totals",
  {
    assetId: text("asset_id").primaryKey(),
    bytes: integer("bytes", { mode: "number" }).notNull().default(0),
    listings: integer("listings", { mode: "number" }).notNull().default(0),
  },
  (t) => [index("asset_totals_listed_many").on(t.assetId).where(sql`listings > 1`)],
);
