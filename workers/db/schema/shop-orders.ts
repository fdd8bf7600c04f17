import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "./users";

/**
 * Order statuses (decision 022): `pending_payment` waits for Stripe's hosted checkout, `awaiting_approval` for an
 * administrator (invoice flow, when no Stripe key is configured); `paid` and `approved` hold download rights;
 * `refunded` and `cancelled` hold none.
 */
export const ORDER_STATUSES = ["pending_payment", "awaiting_approval", "paid", "approved", "refunded", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** How an order is settled: through Stripe's hosted checkout, or by invoice and an administrator's approval. */
export const PAYMENT_METHODS = ["stripe", "invoice"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const shopOrders = sqliteTable(
  "shop_orders",
  {
    id: text("id").primaryKey(),
    buyerId: text("buyer_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    currency: text("currency").notNull(),
    /** sum of the items' prices, minor units */
    total: integer("total", { mode: "number" }).notNull(),
    /** where receipts go (users have no address of their own); null: none sent */
    email: text("email"),
    payment: text("payment", { enum: PAYMENT_METHODS }).notNull(),
    stripeSessionId: text("stripe_session_id"),
    /** set by checkout.session.completed; charge.refunded finds the order by it */
    stripePaymentIntent: text("stripe_payment_intent"),
    checkoutUrl: text("checkout_url"),
    /** the administrator who approved, refunded or cancelled it */
    decidedBy: text("decided_by"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    mtime: integer("mtime", { mode: "number" }).notNull(),
    paidAt: integer("paid_at", { mode: "number" }),
    refundedAt: integer("refunded_at", { mode: "number" }),
  },
  (t) => [
    index("shop_orders_buyer_idx").on(t.buyerId, t.ctime),
    index("shop_orders_status_idx").on(t.status, t.ctime),
    index("shop_orders_session_idx").on(t.stripeSessionId),
    index("shop_orders_intent_idx").on(t.stripePaymentIntent),
  ],
);

export type ShopOrderRow = typeof shopOrders.$inferSelect;
