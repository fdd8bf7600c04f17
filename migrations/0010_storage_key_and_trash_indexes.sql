CREATE INDEX `variants_storage_key_idx` ON `variants` (`storage_key`);--> statement-breakpoint
CREATE INDEX `previews_storage_key_idx` ON `previews` (`storage_key`);--> statement-breakpoint
CREATE INDEX `groups_deleted_idx` ON `groups` (`deleted_at`) WHERE deleted_at is not null;
