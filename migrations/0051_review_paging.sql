-- Paging a collection for a reader (decision record 034): the rights filter runs once per item of the collection, and
-- its two probes into large tables become index-only. `group_members_asset_groups_idx` answers "which live folders
-- list this file" and "is this file live in that folder" from the index alone (the `el_id` index needs the table row
-- for `el_type`, `trashed_at` and `group_id`); `assets_live_owner_idx` answers "is this file live, and whose is it".
CREATE INDEX `group_members_asset_groups_idx` ON `group_members` (`el_id`,`el_type`,`trashed_at`,`group_id`);
--> statement-breakpoint
CREATE INDEX `assets_live_owner_idx` ON `assets` (`id`,`deleted_at`,`owner_id`);
