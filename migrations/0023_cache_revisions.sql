-- Issue 27 item 4: the edge cache of anonymous /sl answers is keyed on a revision that every change to what a link
-- shows bumps in the same statement (triggers), so an entry written before a change is never read after it.
-- Counters (views, downloads, last_opened_at), access times and upload progress are left out: they change on reads
-- and during uploads and do not change what a visitor sees.
CREATE TABLE `cache_revisions` (
	`scope` text PRIMARY KEY NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `cache_revisions` (`scope`, `revision`) VALUES ('shared', 1);
--> statement-breakpoint
CREATE TRIGGER `cache_rev_shortlinks_insert` AFTER INSERT ON `shortlinks` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_shortlinks_delete` AFTER DELETE ON `shortlinks` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_shortlinks_update` AFTER UPDATE OF entity_id, entity_type, creator_id, not_before, not_after, password_hash, acl, revoked_at ON `shortlinks` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_users_insert` AFTER INSERT ON `users` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_users_delete` AFTER DELETE ON `users` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_users_update` AFTER UPDATE OF login, name, is_admin, is_robot, enabled, chroot_groups ON `users` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_groups_insert` AFTER INSERT ON `groups` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_groups_delete` AFTER DELETE ON `groups` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_groups_update` AFTER UPDATE OF name, parent_id, owner_id, deleted_at ON `groups` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_members_insert` AFTER INSERT ON `group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_members_delete` AFTER DELETE ON `group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_members_update` AFTER UPDATE ON `group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_closure_insert` AFTER INSERT ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_closure_delete` AFTER DELETE ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_group_closure_update` AFTER UPDATE ON `group_closure` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_assets_insert` AFTER INSERT ON `assets` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_assets_delete` AFTER DELETE ON `assets` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_assets_update` AFTER UPDATE OF name, mime, owner_id, creator_id, class_id, latest_version, deleted_at ON `assets` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_asset_versions_insert` AFTER INSERT ON `asset_versions` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_asset_versions_delete` AFTER DELETE ON `asset_versions` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_asset_versions_update` AFTER UPDATE ON `asset_versions` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_variants_insert` AFTER INSERT ON `variants` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_variants_delete` AFTER DELETE ON `variants` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_variants_update` AFTER UPDATE OF asset_id, version_id, variant_type, status, name, mime_type, file_name, content_size, storage_id, storage_key ON `variants` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_previews_insert` AFTER INSERT ON `previews` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_previews_delete` AFTER DELETE ON `previews` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_previews_update` AFTER UPDATE ON `previews` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_rules_insert` AFTER INSERT ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_rules_delete` AFTER DELETE ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_rules_update` AFTER UPDATE ON `access_rules` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_inheritance_insert` AFTER INSERT ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_inheritance_delete` AFTER DELETE ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_access_inheritance_update` AFTER UPDATE ON `access_inheritance` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_user_group_members_insert` AFTER INSERT ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_user_group_members_delete` AFTER DELETE ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
--> statement-breakpoint
CREATE TRIGGER `cache_rev_user_group_members_update` AFTER UPDATE ON `user_group_members` BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
