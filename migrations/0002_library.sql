CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`mime` text NOT NULL,
	`owner_id` text NOT NULL,
	`creator_id` text NOT NULL,
	`class_id` text,
	`default_storage` text,
	`latest_version` integer DEFAULT 0 NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL,
	`atime` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `assets_owner_idx` ON `assets` (`owner_id`);--> statement-breakpoint
CREATE INDEX `assets_deleted_idx` ON `assets` (`deleted_at`);--> statement-breakpoint
CREATE TABLE `asset_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version` integer NOT NULL,
	`description` text,
	`user_id` text NOT NULL,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `asset_versions_asset_version_unique` ON `asset_versions` (`asset_id`,`version`);--> statement-breakpoint
CREATE TABLE `variants` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version_id` text,
	`variant_type` text NOT NULL,
	`status` text NOT NULL,
	`name` text NOT NULL,
	`mime_type` text NOT NULL,
	`format` text,
	`file_name` text NOT NULL,
	`content_size` integer NOT NULL,
	`sha256` text,
	`storage_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`preview_storage_id` text,
	`metadata_storage_id` text,
	`tech_fields` text,
	`tech_props` text,
	`to_group` text,
	`user_id` text NOT NULL,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `variants_asset_version_idx` ON `variants` (`asset_id`,`version_id`);--> statement-breakpoint
CREATE INDEX `variants_version_idx` ON `variants` (`version_id`);--> statement-breakpoint
CREATE TABLE `previews` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version_id` text,
	`size` text NOT NULL,
	`mime_type` text NOT NULL,
	`width` integer,
	`height` integer,
	`content_size` integer NOT NULL,
	`storage_key` text NOT NULL,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `previews_asset_idx` ON `previews` (`asset_id`,`version_id`);--> statement-breakpoint
CREATE TABLE `asset_classes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`def_fields` text DEFAULT '[]' NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `asset_classes_name_unique` ON `asset_classes` (lower("name"));--> statement-breakpoint
CREATE TABLE `entity_tags` (
	`tag_id` text NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL,
	PRIMARY KEY(`tag_id`, `entity_id`)
);
--> statement-breakpoint
CREATE INDEX `entity_tags_entity_idx` ON `entity_tags` (`entity_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_name_unique` ON `tags` (lower("name"));--> statement-breakpoint
CREATE TABLE `storages` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`url` text,
	`bucket` text,
	`region` text,
	`creds_encrypted` text,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `group_members` ADD `sort_name` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `group_members` ADD `el_mtime` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `group_members` ADD `el_size` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `group_members` ADD `trashed_at` integer;--> statement-breakpoint
CREATE INDEX `group_members_by_name` ON `group_members` (`group_id`,`el_type`,`sort_name`,`el_id`) WHERE "group_members"."trashed_at" is null;--> statement-breakpoint
CREATE INDEX `group_members_by_mtime` ON `group_members` (`group_id`,`el_type`,`el_mtime`,`el_id`) WHERE "group_members"."trashed_at" is null;--> statement-breakpoint
CREATE INDEX `group_members_by_size` ON `group_members` (`group_id`,`el_type`,`el_size`,`el_id`) WHERE "group_members"."trashed_at" is null;--> statement-breakpoint
ALTER TABLE `groups` DROP COLUMN `tags`;--> statement-breakpoint
-- The default storage: the R2 binding MEDIA.
INSERT INTO `storages` (`id`, `name`, `kind`, `ctime`, `mtime`) VALUES ('00000000000000000000000000000000', 'R2', 'r2', 0, 0);
--> statement-breakpoint
UPDATE `group_members` SET `sort_name` = lower((SELECT `name` FROM `groups` WHERE `groups`.`id` = `group_members`.`el_id`)) WHERE `el_type` = 'group';
