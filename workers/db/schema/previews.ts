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
    /**
     * who made it: "codec" (the Worker's image codecs), "card" (a text card), "browser" (a page: at upload or by
     * healing on view), "page" (a browser's render of a PDF's first page); null for rows made before migration 0026.
     * Heal-on-view may replace a "card" of a PDF once with a "page" render, nothing else (decision 029).
     */
    maker: text("maker"),
    /** the user whose browser made it; null for the Worker and for rows before migration 0029 */
    madeBy: text("made_by"),
    /** who let everyone see it: its maker when he held `update`, else the user who accepted it (heal_candidates) */
    acceptedBy: text("accepted_by"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [index("previews_asset_idx").on(t.assetId, t.versionId), index("previews_storage_key_idx").on(t.storageKey)],
);
