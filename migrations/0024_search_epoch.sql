-- The search epoch (decision 031): one counter that every write able to change a search answer moves, in the
-- writing statement itself (a trigger), so a cached answer keyed by the epoch it was computed at can never be served
-- after such a write. It covers what the FTS documents are built from (the tables the triggers of 0011 watch), and
-- what the query joins live: trash, folder membership and the folder tree, rules, inheritance switches, groups of
-- users, a user's chroot and name, previews. Columns no answer shows are left out, so reads that touch them (an
-- asset's atime) do not empty the cache.
CREATE TABLE `search_epoch` (
	`id` integer PRIMARY KEY NOT NULL,
	`n` integer NOT NULL,
	CONSTRAINT "search_epoch_single_row" CHECK("search_epoch"."id" = 1)
);
--> statement-breakpoint
INSERT INTO `search_epoch` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER search_epoch_assets_ai AFTER INSERT ON assets BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_assets_au AFTER UPDATE OF name, mime, owner_id, class_id, latest_version, ctime, mtime, deleted_at ON assets BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_assets_ad AFTER DELETE ON assets BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_users_ai AFTER INSERT ON users BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_users_au AFTER UPDATE OF name, is_admin, enabled, chroot_groups ON users BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_users_ad AFTER DELETE ON users BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_groups_ai AFTER INSERT ON groups BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_groups_au AFTER UPDATE ON groups BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_groups_ad AFTER DELETE ON groups BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_members_ai AFTER INSERT ON group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_members_au AFTER UPDATE ON group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_members_ad AFTER DELETE ON group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_closure_ai AFTER INSERT ON group_closure BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_closure_au AFTER UPDATE ON group_closure BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_group_closure_ad AFTER DELETE ON group_closure BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_rules_ai AFTER INSERT ON access_rules BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_rules_au AFTER UPDATE ON access_rules BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_rules_ad AFTER DELETE ON access_rules BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_inheritance_ai AFTER INSERT ON access_inheritance BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_inheritance_au AFTER UPDATE ON access_inheritance BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_access_inheritance_ad AFTER DELETE ON access_inheritance BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_user_group_members_ai AFTER INSERT ON user_group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_user_group_members_au AFTER UPDATE ON user_group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_user_group_members_ad AFTER DELETE ON user_group_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_previews_ai AFTER INSERT ON previews BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_previews_au AFTER UPDATE ON previews BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_previews_ad AFTER DELETE ON previews BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_entity_tags_ai AFTER INSERT ON entity_tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_entity_tags_au AFTER UPDATE ON entity_tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_entity_tags_ad AFTER DELETE ON entity_tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_tags_ai AFTER INSERT ON tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_tags_au AFTER UPDATE ON tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_tags_ad AFTER DELETE ON tags BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_asset_classes_ai AFTER INSERT ON asset_classes BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_asset_classes_au AFTER UPDATE ON asset_classes BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_asset_classes_ad AFTER DELETE ON asset_classes BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_field_values_ai AFTER INSERT ON field_values BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_field_values_au AFTER UPDATE ON field_values BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_field_values_ad AFTER DELETE ON field_values BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxon_members_ai AFTER INSERT ON taxon_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxon_members_au AFTER UPDATE ON taxon_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxon_members_ad AFTER DELETE ON taxon_members BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxa_ai AFTER INSERT ON taxa BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxa_au AFTER UPDATE ON taxa BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_taxa_ad AFTER DELETE ON taxa BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_variants_ai AFTER INSERT ON variants BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_variants_au AFTER UPDATE ON variants BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_variants_ad AFTER DELETE ON variants BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_search_content_ai AFTER INSERT ON search_content BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_search_content_au AFTER UPDATE ON search_content BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
--> statement-breakpoint
CREATE TRIGGER search_epoch_search_content_ad AFTER DELETE ON search_content BEGIN
	UPDATE search_epoch SET n = n + 1 WHERE id = 1;
END;
