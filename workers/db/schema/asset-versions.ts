import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/** A committed version of an asset. Rows exist only once their bytes are complete (commit-after-upload). */
export const assetVersions = sqliteTable(
  "asset_versions",
  {
    id: idColumn(),
    assetId: text("asset_id").notNull(),
    /** 1, 2, 3 … per asset, assigned in the commit batch */
    version: integer("version", { mode: "number" }).notNull(),
    description: text("description"),
    userId: text("user_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("asset_versions_asset_version_unique").on(t.assetId, t.version)],
);

export type AssetVersionRow = typeof assetVersions.$inferSelect;
