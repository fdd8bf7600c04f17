-- The subtree cache holds files too (decision record 032).
--
-- `files_version` grows, in the same statement, on the group and every ancestor whenever a file a tree form could list
-- changes below it: a live listing appears or goes (the direct counts move, and `folder_rollups_direct_au` already
-- walks the ancestors for the subtree totals, so the bump costs no extra statement), or a listed file is renamed,
-- changes MIME type or gets a new latest version. The cache of the tree form keys on tree_version and files_version.
ALTER TABLE `folder_rollups` ADD `files_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `folder_rollups_direct_au`;
--> statement-breakpoint
CREATE TRIGGER `folder_rollups_direct_au` AFTER UPDATE OF assets, bytes ON `folder_rollups`
WHEN (NEW.assets <> OLD.assets OR NEW.bytes <> OLD.bytes) AND EXISTS (SELECT 1 FROM groups WHERE id = NEW.group_id AND deleted_at IS NULL) BEGIN
	UPDATE folder_rollups SET sub_assets = sub_assets + (NEW.assets - OLD.assets), sub_bytes = sub_bytes + (NEW.bytes - OLD.bytes),
		files_version = files_version + 1
	WHERE group_id IN (SELECT ancestor FROM group_closure WHERE descendant = NEW.group_id);
END;
--> statement-breakpoint
CREATE TRIGGER `assets_files_version_au` AFTER UPDATE OF name, mime, latest_version ON `assets`
WHEN NEW.deleted_at IS NULL AND (OLD.name IS NOT NEW.name OR OLD.mime IS NOT NEW.mime OR OLD.latest_version IS NOT NEW.latest_version) BEGIN
	UPDATE folder_rollups SET files_version = files_version + 1
	WHERE group_id IN (SELECT c.ancestor FROM group_members m CROSS JOIN group_closure c ON c.descendant = m.group_id
		WHERE m.el_id = NEW.id AND m.el_type = 'asset' AND m.trashed_at IS NULL);
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_files_version_au` AFTER UPDATE OF sort_name ON `group_members`
WHEN NEW.el_type = 'asset' AND NEW.trashed_at IS NULL AND OLD.sort_name IS NOT NEW.sort_name BEGIN
	UPDATE folder_rollups SET files_version = files_version + 1
	WHERE group_id IN (SELECT ancestor FROM group_closure WHERE descendant = NEW.group_id);
END;
