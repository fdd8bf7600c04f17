import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { users } from "./users";

/** Per-user documents the UI keeps on the server: `ui_settings` and `bookmarks` (SPEC §7 Users), JSON objects. */
export const userSettings = sqliteTable("user_settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  uiSettings: text("ui_settings", { mode: "json" })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  bookmarks: text("bookmarks", { mode: "json" })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  mtime: integer("mtime", { mode: "number" }).notNull(),
});

export type UserSettingsRow = typeof userSettings.$inferSelect;
