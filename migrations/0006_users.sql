CREATE TABLE `robot_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`token_hash` text NOT NULL,
	`scope_groups` text,
	`ctime` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`last_used_at` integer,
	`created_by` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `robot_tokens_prefix_unique` ON `robot_tokens` (`prefix`);--> statement-breakpoint
CREATE INDEX `robot_tokens_user_idx` ON `robot_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `user_settings` (
	`user_id` text PRIMARY KEY NOT NULL,
	`ui_settings` text DEFAULT '{}' NOT NULL,
	`bookmarks` text DEFAULT '{}' NOT NULL,
	`mtime` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sso_states` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`browser_hash` text NOT NULL,
	`return_to` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`ctime` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sso_states_expires_idx` ON `sso_states` (`expires_at`);
