import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Text extracted from an asset's latest version by the tech-fields task: the `content` of its search document. */
export const searchContent = sqliteTable("search_content", {
  assetId: text("asset_id").primaryKey(),
  version: integer("version", { mode: "number" }).notNull(),
  text: text("text").notNull(),
  mtime: integer("mtime", { mode: "number" }).notNull(),
});
