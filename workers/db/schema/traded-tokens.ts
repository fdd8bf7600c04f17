import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Access tokens (a session's JWT, a robot's API token) already traded for a session by `/api/auth/exchange-token`,
 * keyed by their SHA-256: the primary key makes the claim atomic, so a token starts at most one session. A row can
 * go once the token it names can no longer be used (`expires_at`; null for a robot token without expiry).
 */
export const tradedTokens = sqliteTable("traded_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  userId: text("user_id").notNull(),
  tradedAt: integer("traded_at", { mode: "number" }).notNull(),
  expiresAt: integer("expires_at", { mode: "number" }),
});
