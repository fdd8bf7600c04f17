CREATE TABLE `upload_parts` (
	`variant_id` text NOT NULL,
	`part_number` integer NOT NULL,
	`size` integer NOT NULL,
	`etag` text NOT NULL,
	`ctime` integer NOT NULL,
	PRIMARY KEY(`variant_id`, `part_number`)
);
--> statement-breakpoint
ALTER TABLE `variants` ADD `upload_id` text;--> statement-breakpoint
ALTER TABLE `variants` ADD `part_size` integer;--> statement-breakpoint
ALTER TABLE `variants` ADD `hash_state` text;--> statement-breakpoint
ALTER TABLE `variants` ADD `hash_offset` integer;--> statement-breakpoint
ALTER TABLE `variants` ADD `progress_at` integer;--> statement-breakpoint
CREATE INDEX `variants_upload_progress_idx` ON `variants` (`status`,`progress_at`) WHERE upload_id is not null;