import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * OpenID Connect sign-ins under way: what the callback must find again (nonce, PKCE verifier, where to go), keyed
 * by the SHA-256 of the `state` sent to the provider. A row is deleted when its callback arrives, so a state works
 * once; `browser_hash` binds it to the browser that started the sign-in (a cookie), so a callback URL cannot be
 * replayed in someone else's browser.
 */
export const ssoStates = sqliteTable(
  "sso_states",
  {
    stateHash: text("state_hash").primaryKey(),
    provider: text("provider").notNull(),
    nonce: text("nonce").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    browserHash: text("browser_hash").notNull(),
    returnTo: text("return_to").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    /**
     * A random value the sign-in page put in its own tab's storage before starting: handed back beside the one-time
     * token so the page knows it asked for this sign-in (and trades it without asking «Войти как …?»).
     */
    pageNonce: text("page_nonce"),
    ctime: integer("ctime", { mode: "number" }).notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("sso_states_expires_idx").on(t.expiresAt)],
);

export type SsoStateRow = typeof ssoStates.$inferSelect;
