-- Heal on view (decision 029, «Who sees a heal»): a preview, proxy or waveform made by someone without `update` on
-- the file is his alone until someone with `update` accepts it. Shared rows record who made them (`made_by`, null
-- for the Worker) and who let everyone see them (`accepted_by`: the maker himself when he held `update`); pending
-- ones live apart, so every read that does not ask for them (grid, /sl, WOPI, search) never sees them.
ALTER TABLE `previews` ADD `made_by` text;
--> statement-breakpoint
ALTER TABLE `previews` ADD `accepted_by` text;
--> statement-breakpoint
ALTER TABLE `variants` ADD `made_by` text;
--> statement-breakpoint
ALTER TABLE `variants` ADD `accepted_by` text;
--> statement-breakpoint
CREATE TABLE `heal_candidates` (
	`id` text PRIMARY KEY NOT NULL,
	`asset_id` text NOT NULL,
	`version_id` text NOT NULL,
	`kind` text NOT NULL,
	`made_by` text NOT NULL,
	`storage_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`mime_type` text NOT NULL,
	`width` integer,
	`height` integer,
	`content_size` integer NOT NULL,
	`sha256` text,
	`maker` text,
	`ctime` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `heal_candidates_slot_idx` ON `heal_candidates` (`version_id`,`kind`,`made_by`);
--> statement-breakpoint
CREATE INDEX `heal_candidates_asset_idx` ON `heal_candidates` (`asset_id`);
--> statement-breakpoint
CREATE INDEX `heal_candidates_storage_key_idx` ON `heal_candidates` (`storage_key`);
