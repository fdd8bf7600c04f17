-- A reader's deep page of a collection starts from a checkpoint (decision record 034, «Readable-item checkpoints»).
-- What a reader may read is his own, so a collection's checkpoints are kept per reader (his user id with his
-- confinements and rule flags, or '*' for administrators) and are derived data valid only under the revisions they
-- were built at, the same mechanism as the cached /sl answers (0023) and comment lists (0052): triggers bump a
-- revision in the same statement as every change that could move them, and a list read under other revisions is
-- ignored and rebuilt by the next deep page.
--
-- `collection_revisions`: grows with every item added, removed or reordered in the collection. Rows are never
-- deleted, so a revision never repeats for a collection.
CREATE TABLE `collection_revisions` (
	`collection_id` text PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `collection_revisions` (`collection_id`, `revision`) SELECT `id`, 1 FROM `collections`;
--> statement-breakpoint
CREATE TRIGGER `collection_revisions_ai` AFTER INSERT ON `collection_items` BEGIN
	INSERT INTO collection_revisions (collection_id, revision) VALUES (new.collection_id, 1)
		ON CONFLICT (collection_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `collection_revisions_ad` AFTER DELETE ON `collection_items` BEGIN
	INSERT INTO collection_revisions (collection_id, revision) VALUES (old.collection_id, 1)
		ON CONFLICT (collection_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `collection_revisions_au` AFTER UPDATE OF collection_id, asset_id, pos ON `collection_items` BEGIN
	INSERT INTO collection_revisions (collection_id, revision) VALUES (new.collection_id, 1)
		ON CONFLICT (collection_id) DO UPDATE SET revision = revision + 1;
	INSERT INTO collection_revisions (collection_id, revision) SELECT old.collection_id, 1 WHERE old.collection_id <> new.collection_id
		ON CONFLICT (collection_id) DO UPDATE SET revision = revision + 1;
END;
--> statement-breakpoint
-- The `readable` scope: grows with every change to a row the read filter (`visibleSql`) looks at for an item: rules,
-- inheritance switches, the folder tree, users' groups and confinement, and the files in collections (their owner,
-- their deletion, their listings in folders, moves and trash included). Files in no collection are left out: their
-- changes cannot move any collection's checkpoint, and uploads elsewhere would otherwise void every list.
INSERT INTO `cache_revisions` (`scope`, `revision`) VALUES ('readable', 1);
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_rules_ai` AFTER INSERT ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_rules_ad` AFTER DELETE ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_rules_au` AFTER UPDATE ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_inheritance_ai` AFTER INSERT ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_inheritance_ad` AFTER DELETE ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_inheritance_au` AFTER UPDATE ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_closure_ai` AFTER INSERT ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_closure_ad` AFTER DELETE ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_closure_au` AFTER UPDATE ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_user_groups_ai` AFTER INSERT ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_user_groups_ad` AFTER DELETE ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_user_groups_au` AFTER UPDATE ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_users_au` AFTER UPDATE OF is_admin, chroot_groups ON `users` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_users_ad` AFTER DELETE ON `users` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_assets_ai` AFTER INSERT ON `assets`
	WHEN EXISTS (SELECT 1 FROM collection_items WHERE asset_id = new.id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_assets_ad` AFTER DELETE ON `assets`
	WHEN EXISTS (SELECT 1 FROM collection_items WHERE asset_id = old.id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_assets_au` AFTER UPDATE OF id, owner_id, deleted_at ON `assets`
	WHEN EXISTS (SELECT 1 FROM collection_items WHERE asset_id = old.id OR asset_id = new.id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_members_ai` AFTER INSERT ON `group_members`
	WHEN new.el_type <> 'asset' OR EXISTS (SELECT 1 FROM collection_items WHERE asset_id = new.el_id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_members_ad` AFTER DELETE ON `group_members`
	WHEN old.el_type <> 'asset' OR EXISTS (SELECT 1 FROM collection_items WHERE asset_id = old.el_id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_readable_members_au` AFTER UPDATE OF group_id, el_id, el_type, trashed_at ON `group_members`
	WHEN old.el_type <> 'asset' OR new.el_type <> 'asset'
		OR EXISTS (SELECT 1 FROM collection_items WHERE asset_id = old.el_id OR asset_id = new.el_id) BEGIN
	UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'readable';
END;
--> statement-breakpoint
-- The checkpoints of one reader's list: every COLLECTION_SEEK_SPACING-th item he may read, `n` being how many readable
-- items lie up to and including it, in collection order (pos, asset_id). The head row (`n` 0, before every item)
-- carries the list's counts (`total` readable, `live` items) and the two revisions it was built under.
CREATE TABLE `collection_seek` (
	`collection_id` text NOT NULL,
	`reader` text NOT NULL,
	`n` integer NOT NULL,
	`pos` integer NOT NULL,
	`asset_id` text NOT NULL,
	`total` integer,
	`live` integer,
	`items_revision` integer,
	`readable_revision` integer,
	`built_at` integer,
	PRIMARY KEY(`collection_id`, `reader`, `n`)
);
--> statement-breakpoint
CREATE INDEX `collection_seek_heads` ON `collection_seek` (`collection_id`,`built_at`) WHERE `n` = 0;
