-- The subtree cache holds files too, and an upload stops paying twice for the seek checkpoints (decision record 032).
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
--> statement-breakpoint

-- A membership update (every upload commit sets el_size and el_mtime) moved each seek checkpoint down for the old
-- position and up again for the new one: two writes of every checkpoint after the member, even when its position did
-- not change. Now one statement moves only the checkpoints between the old and the new position, by the difference,
-- and the trigger does not fire when none of its columns changed.
DROP TRIGGER IF EXISTS `group_members_seek_au`;
--> statement-breakpoint
CREATE TRIGGER `group_members_seek_au` AFTER UPDATE OF group_id, trashed_at, sort_name, el_mtime, el_size ON `group_members`
WHEN OLD.group_id IS NOT NEW.group_id OR (OLD.trashed_at IS NULL) <> (NEW.trashed_at IS NULL) OR OLD.sort_name IS NOT NEW.sort_name
	OR OLD.el_mtime IS NOT NEW.el_mtime OR OLD.el_size IS NOT NEW.el_size BEGIN
	UPDATE member_seek SET n = n
		+ (CASE WHEN group_id = NEW.group_id AND NEW.trashed_at IS NULL AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) <= (sort_key, el_id) END THEN 1 ELSE 0 END)
		- (CASE WHEN group_id = OLD.group_id AND OLD.trashed_at IS NULL AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) <= (sort_key, el_id) END THEN 1 ELSE 0 END)
	WHERE group_id IN (OLD.group_id, NEW.group_id) AND el_type = NEW.el_type
		AND CASE NEW.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL)
			WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL) ELSE 0 END
		AND (mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(mime))) = mime)
		AND (CASE WHEN group_id = NEW.group_id AND NEW.trashed_at IS NULL AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) <= (sort_key, el_id) END THEN 1 ELSE 0 END)
		<> (CASE WHEN group_id = OLD.group_id AND OLD.trashed_at IS NULL AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) <= (sort_key, el_id) END THEN 1 ELSE 0 END);
END;
