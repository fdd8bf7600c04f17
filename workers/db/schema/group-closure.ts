import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Transitive closure of the group tree (including depth-0 self rows) so subtree, path and inherited-access queries are single statements. */
export const groupClosure = sqliteTable(
  "group_closure",
  {
    ancestor: text("ancestor").notNull(),
    descendant: text("descendant").notNull(),
    depth: integer("depth", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ancestor, t.descendant] }), index("group_closure_descendant_idx").on(t.descendant)],
);
