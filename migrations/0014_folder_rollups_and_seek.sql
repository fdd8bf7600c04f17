-- Folder rollups (bytes and counts per group, direct and whole subtree), per-asset byte totals, and the sparse seek
-- checkpoints that let `skip` start near its row instead of scanning (decision record 017). Everything derived here
-- is maintained by triggers, so it changes in the same statement — hence the same D1 batch — as the rows it is
-- derived from, whatever write path made the change.

CREATE TABLE `asset_totals` (
	`asset_id` text PRIMARY KEY NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`listings` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `asset_totals_listed_many` ON `asset_totals` (`asset_id`) WHERE listings > 1;
--> statement-breakpoint
CREATE TABLE `folder_rollups` (
	`group_id` text PRIMARY KEY NOT NULL,
	`assets` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`groups` integer DEFAULT 0 NOT NULL,
	`sub_assets` integer DEFAULT 0 NOT NULL,
	`sub_bytes` integer DEFAULT 0 NOT NULL,
	`sub_groups` integer DEFAULT 0 NOT NULL,
	`tree_version` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `member_seek_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`group_id` text NOT NULL,
	`el_type` text NOT NULL,
	`col` text NOT NULL,
	`descending` integer NOT NULL,
	`mime` text DEFAULT '' NOT NULL,
	`built_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `member_seek_lists_key` ON `member_seek_lists` (`group_id`,`el_type`,`col`,`descending`,`mime`);
--> statement-breakpoint
CREATE TABLE `member_seek` (
	`list_id` text NOT NULL,
	`pos` integer NOT NULL,
	`n` integer NOT NULL,
	`sort_key` BLOB,
	`el_id` text NOT NULL,
	`group_id` text NOT NULL,
	`el_type` text NOT NULL,
	`col` text NOT NULL,
	`descending` integer NOT NULL,
	`mime` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`list_id`, `pos`)
);
--> statement-breakpoint
CREATE INDEX `member_seek_by_n` ON `member_seek` (`list_id`,`n`,`pos`);
--> statement-breakpoint
CREATE INDEX `member_seek_group_idx` ON `member_seek` (`group_id`,`el_type`);
--> statement-breakpoint

-- Backfill from the rows as they are (the same definitions the repair task checks).
INSERT INTO `asset_totals` (`asset_id`, `bytes`, `listings`)
SELECT a.id,
	coalesce((SELECT sum(v.content_size) FROM variants v WHERE v.asset_id = a.id AND v.status = 'ready'), 0),
	(SELECT count(*) FROM group_members m WHERE m.el_id = a.id AND m.el_type = 'asset')
FROM assets a;
--> statement-breakpoint
INSERT INTO `folder_rollups` (`group_id`, `assets`, `bytes`, `groups`)
SELECT g.id,
	(SELECT count(*) FROM group_members m JOIN assets a ON a.id = m.el_id
		WHERE m.group_id = g.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND a.deleted_at IS NULL),
	(SELECT coalesce(sum(t.bytes), 0) FROM group_members m JOIN assets a ON a.id = m.el_id JOIN asset_totals t ON t.asset_id = a.id
		WHERE m.group_id = g.id AND m.el_type = 'asset' AND m.trashed_at IS NULL AND a.deleted_at IS NULL),
	(SELECT count(*) FROM group_members m JOIN groups c ON c.id = m.el_id
		WHERE m.group_id = g.id AND m.el_type = 'group' AND m.trashed_at IS NULL AND c.deleted_at IS NULL)
FROM groups g;
--> statement-breakpoint
UPDATE `folder_rollups` SET
	sub_assets = (SELECT coalesce(sum(r.assets), 0) FROM group_closure c JOIN groups d ON d.id = c.descendant AND d.deleted_at IS NULL
		JOIN folder_rollups r ON r.group_id = c.descendant WHERE c.ancestor = folder_rollups.group_id),
	sub_bytes = (SELECT coalesce(sum(r.bytes), 0) FROM group_closure c JOIN groups d ON d.id = c.descendant AND d.deleted_at IS NULL
		JOIN folder_rollups r ON r.group_id = c.descendant WHERE c.ancestor = folder_rollups.group_id),
	sub_groups = (SELECT count(*) FROM group_closure c JOIN groups d ON d.id = c.descendant AND d.deleted_at IS NULL
		WHERE c.ancestor = folder_rollups.group_id);
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------------------
-- Bytes of an asset: every ready variant of every version (what group-size has always counted).

CREATE TRIGGER `variants_totals_ai` AFTER INSERT ON `variants` WHEN NEW.status = 'ready' BEGIN
	UPDATE asset_totals SET bytes = bytes + NEW.content_size WHERE asset_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_totals_ad` AFTER DELETE ON `variants` WHEN OLD.status = 'ready' BEGIN
	UPDATE asset_totals SET bytes = bytes - OLD.content_size WHERE asset_id = OLD.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER `variants_totals_au` AFTER UPDATE OF status, content_size, asset_id ON `variants` BEGIN
	UPDATE asset_totals SET bytes = bytes - (CASE WHEN OLD.status = 'ready' THEN OLD.content_size ELSE 0 END) WHERE asset_id = OLD.asset_id;
	UPDATE asset_totals SET bytes = bytes + (CASE WHEN NEW.status = 'ready' THEN NEW.content_size ELSE 0 END) WHERE asset_id = NEW.asset_id;
END;
--> statement-breakpoint

-- A live asset's bytes changed: every group listing it (live membership) follows.
CREATE TRIGGER `asset_totals_au` AFTER UPDATE OF bytes ON `asset_totals`
WHEN NEW.bytes <> OLD.bytes AND EXISTS (SELECT 1 FROM assets WHERE id = NEW.asset_id AND deleted_at IS NULL) BEGIN
	UPDATE folder_rollups SET bytes = bytes + (NEW.bytes - OLD.bytes)
	WHERE group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.asset_id AND el_type = 'asset' AND trashed_at IS NULL);
END;
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------------------
-- Assets appearing, disappearing, going to the trash and back, changing MIME type.

CREATE TRIGGER `assets_rollup_ai` AFTER INSERT ON `assets` BEGIN
	INSERT INTO asset_totals (asset_id, bytes, listings) VALUES (NEW.id,
		coalesce((SELECT sum(content_size) FROM variants WHERE asset_id = NEW.id AND status = 'ready'), 0),
		(SELECT count(*) FROM group_members WHERE el_id = NEW.id AND el_type = 'asset'))
	ON CONFLICT (asset_id) DO NOTHING;
	UPDATE folder_rollups SET assets = assets + 1, bytes = bytes + (SELECT bytes FROM asset_totals WHERE asset_id = NEW.id)
	WHERE NEW.deleted_at IS NULL
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL);
	UPDATE member_seek SET n = n + (SELECT count(*) FROM group_members m WHERE m.group_id = member_seek.group_id AND m.el_id = NEW.id
			AND m.el_type = 'asset' AND m.trashed_at IS NULL
			AND CASE WHEN member_seek.descending
				THEN (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) >= (member_seek.sort_key, member_seek.el_id)
				ELSE (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) <= (member_seek.sort_key, member_seek.el_id) END)
	WHERE NEW.deleted_at IS NULL AND el_type = 'asset'
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL)
		AND (mime = '' OR lower(substr(NEW.mime, 1, length(mime))) = mime);
END;
--> statement-breakpoint
CREATE TRIGGER `assets_rollup_ad` AFTER DELETE ON `assets` BEGIN
	UPDATE folder_rollups SET assets = assets - 1, bytes = bytes - coalesce((SELECT bytes FROM asset_totals WHERE asset_id = OLD.id), 0)
	WHERE OLD.deleted_at IS NULL
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = OLD.id AND el_type = 'asset' AND trashed_at IS NULL);
	UPDATE member_seek SET n = n - (SELECT count(*) FROM group_members m WHERE m.group_id = member_seek.group_id AND m.el_id = OLD.id
			AND m.el_type = 'asset' AND m.trashed_at IS NULL
			AND CASE WHEN member_seek.descending
				THEN (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) >= (member_seek.sort_key, member_seek.el_id)
				ELSE (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) <= (member_seek.sort_key, member_seek.el_id) END)
	WHERE OLD.deleted_at IS NULL AND el_type = 'asset'
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = OLD.id AND el_type = 'asset' AND trashed_at IS NULL)
		AND (mime = '' OR lower(substr(OLD.mime, 1, length(mime))) = mime);
	DELETE FROM asset_totals WHERE asset_id = OLD.id;
END;
--> statement-breakpoint
CREATE TRIGGER `assets_rollup_au` AFTER UPDATE OF deleted_at, mime ON `assets`
WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) OR OLD.mime IS NOT NEW.mime BEGIN
	UPDATE folder_rollups SET
		assets = assets + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END),
		bytes = bytes + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) * coalesce((SELECT bytes FROM asset_totals WHERE asset_id = NEW.id), 0)
	WHERE (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL);
	UPDATE member_seek SET n = n - (SELECT count(*) FROM group_members m WHERE m.group_id = member_seek.group_id AND m.el_id = OLD.id
			AND m.el_type = 'asset' AND m.trashed_at IS NULL
			AND CASE WHEN member_seek.descending
				THEN (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) >= (member_seek.sort_key, member_seek.el_id)
				ELSE (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) <= (member_seek.sort_key, member_seek.el_id) END)
	WHERE OLD.deleted_at IS NULL AND el_type = 'asset'
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = OLD.id AND el_type = 'asset' AND trashed_at IS NULL)
		AND (mime = '' OR lower(substr(OLD.mime, 1, length(mime))) = mime);
	UPDATE member_seek SET n = n + (SELECT count(*) FROM group_members m WHERE m.group_id = member_seek.group_id AND m.el_id = NEW.id
			AND m.el_type = 'asset' AND m.trashed_at IS NULL
			AND CASE WHEN member_seek.descending
				THEN (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) >= (member_seek.sort_key, member_seek.el_id)
				ELSE (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) <= (member_seek.sort_key, member_seek.el_id) END)
	WHERE NEW.deleted_at IS NULL AND el_type = 'asset'
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'asset' AND trashed_at IS NULL)
		AND (mime = '' OR lower(substr(NEW.mime, 1, length(mime))) = mime);
END;
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------------------
-- Memberships: the direct counts of the listing group, the asset's listing count, the seek checkpoints.

CREATE TRIGGER `group_members_rollup_ai` AFTER INSERT ON `group_members` BEGIN
	UPDATE asset_totals SET listings = listings + 1 WHERE NEW.el_type = 'asset' AND asset_id = NEW.el_id;
	UPDATE folder_rollups SET assets = assets + 1, bytes = bytes + (SELECT bytes FROM asset_totals WHERE asset_id = NEW.el_id)
	WHERE group_id = NEW.group_id AND NEW.el_type = 'asset' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET groups = groups + 1
	WHERE group_id = NEW.group_id AND NEW.el_type = 'group' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL);
	UPDATE member_seek SET n = n + 1
	WHERE group_id = NEW.group_id AND el_type = NEW.el_type AND NEW.trashed_at IS NULL
		AND CASE NEW.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL)
			WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL) ELSE 0 END
		AND (mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(mime))) = mime)
		AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) <= (sort_key, el_id) END;
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
	UPDATE member_seek SET n = n - 1
	WHERE group_id = OLD.group_id AND el_type = OLD.el_type AND OLD.trashed_at IS NULL
		AND CASE OLD.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL)
			WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL) ELSE 0 END
		AND (mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = OLD.el_id), 1, length(mime))) = mime)
		AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) <= (sort_key, el_id) END;
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_rollup_au` AFTER UPDATE OF group_id, trashed_at ON `group_members`
WHEN OLD.group_id IS NOT NEW.group_id OR (OLD.trashed_at IS NULL) <> (NEW.trashed_at IS NULL) BEGIN
	UPDATE folder_rollups SET assets = assets - 1, bytes = bytes - (SELECT bytes FROM asset_totals WHERE asset_id = OLD.el_id)
	WHERE group_id = OLD.group_id AND OLD.el_type = 'asset' AND OLD.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET groups = groups - 1
	WHERE group_id = OLD.group_id AND OLD.el_type = 'group' AND OLD.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET assets = assets + 1, bytes = bytes + (SELECT bytes FROM asset_totals WHERE asset_id = NEW.el_id)
	WHERE group_id = NEW.group_id AND NEW.el_type = 'asset' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL);
	UPDATE folder_rollups SET groups = groups + 1
	WHERE group_id = NEW.group_id AND NEW.el_type = 'group' AND NEW.trashed_at IS NULL
		AND EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL);
END;
--> statement-breakpoint
CREATE TRIGGER `group_members_seek_au` AFTER UPDATE OF group_id, trashed_at, sort_name, el_mtime, el_size ON `group_members` BEGIN
	UPDATE member_seek SET n = n - 1
	WHERE group_id = OLD.group_id AND el_type = OLD.el_type AND OLD.trashed_at IS NULL
		AND CASE OLD.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = OLD.el_id AND deleted_at IS NULL)
			WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = OLD.el_id AND deleted_at IS NULL) ELSE 0 END
		AND (mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = OLD.el_id), 1, length(mime))) = mime)
		AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN OLD.sort_name WHEN 'el_mtime' THEN OLD.el_mtime ELSE OLD.el_size END, OLD.el_id) <= (sort_key, el_id) END;
	UPDATE member_seek SET n = n + 1
	WHERE group_id = NEW.group_id AND el_type = NEW.el_type AND NEW.trashed_at IS NULL
		AND CASE NEW.el_type WHEN 'asset' THEN EXISTS (SELECT 1 FROM assets WHERE id = NEW.el_id AND deleted_at IS NULL)
			WHEN 'group' THEN EXISTS (SELECT 1 FROM groups WHERE id = NEW.el_id AND deleted_at IS NULL) ELSE 0 END
		AND (mime = '' OR lower(substr((SELECT a.mime FROM assets a WHERE a.id = NEW.el_id), 1, length(mime))) = mime)
		AND CASE WHEN descending
			THEN (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) >= (sort_key, el_id)
			ELSE (CASE col WHEN 'sort_name' THEN NEW.sort_name WHEN 'el_mtime' THEN NEW.el_mtime ELSE NEW.el_size END, NEW.el_id) <= (sort_key, el_id) END;
END;
--> statement-breakpoint

-- ---------------------------------------------------------------------------------------------------------------
-- Groups: their rollup row, their own trash state (which decides whether they count in every ancestor's subtree),
-- and the tree version the subtree cache keys on.

CREATE TRIGGER `groups_rollup_ai` AFTER INSERT ON `groups` BEGIN
	INSERT INTO folder_rollups (group_id) VALUES (NEW.id) ON CONFLICT (group_id) DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `groups_rollup_ad` AFTER DELETE ON `groups` BEGIN
	DELETE FROM folder_rollups WHERE group_id = OLD.id;
	DELETE FROM member_seek WHERE list_id IN (SELECT id FROM member_seek_lists WHERE group_id = OLD.id);
	DELETE FROM member_seek_lists WHERE group_id = OLD.id;
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
	UPDATE member_seek SET n = n + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END) * (SELECT count(*) FROM group_members m
			WHERE m.group_id = member_seek.group_id AND m.el_id = NEW.id AND m.el_type = 'group' AND m.trashed_at IS NULL
			AND CASE WHEN member_seek.descending
				THEN (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) >= (member_seek.sort_key, member_seek.el_id)
				ELSE (CASE member_seek.col WHEN 'sort_name' THEN m.sort_name WHEN 'el_mtime' THEN m.el_mtime ELSE m.el_size END, m.el_id) <= (member_seek.sort_key, member_seek.el_id) END)
	WHERE el_type = 'group'
		AND group_id IN (SELECT group_id FROM group_members WHERE el_id = NEW.id AND el_type = 'group' AND trashed_at IS NULL);
END;
--> statement-breakpoint
CREATE TRIGGER `groups_tree_version_au` AFTER UPDATE OF name, parent_id, deleted_at ON `groups` BEGIN
	UPDATE folder_rollups SET tree_version = tree_version + 1 WHERE group_id IN (SELECT ancestor FROM group_closure WHERE descendant = NEW.id);
END;
--> statement-breakpoint

-- A group's direct totals changed while it is live: every ancestor's subtree totals (its own included) follow.
CREATE TRIGGER `folder_rollups_direct_au` AFTER UPDATE OF assets, bytes ON `folder_rollups`
WHEN (NEW.assets <> OLD.assets OR NEW.bytes <> OLD.bytes) AND EXISTS (SELECT 1 FROM groups WHERE id = NEW.group_id AND deleted_at IS NULL) BEGIN
	UPDATE folder_rollups SET sub_assets = sub_assets + (NEW.assets - OLD.assets), sub_bytes = sub_bytes + (NEW.bytes - OLD.bytes)
	WHERE group_id IN (SELECT ancestor FROM group_closure WHERE descendant = NEW.group_id);
END;
--> statement-breakpoint

-- Closure links appear and disappear (create, move, purge): the ancestor gains or loses the descendant's direct totals.
CREATE TRIGGER `group_closure_rollup_ai` AFTER INSERT ON `group_closure` BEGIN
	UPDATE folder_rollups SET tree_version = tree_version + 1,
		sub_groups = sub_groups + (SELECT count(*) FROM groups WHERE id = NEW.descendant AND deleted_at IS NULL),
		sub_assets = sub_assets + coalesce((SELECT r.assets FROM folder_rollups r JOIN groups d ON d.id = r.group_id AND d.deleted_at IS NULL WHERE r.group_id = NEW.descendant), 0),
		sub_bytes = sub_bytes + coalesce((SELECT r.bytes FROM folder_rollups r JOIN groups d ON d.id = r.group_id AND d.deleted_at IS NULL WHERE r.group_id = NEW.descendant), 0)
	WHERE group_id = NEW.ancestor;
END;
--> statement-breakpoint
CREATE TRIGGER `group_closure_rollup_ad` AFTER DELETE ON `group_closure` BEGIN
	UPDATE folder_rollups SET tree_version = tree_version + 1,
		sub_groups = sub_groups - (SELECT count(*) FROM groups WHERE id = OLD.descendant AND deleted_at IS NULL),
		sub_assets = sub_assets - coalesce((SELECT r.assets FROM folder_rollups r JOIN groups d ON d.id = r.group_id AND d.deleted_at IS NULL WHERE r.group_id = OLD.descendant), 0),
		sub_bytes = sub_bytes - coalesce((SELECT r.bytes FROM folder_rollups r JOIN groups d ON d.id = r.group_id AND d.deleted_at IS NULL WHERE r.group_id = OLD.descendant), 0)
	WHERE group_id = OLD.ancestor;
END;
