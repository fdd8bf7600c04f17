-- Decision 043: the copies of global rows a library shard keeps beside its own (people, groups of users, tags,
-- classifications, classes, field templates: names its answers show and its queries join) are kept current. While
-- any library lives in a shard, a change to such a row is journaled here; the minute cron sends the journaled rows
-- to every shard, which updates the copies it has (never inserts: a shard copies only the rows its own rows name).
CREATE TABLE `shard_copy_journal` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`table_name` text NOT NULL,
	`row_id` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `shard_copy_users_update` AFTER UPDATE ON `users`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('users', NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shard_copy_groups_update` AFTER UPDATE ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('groups', NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shard_copy_tags_update` AFTER UPDATE ON `tags`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('tags', NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shard_copy_taxa_update` AFTER UPDATE ON `taxa`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('taxa', NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shard_copy_asset_classes_update` AFTER UPDATE ON `asset_classes`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('asset_classes', NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER `shard_copy_field_templates_update` AFTER UPDATE ON `field_templates`
WHEN EXISTS (SELECT 1 FROM library_directory WHERE state = 'shard')
BEGIN
  INSERT INTO shard_copy_journal (table_name, row_id) VALUES ('field_templates', NEW.id);
END;
