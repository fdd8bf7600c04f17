-- Decision 035: comments pinned to a spot, a moment or a page of a file version, who follows a file, and the inbox
-- of notifications made from the event log by its own cursor.
-- `anchor`: JSON {region?, time?, page?, path?} already validated against the media; `mentions`: JSON array of the
-- user ids the text named with @login (the text itself stays as typed).
CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version` integer NOT NULL,
	`author_id` text NOT NULL,
	`text` text NOT NULL,
	`anchor` text,
	`parent_id` text,
	`resolved` integer DEFAULT 0 NOT NULL,
	`mentions` text DEFAULT '[]' NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `comments_asset_idx` ON `comments` (`asset_id`, `ctime`, `id`);
--> statement-breakpoint
CREATE INDEX `comments_parent_idx` ON `comments` (`parent_id`) WHERE `parent_id` IS NOT NULL;
--> statement-breakpoint
-- Who follows a file. The uploader follows without a row; `following` 0 is an explicit «не следить» that also stops
-- commenting from following the file again.
CREATE TABLE `asset_follows` (
	`asset_id` text NOT NULL,
	`user_id` text NOT NULL,
	`following` integer NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`asset_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `asset_follows_user_idx` ON `asset_follows` (`user_id`);
--> statement-breakpoint
-- One notification per (event, recipient): the unique key is what makes a dispatch that dies half-way safe to repeat.
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`event_seq` integer NOT NULL,
	`kind` text NOT NULL,
	`asset_id` text,
	`comment_id` text,
	`by_id` text,
	`text` text NOT NULL,
	`link` text DEFAULT '{}' NOT NULL,
	`ctime` integer NOT NULL,
	`read_at` integer,
	`emailed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_event_user_unique` ON `notifications` (`event_seq`, `user_id`);
--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`, `ctime`, `id`);
--> statement-breakpoint
CREATE INDEX `notifications_unread_idx` ON `notifications` (`user_id`) WHERE `read_at` IS NULL;
--> statement-breakpoint
CREATE INDEX `notifications_unmailed_idx` ON `notifications` (`user_id`) WHERE `emailed_at` IS NULL AND `read_at` IS NULL;
--> statement-breakpoint
-- The notification dispatcher's place in `global_events` (its own cursor, beside the automations' outbox flag).
-- It starts at the end of the log: events from before notifications existed notify nobody.
CREATE TABLE `notification_cursor` (
	`name` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `notification_cursor` (`name`, `seq`, `mtime`) SELECT 'inbox', coalesce(max(`seq`), 0), 0 FROM `global_events`;
--> statement-breakpoint
-- E-mail digests: the address and consent are the user's own; `last_digest_at` keeps them at most one a quarter hour.
CREATE TABLE `notification_settings` (
	`user_id` text PRIMARY KEY NOT NULL,
	`email` text,
	`digest` integer DEFAULT 0 NOT NULL,
	`last_digest_at` integer,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_settings_digest_idx` ON `notification_settings` (`user_id`) WHERE `digest` = 1;
