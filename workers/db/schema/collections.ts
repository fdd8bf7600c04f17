import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

/** The roles a collection is shared at, weakest first: each also allows what the ones before it do. */
export const COLLECTION_ROLES = ["view", "comment", "edit"] as const;

/**
 * Collections (decision record 034): named, ordered sets of files owned by their creator. A collection grants
 * nothing on its files: every listing filters the items by the reader's own rights on each file.
 */
export const collections = sqliteTable(
  "collections",
  {
    id: idColumn(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    ownerId: text("owner_id").notNull(),
    ...timestamps,
  },
  (t) => [index("collections_owner_idx").on(t.ownerId, t.mtime)],
);

/** The files of a collection, listed by (`pos`, `asset_id`). */
export const collectionItems = sqliteTable(
  "collection_items",
  {
    collectionId: text("collection_id").notNull(),
    assetId: text("asset_id").notNull(),
    pos: integer("pos", { mode: "number" }).notNull(),
    addedBy: text("added_by"),
    addedAt: integer("added_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.collectionId, t.assetId] }),
    index("collection_items_order_idx").on(t.collectionId, t.pos, t.assetId),
    index("collection_items_asset_idx").on(t.assetId),
  ],
);

/** Who has a collection besides its owner: a user or a group of users, at a role. */
export const collectionMembers = sqliteTable(
  "collection_members",
  {
    collectionId: text("collection_id").notNull(),
    subjId: text("subj_id").notNull(),
    subjType: text("subj_type", { enum: ["user", "group"] }).notNull(),
    role: text("role", { enum: COLLECTION_ROLES }).notNull(),
    addedBy: text("added_by"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.collectionId, t.subjId] }), index("collection_members_subj_idx").on(t.subjId, t.collectionId)],
);
