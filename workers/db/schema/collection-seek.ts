import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

/**
 * A collection's revision (migration 0053, decision record 034): triggers on `collection_items` grow it with every
 * item added, removed or reordered, so checkpoints built before such a change are never read after it.
 */
export const collectionRevisions = sqliteTable("collection_revisions", {
  collectionId: text("collection_id").primaryKey(),
  revision: integer("revision", { mode: "number" }).notNull(),
});

/**
 * One reader's checkpoints of a collection (decision record 034): every COLLECTION_SEEK_SPACING-th item he may read
 * with `n`, the readable items up to and including it, in collection order. The head row (`n` 0) carries the list's
 * `total` and `live` and the revisions (the collection's and the `readable` scope of `cache_revisions`) it was built
 * under; under any other revision the list is ignored and rebuilt.
 */
export const collectionSeek = sqliteTable(
  "collection_seek",
  {
    collectionId: text("collection_id").notNull(),
    reader: text("reader").notNull(),
    n: integer("n", { mode: "number" }).notNull(),
    pos: integer("pos", { mode: "number" }).notNull(),
    assetId: text("asset_id").notNull(),
    total: integer("total", { mode: "number" }),
    live: integer("live", { mode: "number" }),
    itemsRevision: integer("items_revision", { mode: "number" }),
    readableRevision: integer("readable_revision", { mode: "number" }),
    builtAt: integer("built_at", { mode: "number" }),
  },
  (t) => [
    primaryKey({ columns: [t.collectionId, t.reader, t.n] }),
    index("collection_seek_heads")
      .on(t.collectionId, t.builtAt)
      .where(sql`${t.n} = 0`),
  ],
);
