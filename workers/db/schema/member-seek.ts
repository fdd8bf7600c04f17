import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Sparse checkpoints of a seek list (decision records 017 and 032): a boundary `(sort_key, el_id)` in the list's
 * order and `span`, the listed members after the previous boundary up to and including this one (so the members up to
 * a boundary are the sum of the spans up to it). `pos` 0 is the sentinel beyond the last member. Triggers on
 * group_members, assets and groups move one span per list in the same statement as every change, so a `skip`
 * starts at the nearest boundary instead of scanning. `sort_key` has no type affinity: it holds the text or
 * integer key exactly as the membership column does. The list's group, type, column, direction and MIME prefix are
 * copied onto every row so the triggers find them with one index range.
 */
export const memberSeek = sqliteTable(
  "member_seek",
  {
    listId: text("list_id").notNull(),
    pos: integer("pos", { mode: "number" }).notNull(),
    span: integer("span", { mode: "number" }).notNull().default(0),
    sortKey: blob("sort_key"),
    elId: text("el_id").notNull(),
    groupId: text("group_id").notNull(),
    elType: text("el_type").notNull(),
    col: text("col").notNull(),
    descending: integer("descending", { mode: "number" }).notNull(),
    mime: text("mime").notNull().default(""),
  },
  (t) => [
    primaryKey({ columns: [t.listId, t.pos] }),
    index("member_seek_at").on(t.listId, t.sortKey, t.elId),
    index("member_seek_group_idx").on(t.groupId, t.elType),
  ],
);
