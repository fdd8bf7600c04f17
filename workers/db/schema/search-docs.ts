import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The search document of each asset and group (decision 011): `doc_id` is the rowid of its row in the FTS5 table
 * `search_fts` (name, meta, content), which Drizzle cannot describe; migration 0011 creates it, the views that
 * compute a document from the live tables, and the triggers that keep both true in the writing transaction.
 */
export const searchDocs = sqliteTable(
  "search_docs",
  {
    docId: integer("doc_id", { mode: "number" }).primaryKey({ autoIncrement: true }),
    entityId: text("entity_id").notNull(),
    entityType: text("entity_type", { enum: ["asset", "group"] }).notNull(),
  },
  (t) => [uniqueIndex("search_docs_entity_unique").on(t.entityId)],
);
