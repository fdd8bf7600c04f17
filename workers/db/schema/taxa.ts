import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";

/**
 * Taxa of hierarchical taxonomies: a taxonomy (tree) is a taxon without a parent; every other taxon has a parent in
 * the same tree (`tree_id`). Names are unique among siblings (case-folded, checked by the service).
 */
export const taxa = sqliteTable(
  "taxa",
  {
    id: idColumn(),
    treeId: text("tree_id").notNull(),
    parentId: text("parent_id"),
    name: text("name").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [index("taxa_tree_idx").on(t.treeId), index("taxa_parent_idx").on(t.parentId)],
);

/** Which assets and groups are classified under which taxon. */
export const taxonMembers = sqliteTable(
  "taxon_members",
  {
    taxonId: text("taxon_id").notNull(),
    objectId: text("object_id").notNull(),
    objectType: text("object_type", { enum: ["asset", "group"] }).notNull(),
    treeId: text("tree_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.taxonId, t.objectId] }), index("taxon_members_object_idx").on(t.objectId)],
);

export type TaxonRow = typeof taxa.$inferSelect;
