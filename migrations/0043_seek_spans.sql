-- Seek checkpoints hold spans instead of running counts (decision record 032). A checkpoint's `n` was the number of
-- listed members at or before it, so one member listed near the top of a 100,000-file folder rewrote every later
-- checkpoint of every seek list of the folder (about 1,400 rows with seven lists, twice per upload: once for the new
-- listing, and down and up again for the commit's new size and mtime). Now each checkpoint holds `span`, the members
-- after the previous checkpoint up to and including it: a change of one member moves one checkpoint per list, the
-- first at or after the member (found through `member_seek_at`), and a skip adds the spans up (a few hundred rows,
-- in the page's own read). The rollup statements of the triggers are those of migration 0014, unchanged.
--
-- The lists are derived data, rebuilt by the next skip that needs them; the old ones are dropped here.
DROP TRIGGER IF EXISTS `assets_rollup_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `assets_rollup_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `assets_rollup_au`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `group_members_rollup_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `group_members_rollup_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `group_members_seek_au`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `groups_rollup_au`;
--> statement-breakpoint
DELETE FROM `member_seek`;
--> statement-breakpoint
DELETE FROM `member_seek_lists`;
--> statement-breakpoint
DROP INDEX IF EXISTS `member_seek_by_n`;
--> statement-breakpoint
ALTER TABLE `member_seek` DROP COLUMN `n`;
--> statement-breakpoint
ALTER TABLE `member_seek` ADD `span` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE INDEX `member_seek_at` ON `member_seek` (`list_id`,`sort_key`,`el_id`);
--> statement-breakpoint
CREATE TRIGGER `assets_rollup_ai` AFTER INSERT ON `assets` BEGIN
	INSERT INTO asset_totals (asset_id, bytes, listings) VALUES (NEW.id,
		coalesce((SELECT sum(content_size) FROM variants WHERE asset_id = NEW.id AND status = 'ready'), 0),
		(SELECT count(*) FROM group_members WHERE el_id = NEW.id AND el_type = 'asset'))
	ON CONFLICT (asset_id) DO NOTHING;
	UPDATE folder_rollups SET assets = assets + 1, bytes = bytes + (SELECT bytes FROM asset_totals WHERE asset_id = NEW.id)
	WHERE NEW.deleted_at IS NULL
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL);
	UPDATE member_seek SET span = span + 1 WHERE NEW.deleted_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM group_members m CROSS JOIN member_seek_lists l ON l.group_id = m.group_id AND l.el_type = 'asset'
		WHERE m.el_id = NEW.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND (l.mime = '' OR lower(substr(NEW.mime, 1, length(l.mime))) = l.mime));
END;
--> statement-breakpoint
CREATE TRIGGER `assets_rollup_ad` AFTER DELETE ON `assets` BEGIN
	UPDATE folder_rollups SET assets = assets - 1, bytes = bytes - coalesce((SELECT bytes FROM asset_totals WHERE asset_id = OLD.id), 0)
	WHERE OLD.deleted_at IS NULL
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = OLD.id AND el_type = 'asset' AND trashed_at IS NULL);
	DELETE FROM asset_totals WHERE asset_id = OLD.id;
	UPDATE member_seek SET span = span - 1 WHERE OLD.deleted_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM group_members m CROSS JOIN member_seek_lists l ON l.group_id = m.group_id AND l.el_type = 'asset'
		WHERE m.el_id = OLD.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND (l.mime = '' OR lower(substr(OLD.mime, 1, length(l.mime))) = l.mime));
END;
--> statement-breakpoint
CREATE TRIGGER `assets_rollup_au` AFTER UPDATE OF deleted_at, mime ON `assets`
WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.mime IS NOT NEW.mime BEGIN
	UPDATE folder_rollups SET
		assets = assets + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END),
		bytes = bytes + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) * coalesce((SELECT bytes FROM asset_totals WHERE asset_id = NEW.id), 0)
	WHERE (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL);
	UPDATE member_seek SET span = span - 1 WHERE OLD.deleted_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM group_members m CROSS JOIN member_seek_lists l ON l.group_id = m.group_id AND l.el_type = 'asset'
		WHERE m.el_id = OLD.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND (l.mime = '' OR lower(substr(OLD.mime, 1, length(l.mime))) = l.mime));
	UPDATE member_seek SET span = span + 1 WHERE NEW.deleted_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM group_members m CROSS JOIN member_seek_lists l ON l.group_id = m.group_id AND l.el_type = 'asset'
		WHERE m.el_id = NEW.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND (l.mime = '' OR lower(substr(NEW.mime, 1, length(l.mime))) = l.mime));
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_rollup_ai` AFTER INSERT ON `group_members` BEGIN
	UPDATE asset_totals SET listings = listings + 1 WHERE NEW.el_type = 'asset' AND asset_id = NEW.el_id;
	UPDATE folder_rollups SET assets = assets + 1, bytes = bytes + (SELECT bytes FROM asset_totals WHERE asset_id = NEW.el_id)
	WHERE group_id = NEW.group_id AND NEW.el_type = 'asset' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET groups = groups + 1
	WHERE group_id = NEW.group_id AND NEW.el_type = 'group' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL);
	UPDATE member_seek SET span = span + 1 WHERE NEW.trashed_at IS NULL AND CASE NEW.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL)
		WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL) ELSE 0 END AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = NEW.group_id AND l.el_type = NEW.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(l.mime))) = l.mime));
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_rollup_ad` AFTER DELETE ON `group_members` BEGIN
	UPDATE asset_totals SET listings = listings - 1 WHERE OLD.el_type = 'asset' AND asset_id = OLD.el_id;
	UPDATE folder_rollups SET assets = assets - 1, bytes = bytes - (SELECT bytes FROM asset_totals WHERE asset_id = OLD.el_id)
	WHERE group_id = OLD.group_id AND OLD.el_type = 'asset' AND OLD.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET groups = groups - 1
	WHERE group_id = OLD.group_id AND OLD.el_type = 'group' AND OLD.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL);
	UPDATE member_seek SET span = span - 1 WHERE OLD.trashed_at IS NULL AND CASE OLD.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL)
		WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL) ELSE 0 END AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = OLD.group_id AND l.el_type = OLD.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = OLD.el_id), 1, length(l.mime))) = l.mime));
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_seek_au` AFTER UPDATE OF group_id, trashed_at, sort_name, el_mtime, el_size ON `group_members`
WHEN OLD.group_id IS NOT NEW.group_id OR (OLD.trashed_at IS NULL) <> (NEW.trashed_at IS NULL) OR OLD.sort_name IS NOT NEW.sort_name
	OR OLD.el_mtime IS NOT NEW.el_mtime OR OLD.el_size IS NOT NEW.el_size BEGIN
	-- Only when the member moved to another checkpoint: a commit's new size or mtime usually keeps it where it was.
	UPDATE member_seek SET span = span - 1 WHERE OLD.trashed_at IS NULL AND CASE OLD.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL)
		WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL) ELSE 0 END AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = OLD.group_id AND l.el_type = OLD.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = OLD.el_id), 1, length(l.mime))) = l.mime))
		AND NOT (NEW.trashed_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = NEW.group_id AND l.el_type = NEW.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(l.mime))) = l.mime)));
	UPDATE member_seek SET span = span + 1 WHERE NEW.trashed_at IS NULL AND CASE NEW.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL)
		WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL) ELSE 0 END AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = NEW.group_id AND l.el_type = NEW.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(l.mime))) = l.mime))
		AND NOT (OLD.trashed_at IS NULL AND rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM member_seek_lists l
		WHERE l.group_id = OLD.group_id AND l.el_type = OLD.el_type AND (l.mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = OLD.el_id), 1, length(l.mime))) = l.mime)));
END;
--> statement-breakpoint
CREATE TRIGGER `groups_rollup_au` AFTER UPDATE OF deleted_at ON `groups`
WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
	UPDATE folder_rollups SET
		sub_groups = sub_groups + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END),
		sub_assets = sub_assets + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) * coalesce((SELECT r.assets FROM folder_rollups r WHERE r.group_id = NEW.id), 0),
		sub_bytes = sub_bytes + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) * coalesce((SELECT r.bytes FROM folder_rollups r WHERE r.group_id = NEW.id), 0)
	WHERE group_id IN (SELECT ancestor FROM group_closure WHERE descendant = NEW.id);
	UPDATE folder_rollups SET groups = groups + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END)
	WHERE group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'group' AND trashed_at IS NULL);
	UPDATE member_seek SET span = span + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) WHERE rowid IN (
		SELECT CASE WHEN l.descending
			THEN (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) <= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key DESC, s.el_id DESC LIMIT 1)
			ELSE (SELECT s.rowid FROM member_seek s WHERE s.list_id = l.id AND (s.sort_key, s.el_id) >= (CASE l.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) ORDER BY s.sort_key, s.el_id LIMIT 1) END
		FROM group_members m CROSS JOIN member_seek_lists l ON l.group_id = m.group_id AND l.el_type = 'group'
		WHERE m.el_id = NEW.id AND m.el_type = 'group' AND m.trashed_at IS NULL AND (l.mime = '' OR lower(substr(NULL, 1, length(l.mime))) = l.mime));
END;
