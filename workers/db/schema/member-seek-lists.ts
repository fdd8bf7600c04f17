import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * One seek list per group, member type, sort column, direction and MIME prefix that someone paged by `skip`
 * (decision record 017): built lazily, at most a few per group (the oldest is evicted).
 */
export const memberSeekLists = sqliteTable(
  "member_seek_lists",
  {
    id: text("id").primaryKey(),
    groupId: text("group_id").notNull(),
    elType: text("el_type").notNull(),
    col: text("col").notNull(),
    descending: integer("descending", { mode: "number" }).notNull(),
    mime: text("mime").notNull().default(""),
    builtAt: integer("built_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("member_seek_lists_key").on(t.groupId, t.elType, t.col, t.descending, t.mime)],
);
