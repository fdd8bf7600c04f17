import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";
import { users } from "./users";

/**
 * One row per refresh token ever issued. Tokens of one sign-in share a `family_id`; each refresh marks the
 * presented token used and adds its successor, so presenting a used token reveals theft and revokes the family.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: idColumn(),
    familyId: text("family_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    usedAt: integer("used_at", { mode: "number" }),
    revokedAt: integer("revoked_at", { mode: "number" }),
    userAgent: text("user_agent"),
    ip: text("ip"),
    /**
     * A session made by trading a handed-over access token: the family that token belonged to. The family lives only
     * while that one does (logout, a new password, reuse detection or expiry of the source end it too).
     */
    parentFamilyId: text("parent_family_id"),
    /** A session made by trading a robot's API token: that token. Revoking or expiring the token ends the session. */
    robotTokenId: text("robot_token_id"),
  },
  (t) => [index("sessions_family_idx").on(t.familyId), index("sessions_user_idx").on(t.userId)],
);

export type SessionRow = typeof sessions.$inferSelect;
