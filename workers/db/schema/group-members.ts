import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Members of a group: assets, sub-groups, and users (for access rules whose subject is a group of users). */
export const MEMBER_TYPES = ["asset", "group", "user"] as const;
export type MemberType = (typeof MEMBER_TYPES)[number];

/**
 * The one membership relation: which assets and sub-groups a group lists. An asset may be listed in several groups.
 * `sort_name`, `el_mtime` and `el_size` copy the element's sort keys so a page of members is an index range scan
 * (key-based paging) even in a group of 100,000 assets; `trashed_at` hides members whose element is in the trash.
 */
export const groupMembers = sqliteTable(
  "group_members",
  {
    groupId: text("group_id").notNull(),
    elId: text("el_id").notNull(),
    elType: text("el_type", { enum: MEMBER_TYPES }).notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    sortName: text("sort_name").notNull().default(""),
    elMtime: integer("el_mtime", { mode: "number" }).notNull().default(0),
    elSize: integer("el_size", { mode: "number" }).notNull().default(0),
    trashedAt: integer("trashed_at", { mode: "number" }),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.elId] }),
    index("group_members_el_idx").on(t.elId),
    // the folders that list a file, read from the index alone (a collection page filters every item through it)
    index("group_members_asset_groups_idx").on(t.elId, t.elType, t.trashedAt, t.groupId),
    index("group_members_by_name").on(t.groupId, t.elType, t.sortName, t.elId).where(sql`${t.trashedAt} is null`),
    index("group_members_by_mtime").on(t.groupId, t.elType, t.elMtime, t.elId).where(sql`${t.trashedAt} is null`),
    index("group_members_by_size").on(t.groupId, t.elType, t.elSize, t.elId).where(sql`${t.trashedAt} is null`),
  ],
);
