CREATE TABLE `access_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`subj_id` text NOT NULL,
	`subj_type` text NOT NULL,
	`obj_id` text NOT NULL,
	`obj_type` text NOT NULL,
	`acl` integer NOT NULL,
	`ctime` integer NOT NULL,
	`created_by` text
);
--> statement-breakpoint
CREATE INDEX `access_rules_obj_idx` ON `access_rules` (`obj_id`,`subj_id`,`acl`);--> statement-breakpoint
CREATE INDEX `access_rules_subj_idx` ON `access_rules` (`subj_id`,`obj_id`);--> statement-breakpoint
CREATE TABLE `access_inheritance` (
	`entity_id` text PRIMARY KEY NOT NULL,
	`entity_type` text NOT NULL,
	`inherit` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_group_members` (
	`group_id` text NOT NULL,
	`user_id` text NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`group_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `user_group_members_user_idx` ON `user_group_members` (`user_id`,`group_id`);--> statement-breakpoint
-- Users listed in folders through insert-members become members of the group of users; the folder listing never showed them.
INSERT INTO `user_group_members` (`group_id`, `user_id`, `ctime`) SELECT `group_id`, `el_id`, `ctime` FROM `group_members` WHERE `el_type` = 'user';
--> statement-breakpoint
DELETE FROM `group_members` WHERE `el_type` = 'user';
