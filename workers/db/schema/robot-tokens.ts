import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";
import { users } from "./users";

/**
 * API tokens of robot accounts. Only the SHA-256 of a token is kept: the token itself is shown once, at creation.
 * `prefix` (the first characters of the token) finds the row and lets people recognise a token in lists.
 */
export const robotTokens = sqliteTable(
  "robot_tokens",
  {
    id: idColumn(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** JSON array of group ids the token is confined to; null means the robot's full rights */
    scopeGroups: text("scope_groups", { mode: "json" }).$type<string[]>(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }),
    revokedAt: integer("revoked_at", { mode: "number" }),
    lastUsedAt: integer("last_used_at", { mode: "number" }),
    createdBy: text("created_by"),
  },
  (t) => [uniqueIndex("robot_tokens_prefix_unique").on(t.prefix), index("robot_tokens_user_idx").on(t.userId)],
);

export type RobotTokenRow = typeof robotTokens.$inferSelect;
