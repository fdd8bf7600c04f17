import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

/** A media asset: the named thing people organise; its bytes live in versions and variants. */
export const assets = sqliteTable(
  "assets",
  {
    id: idColumn(),
    name: text("name").notNull(),
    mime: text("mime").notNull(),
    ownerId: text("owner_id").notNull(),
    creatorId: text("creator_id").notNull(),
    classId: text("class_id"),
    defaultStorage: text("default_storage"),
    /** number of the newest committed version; 0 while the asset has no bytes yet */
    latestVersion: integer("latest_version", { mode: "number" }).notNull().default(0),
    ...timestamps,
    atime: integer("atime", { mode: "number" }).notNull(),
    /** set when moved to the trash; purged for good after the retention period */
    deletedAt: integer("deleted_at", { mode: "number" }),
  },
  (t) => [
    index("assets_owner_idx").on(t.ownerId),
    index("assets_deleted_idx").on(t.deletedAt),
    // whether a file is live and whose it is, from the index alone (rights filters over many files)
    index("assets_live_owner_idx").on(t.id, t.deletedAt, t.ownerId),
  ],
);

export type AssetRow = typeof assets.$inferSelect;
