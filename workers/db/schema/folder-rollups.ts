import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Sizes and counts of a group (migration 0014; decision record 017). Direct: live asset listings, their bytes and
 * live sub-groups. Subtree (`sub_*`): the same summed over every live group of the subtree, the group itself included
 * (`sub_groups` counts the group too). `tree_version` grows whenever the subtree's shape or names change (the subtree
 * cache keys on it); `files_version` whenever a file a tree form could list changes below it (migration 0042).
 * Triggers keep every column exact in the same statement as the change.
 */
export const folderRollups = sqliteTable("folder_rollups", {
  groupId: text("group_id").primaryKey(),
  assets: integer("assets", { mode: "number" }).notNull().default(0),
  bytes: integer("bytes", { mode: "number" }).notNull().default(0),
  groups: integer("groups", { mode: "number" }).notNull().default(0),
  subAssets: integer("sub_assets", { mode: "number" }).notNull().default(0),
  subBytes: integer("sub_bytes", { mode: "number" }).notNull().default(0),
  subGroups: integer("sub_groups", { mode: "number" }).notNull().default(0),
  treeVersion: integer("tree_version", { mode: "number" }).notNull().default(0),
  filesVersion: integer("files_version", { mode: "number" }).notNull().default(0),
});
