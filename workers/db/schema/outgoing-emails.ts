import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/**
 * Every message the product sends (shortlink invitations), whatever happened to it: `sent` through the Email
 * Workers binding, `recorded` when no binding is configured (local runs, tests: the row is the message), `failed`
 * with the binding's error. Nothing is ever dropped silently.
 */
export const outgoingEmails = sqliteTable(
  "outgoing_emails",
  {
    id: idColumn(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    /** JSON array of recipient addresses */
    recipients: text("recipients", { mode: "json" }).$type<string[]>().notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: ["sent", "recorded", "failed"] }).notNull(),
    error: text("error"),
    /** what the message is about, e.g. `shortlink` */
    objectType: text("object_type"),
    objectId: text("object_id"),
    actorId: text("actor_id"),
  },
  (t) => [index("outgoing_emails_object_idx").on(t.objectId, t.ctime)],
);

export type OutgoingEmailRow = typeof outgoingEmails.$inferSelect;
