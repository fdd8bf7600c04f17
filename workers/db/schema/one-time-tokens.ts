import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { idColumn } from "../columns";
import { users } from "./users";

/** Short-lived single-use tokens that `POST /api/auth/exchange-token` trades for a session (SSO callback, e-mail links). */
export const oneTimeTokens = sqliteTable("one_time_tokens", {
  id: idColumn(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  ctime: integer("ctime", { mode: "number" }).notNull(),
  expiresAt: integer("expires_at", { mode: "number" }).notNull(),
  usedAt: integer("used_at", { mode: "number" }),
});
