CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`login` text NOT NULL,
	`name` text NOT NULL,
	`password_hash` text,
	`is_admin` integer DEFAULT false NOT NULL,
	`is_robot` integer DEFAULT false NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`chroot_groups` text DEFAULT '[]' NOT NULL,
	`default_storage` text,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_login_unique` ON `users` (lower("login"));--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`family_id` text NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`ctime` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`revoked_at` integer,
	`user_agent` text,
	`ip` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_token_hash_unique` ON `sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `sessions_family_idx` ON `sessions` (`family_id`);--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `one_time_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `one_time_tokens_token_hash_unique` ON `one_time_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`parent_id` text,
	`owner_id` text,
	`default_storage` text,
	`default_class` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `groups_parent_idx` ON `groups` (`parent_id`);--> statement-breakpoint
CREATE INDEX `groups_owner_idx` ON `groups` (`owner_id`);--> statement-breakpoint
CREATE TABLE `group_closure` (
	`ancestor` text NOT NULL,
	`descendant` text NOT NULL,
	`depth` integer NOT NULL,
	PRIMARY KEY(`ancestor`, `descendant`)
);
--> statement-breakpoint
CREATE INDEX `group_closure_descendant_idx` ON `group_closure` (`descendant`);--> statement-breakpoint
CREATE TABLE `group_members` (
	`group_id` text NOT NULL,
	`el_id` text NOT NULL,
	`el_type` text NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`group_id`, `el_id`)
);
--> statement-breakpoint
CREATE INDEX `group_members_el_idx` ON `group_members` (`el_id`);