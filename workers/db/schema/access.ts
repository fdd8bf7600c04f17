import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, idColumn } from "../columns";

/** Who a rule is for: one user, or every member of a group of users. */
export const RULE_SUBJECT_TYPES = ["user", "group"] as const;
/** What a rule is on: an asset, or a group and (unless inheritance is switched off) everything below it. */
export const RULE_OBJECT_TYPES = ["asset", "group"] as const;

/**
 * Access rules: a subject holds the levels of `acl` (a bitmask over ACCESS_LEVELS, bit i = level i) on an object.
 * `access_rules_obj_idx` serves the check (the rules on each node of an entity's chain for the caller's subjects),
 * `access_rules_subj_idx` the per-user and per-group rule lists and the "reached through rules" roots.
 */
export const accessRules = sqliteTable(
  "access_rules",
  {
    id: idColumn(),
    subjId: text("subj_id").notNull(),
    subjType: text("subj_type", { enum: RULE_SUBJECT_TYPES }).notNull(),
    objId: text("obj_id").notNull(),
    objType: text("obj_type", { enum: RULE_OBJECT_TYPES }).notNull(),
    acl: integer("acl", { mode: "number" }).notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    createdBy: text("created_by"),
  },
  (t) => [index("access_rules_obj_idx").on(t.objId, t.subjId, t.acl), index("access_rules_subj_idx").on(t.subjId, t.objId)],
);

export type AccessRuleRow = typeof accessRules.$inferSelect;

/** Inheritance switches: a row with `inherit` false stops rules of the ancestors from reaching the entity; no row = inherit. */
export const accessInheritance = sqliteTable("access_inheritance", {
  entityId: text("entity_id").primaryKey(),
  entityType: text("entity_type", { enum: RULE_OBJECT_TYPES }).notNull(),
  inherit: bool("inherit").notNull(),
  mtime: integer("mtime", { mode: "number" }).notNull(),
});

/** Users are members of groups of users; rules whose subject is a group apply to its members. */
export const userGroupMembers = sqliteTable(
  "user_group_members",
  {
    groupId: text("group_id").notNull(),
    userId: text("user_id").notNull(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index("user_group_members_user_idx").on(t.userId, t.groupId)],
);
