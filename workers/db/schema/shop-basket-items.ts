import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users";

/** Each user's basket: the listed items they mean to buy (one row per item; checkout empties it). */
export const shopBasketItems = sqliteTable(
  "shop_basket_items",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    entityId: text("entity_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.entityId] })],
);
