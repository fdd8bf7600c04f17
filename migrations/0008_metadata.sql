CREATE TABLE `field_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`field_type` text NOT NULL,
	`setup` text DEFAULT '{}' NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`extsys` text,
	`extsys_key` text,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `field_templates_name_unique` ON `field_templates` (lower("name"));--> statement-breakpoint
CREATE INDEX `field_templates_extsys_key_idx` ON `field_templates` (`extsys_key`);--> statement-breakpoint
CREATE TABLE `field_values` (
	`id` text PRIMARY KEY NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`def_id` text NOT NULL,
	`version_id` text,
	`version` integer,
	`pts_start` real,
	`pts_end` real,
	`data` text NOT NULL,
	`value_text` text,
	`value_num` real,
	`user_id` text,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `field_values_entity_idx` ON `field_values` (`entity_id`,`def_id`);--> statement-breakpoint
CREATE INDEX `field_values_def_text_idx` ON `field_values` (`def_id`,`value_text`,`entity_id`) WHERE "field_values"."value_text" is not null;--> statement-breakpoint
CREATE INDEX `field_values_def_num_idx` ON `field_values` (`def_id`,`value_num`,`entity_id`) WHERE "field_values"."value_num" is not null;--> statement-breakpoint
CREATE TABLE `taxa` (
	`id` text PRIMARY KEY NOT NULL,
	`tree_id` text NOT NULL,
	`parent_id` text,
	`name` text NOT NULL,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `taxa_tree_idx` ON `taxa` (`tree_id`);--> statement-breakpoint
CREATE INDEX `taxa_parent_idx` ON `taxa` (`parent_id`);--> statement-breakpoint
CREATE TABLE `taxon_members` (
	`taxon_id` text NOT NULL,
	`object_id` text NOT NULL,
	`object_type` text NOT NULL,
	`tree_id` text NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`taxon_id`, `object_id`)
);
--> statement-breakpoint
CREATE INDEX `taxon_members_object_idx` ON `taxon_members` (`object_id`);--> statement-breakpoint
CREATE TABLE `lists` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lists_name_unique` ON `lists` (lower("name"));--> statement-breakpoint
CREATE TABLE `list_records` (
	`list_id` text NOT NULL,
	`rec_id` text NOT NULL,
	`rec_data` text NOT NULL,
	`position` integer DEFAULT 0 NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`list_id`, `rec_id`)
);
