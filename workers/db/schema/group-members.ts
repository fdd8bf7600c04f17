import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const MEMBER_TYPES = ["asset", "group"] as const;
export type MemberType = (typeof MEMBER_TYPES)[number];

/** The one membership relation: which assets and sub-groups a group lists. An asset may be listed in several groups. */
export const groupMembers = sqliteTable(
  "group_members",
  {
    groupId: text("group_id").notNull(),
    elId: text("el_id").notNull(),
    elType: text("el_type", { enum: MEMBER_TYPES }).notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.elId] }), index("group_members_el_idx").on(t.elId)],
);
