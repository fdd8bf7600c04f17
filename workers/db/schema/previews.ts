import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/**
 * Preview images of an asset version (client-made posters now, generated sizes from processing later). Kept apart
 * from variants so listing an asset's renditions never mixes in thumbnails.
 */
export const previews = sqliteTable(
  "previews",
  {
    id: idColumn(),
    assetId: text("asset_id").notNull(),
    versionId: text("version_id"),
    /** label of the preview config entry, e.g. "thumb", "medium" */
    size: text("size").notNull(),
    mimeType: text("mime_type").notNull(),
    width: integer("width", { mode: "number" }),
    height: integer("height", { mode: "number" }),
    contentSize: integer("content_size", { mode: "number" }).notNull(),
    storageKey: text("storage_key").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [index("previews_asset_idx").on(t.assetId, t.versionId), index("previews_storage_key_idx").on(t.storageKey)],
);
