-- File and folder events in the audit log (asset.upload, asset.download, group.move …). The history of one file or
-- folder is read by `object_id`, and a folder's history also lists the events of the files and sub-folders that were
-- in it at the time: `folder_id` is that folder, written with the entry (a file moved later keeps its old entries in
-- the old folder's history, as they happened). Families (`asset.*`) are read as an `action` range.
ALTER TABLE `audit_log` ADD `folder_id` text;
--> statement-breakpoint
CREATE INDEX `audit_log_object_idx` ON `audit_log` (`object_id`,`ctime`);
--> statement-breakpoint
CREATE INDEX `audit_log_folder_idx` ON `audit_log` (`folder_id`,`ctime`);
--> statement-breakpoint
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`,`ctime`);
