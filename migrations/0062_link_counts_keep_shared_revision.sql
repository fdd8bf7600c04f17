-- A link's counters (views, downloads, last opened) written back from a library's shard arrive as an upsert that names
-- every column in its SET list, and SQLite fires `AFTER UPDATE OF …` for a column named there even when its value is
-- the same: every writeback of an open moved the `shared` revision, so every shared page and preview kept at the
-- edge was computed again. The revision now moves only when what a link shows changes (decision 051).
DROP TRIGGER IF EXISTS `cache_rev_shortlinks_update`;--> statement-breakpoint
CREATE TRIGGER `cache_rev_shortlinks_update` AFTER UPDATE OF entity_id, entity_type, creator_id, not_before, not_after, password_hash, acl, revoked_at ON `shortlinks`
WHEN (OLD.entity_id, OLD.entity_type, OLD.creator_id, OLD.not_before, OLD.not_after, OLD.password_hash, OLD.acl, OLD.revoked_at)
  IS NOT (NEW.entity_id, NEW.entity_type, NEW.creator_id, NEW.not_before, NEW.not_after, NEW.password_hash, NEW.acl, NEW.revoked_at)
BEGIN UPDATE cache_revisions SET revision = revision + 1 WHERE scope = 'shared'; END;
