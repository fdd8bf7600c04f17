-- Sessions made from a handed-over token are bound to their source: the family of the traded access token, or the
-- robot API token traded. They end when the source ends (checked on every refresh and authenticated request).
ALTER TABLE `sessions` ADD `parent_family_id` text;
--> statement-breakpoint
ALTER TABLE `sessions` ADD `robot_token_id` text;
--> statement-breakpoint
-- An access token trades for a session at most once: the claim is this table's primary key.
CREATE TABLE `traded_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`traded_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
-- The sign-in page's own nonce, handed back with the SSO one-time token (no «Войти как …?» for a sign-in it started).
ALTER TABLE `sso_states` ADD `page_nonce` text;
