-- Collections (decision record 034): a named, ordered set of files owned by its creator, shared with users or groups
-- of users at a role. A collection never grants anything on its files: every listing filters the items by the
-- reader's own rights on each file (visibleSql), so the tables below hold no rights of their own over files.
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`owner_id` text NOT NULL,
	`ctime` integer NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `collections_owner_idx` ON `collections` (`owner_id`,`mtime`);
--> statement-breakpoint
-- `pos` is the order key: items are listed by (pos, asset_id). Adding appends after the largest key; reordering
-- gives the listed items keys below the smallest, so no other row is rewritten.
CREATE TABLE `collection_items` (
	`collection_id` text NOT NULL,
	`asset_id` text NOT NULL,
	`pos` integer NOT NULL,
	`added_by` text,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`collection_id`, `asset_id`)
);
--> statement-breakpoint
CREATE INDEX `collection_items_order_idx` ON `collection_items` (`collection_id`,`pos`,`asset_id`);
--> statement-breakpoint
CREATE INDEX `collection_items_asset_idx` ON `collection_items` (`asset_id`);
--> statement-breakpoint
-- Who has a collection besides its owner: a user or a group of users, at a role (view, comment or edit).
CREATE TABLE `collection_members` (
	`collection_id` text NOT NULL,
	`subj_id` text NOT NULL,
	`subj_type` text NOT NULL,
	`role` text NOT NULL,
	`added_by` text,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`collection_id`, `subj_id`)
);
--> statement-breakpoint
CREATE INDEX `collection_members_subj_idx` ON `collection_members` (`subj_id`,`collection_id`);
