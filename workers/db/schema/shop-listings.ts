import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * What the shop sells (decision 022): an asset or a folder, at a price in integer minor units of an ISO 4217
 * currency, with the licence text the buyer accepts. `preview_key` is the R2 key of the watermarked preview the
 * catalogue shows to people who may not read the item itself (null: no image preview, the catalogue shows an icon).
 * Withdrawing an item deletes its row; orders keep their own copy of name, price and licence.
 */
export const shopListings = sqliteTable(
  "shop_listings",
  {
    entityId: text("entity_id").primaryKey(),
    entityType: text("entity_type", { enum: ["asset", "group"] }).notNull(),
    price: integer("price", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    licence: text("licence").notNull(),
    previewKey: text("preview_key"),
    createdBy: text("created_by").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    mtime: integer("mtime", { mode: "number" }).notNull(),
  },
  (t) => [index("shop_listings_ctime_idx").on(t.ctime), check("shop_listings_price_positive", sql`${t.price} > 0`)],
);

export type ShopListingRow = typeof shopListings.$inferSelect;
