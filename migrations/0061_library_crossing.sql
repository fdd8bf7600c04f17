-- Decision 046, writes across libraries: an operation that touches a library in its shard and another library (a
-- file moved or copied between them, listed in both, rules or tags over both) runs in the catalog, which holds a
-- current copy of every library, while the shards of the switched libraries it touches refuse writes; the entities it
-- wrote are then copied into those shards as a move copies them (workers/services/library/library-crossing.service.ts).
-- library_crossing: one row per switched library a crossing holds, from its start to its end (the minute cron
-- finishes one whose Worker died). While a library has a row not yet `ending`, migration 0060's triggers, recreated
-- here, let the catalog write it (as a writeback does); while any row exists they journal what is written (as during
-- a move), so the crossing's end finds every entity written, its own and those of requests that came meanwhile.
CREATE TABLE `library_crossing` (
	`crossing_id` text NOT NULL,
	`library_id` text NOT NULL,
	`shard` integer NOT NULL,
	`journal_from` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ending` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`crossing_id`, `library_id`)
);
--> statement-breakpoint
CREATE INDEX `library_crossing_library` ON `library_crossing` (`library_id`);
--> statement-breakpoint
-- A writeback marks every library in its shard, not only its own: a file it writes may be listed in another library
-- too (a listing made across libraries), which the triggers would otherwise refuse for that library's sake. `batch`
-- names the writeback that made a mark, so it removes its own marks only.
ALTER TABLE `library_writeback` ADD `batch` text;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_groups_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_insert` BEFORE INSERT ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_groups_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_update` BEFORE UPDATE ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.parent_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e UNION SELECT NEW.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_groups_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_delete` BEFORE DELETE ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_closure_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_insert` BEFORE INSERT ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.descendant AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_closure_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_update` BEFORE UPDATE ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.ancestor)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.descendant AS e UNION SELECT NEW.descendant AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_closure_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_delete` BEFORE DELETE ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.descendant AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_members_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_insert` BEFORE INSERT ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.group_id AS e UNION SELECT NEW.el_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_members_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_update` BEFORE UPDATE ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.group_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT OLD.el_id AS e UNION SELECT NEW.group_id AS e UNION SELECT NEW.el_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_group_members_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_delete` BEFORE DELETE ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT OLD.el_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_folder_rollups_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_insert` BEFORE INSERT ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.group_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_folder_rollups_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_update` BEFORE UPDATE ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.group_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT NEW.group_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_folder_rollups_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_delete` BEFORE DELETE ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_rules_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_insert` BEFORE INSERT ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.obj_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_rules_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_update` BEFORE UPDATE ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.obj_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.obj_id AS e UNION SELECT NEW.obj_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_rules_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_delete` BEFORE DELETE ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.obj_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_inheritance_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_insert` BEFORE INSERT ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_inheritance_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_update` BEFORE UPDATE ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_access_inheritance_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_delete` BEFORE DELETE ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_field_values_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_insert` BEFORE INSERT ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_field_values_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_update` BEFORE UPDATE ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_field_values_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_delete` BEFORE DELETE ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_entity_tags_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_insert` BEFORE INSERT ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_entity_tags_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_update` BEFORE UPDATE ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_entity_tags_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_delete` BEFORE DELETE ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_taxon_members_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_insert` BEFORE INSERT ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.object_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_taxon_members_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_update` BEFORE UPDATE ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.object_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.object_id AS e UNION SELECT NEW.object_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_taxon_members_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_delete` BEFORE DELETE ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.object_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_shortlinks_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_insert` BEFORE INSERT ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_shortlinks_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_update` BEFORE UPDATE ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_shortlinks_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_delete` BEFORE DELETE ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_assets_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_insert` BEFORE INSERT ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_assets_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_update` BEFORE UPDATE ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e UNION SELECT NEW.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_assets_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_delete` BEFORE DELETE ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_totals_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_insert` BEFORE INSERT ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_totals_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_update` BEFORE UPDATE ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_totals_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_delete` BEFORE DELETE ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_versions_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_insert` BEFORE INSERT ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_versions_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_update` BEFORE UPDATE ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_versions_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_delete` BEFORE DELETE ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_variants_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_insert` BEFORE INSERT ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_variants_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_update` BEFORE UPDATE ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_variants_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_delete` BEFORE DELETE ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_previews_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_insert` BEFORE INSERT ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_previews_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_update` BEFORE UPDATE ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_previews_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_delete` BEFORE DELETE ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comments_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_insert` BEFORE INSERT ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comments_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_update` BEFORE UPDATE ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comments_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_delete` BEFORE DELETE ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comment_revisions_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_insert` BEFORE INSERT ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comment_revisions_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_update` BEFORE UPDATE ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_comment_revisions_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_delete` BEFORE DELETE ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_follows_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_insert` BEFORE INSERT ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_follows_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_update` BEFORE UPDATE ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_asset_follows_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_delete` BEFORE DELETE ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_decisions_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_insert` BEFORE INSERT ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_decisions_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_update` BEFORE UPDATE ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_decisions_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_delete` BEFORE DELETE ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_requests_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_insert` BEFORE INSERT ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_requests_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_update` BEFORE UPDATE ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_review_requests_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_delete` BEFORE DELETE ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_heal_candidates_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_insert` BEFORE INSERT ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_heal_candidates_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_update` BEFORE UPDATE ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_heal_candidates_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_delete` BEFORE DELETE ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_search_content_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_insert` BEFORE INSERT ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_search_content_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_update` BEFORE UPDATE ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_search_content_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_delete` BEFORE DELETE ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_upload_parts_insert`;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_insert` BEFORE INSERT ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = NEW.variant_id) AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_upload_parts_update`;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_update` BEFORE UPDATE ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = (SELECT asset_id FROM variants WHERE id = OLD.variant_id))) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = OLD.variant_id) AS e UNION SELECT (SELECT asset_id FROM variants WHERE id = NEW.variant_id) AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `library_move_upload_parts_delete`;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_delete` BEFORE DELETE ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND c.descendant = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE (d.state = 'moving' OR (d.state = 'shard' AND NOT EXISTS (SELECT 1 FROM library_writeback w WHERE w.library_id = d.library_id) AND NOT EXISTS (SELECT 1 FROM library_crossing x WHERE x.library_id = d.library_id AND x.ending = 0))) AND gm.el_id = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = OLD.variant_id) AS e) WHERE e IS NOT NULL AND (EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying') OR EXISTS (SELECT 1 FROM library_crossing));
END;
