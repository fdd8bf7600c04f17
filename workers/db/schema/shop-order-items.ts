import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { shopOrders } from "./shop-orders";

/**
 * What an order bought, copied from the listing at checkout (a later price change or withdrawal does not change a
 * placed order). `rule_id` is the access rule that grants the buyer read + download on the item while the order is
 * paid or approved; null before that and after a refund.
 */
export const shopOrderItems = sqliteTable(
  "shop_order_items",
  {
    orderId: text("order_id")
      .notNull()
      .references(() => shopOrders.id, { onDelete: "cascade" }),
    entityId: text("entity_id").notNull(),
    entityType: text("entity_type", { enum: ["asset", "group"] }).notNull(),
    name: text("name").notNull(),
    price: integer("price", { mode: "number" }).notNull(),
    currency: text("currency").notNull(),
    licence: text("licence").notNull(),
    ruleId: text("rule_id"),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.entityId] }), index("shop_order_items_entity_idx").on(t.entityId)],
);

export type ShopOrderItemRow = typeof shopOrderItems.$inferSelect;
