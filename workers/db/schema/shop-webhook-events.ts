import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Stripe events already handled, by event id: a redelivered event changes nothing (webhooks are at-least-once). */
export const shopWebhookEvents = sqliteTable("shop_webhook_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  ctime: integer("ctime", { mode: "number" }).notNull(),
});
