import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn, timestamps } from "../columns";

/** Folders. Every group except the virtual root has exactly one parent; `group_closure` indexes the tree. */
export const groups = sqliteTable(
  "groups",
  {
    id: idColumn(),
    name: text("name").notNull(),
    parentId: text("parent_id"),
    ownerId: text("owner_id"),
    defaultStorage: text("default_storage"),
    defaultClass: text("default_class"),
    ...timestamps,
    /** Set when moved to the trash; purged for good after the retention period. */
    deletedAt: integer("deleted_at", { mode: "number" }),
  },
  (t) => [
    index("groups_parent_idx").on(t.parentId),
    index("groups_owner_idx").on(t.ownerId),
    // Partial: the trash listing and the retention purge look only at trashed groups, a small share of all.
    index("groups_deleted_idx")
      .on(t.deletedAt)
      .where(sql`deleted_at is not null`),
  ],
);

export type GroupRow = typeof groups.$inferSelect;
