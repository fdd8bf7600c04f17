-- Decision 043, the move of a library into its shard (issue 40, item 4).
-- library_directory: where a library lives while and after it moves (no row: in this database, as before sharding);
-- checked_seq: the journal position at which the shard was found to hold exactly what this database holds.
-- id_directory: ids minted before sharding (UUIDv7) of entities that live in a shard now.
-- library_move_journal: every entity written while a move copies, so the move applies what changed meanwhile.
-- One BEFORE trigger per library table and operation (generated from workers/db/library-tables.ts' list): while a
-- move is in progress it journals the entity the row belongs to, and it refuses a write to a library that is being
-- switched ('moving': for seconds) or lives in its shard ('shard': this database's copy is no longer the library's);
-- the error's text LIBRARY_MOVING becomes a 503 with Retry-After. Outside a move the triggers cost one probe of an
-- empty table.
CREATE TABLE `library_directory` (
	`library_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`shard` integer NOT NULL,
	`state` text NOT NULL CHECK (`state` IN ('copying', 'moving', 'shard')),
	`step` text NOT NULL,
	`cursor` text DEFAULT '' NOT NULL,
	`journal_seq` integer DEFAULT 0 NOT NULL,
	`checked_seq` integer,
	`error` text,
	`started_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`switched_at` integer
);--> statement-breakpoint
CREATE UNIQUE INDEX `library_directory_shard` ON `library_directory` (`shard`);--> statement-breakpoint
CREATE TABLE `id_directory` (
	`id` text PRIMARY KEY NOT NULL,
	`library_id` text NOT NULL
);--> statement-breakpoint
CREATE INDEX `id_directory_library` ON `id_directory` (`library_id`);--> statement-breakpoint
CREATE TABLE `library_move_journal` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entity_id` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_insert` BEFORE INSERT ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_update` BEFORE UPDATE ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.parent_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e UNION SELECT NEW.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_groups_delete` BEFORE DELETE ON `groups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.parent_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.parent_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_insert` BEFORE INSERT ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.descendant AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_update` BEFORE UPDATE ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.ancestor)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.descendant AS e UNION SELECT NEW.descendant AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_closure_delete` BEFORE DELETE ON `group_closure`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.descendant) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.descendant)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.ancestor) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.ancestor));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.descendant AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_insert` BEFORE INSERT ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.group_id AS e UNION SELECT NEW.el_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_update` BEFORE UPDATE ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.group_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT OLD.el_id AS e UNION SELECT NEW.group_id AS e UNION SELECT NEW.el_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_group_members_delete` BEFORE DELETE ON `group_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT OLD.el_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_insert` BEFORE INSERT ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.group_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_update` BEFORE UPDATE ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.group_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e UNION SELECT NEW.group_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_folder_rollups_delete` BEFORE DELETE ON `folder_rollups`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.group_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.group_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.group_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_insert` BEFORE INSERT ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.obj_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_update` BEFORE UPDATE ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.obj_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.obj_id AS e UNION SELECT NEW.obj_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_rules_delete` BEFORE DELETE ON `access_rules`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.obj_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.obj_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.obj_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_insert` BEFORE INSERT ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_update` BEFORE UPDATE ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_access_inheritance_delete` BEFORE DELETE ON `access_inheritance`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_insert` BEFORE INSERT ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_update` BEFORE UPDATE ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_field_values_delete` BEFORE DELETE ON `field_values`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_insert` BEFORE INSERT ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_update` BEFORE UPDATE ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_entity_tags_delete` BEFORE DELETE ON `entity_tags`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_insert` BEFORE INSERT ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.object_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_update` BEFORE UPDATE ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.object_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.object_id AS e UNION SELECT NEW.object_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_taxon_members_delete` BEFORE DELETE ON `taxon_members`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.object_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.object_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.object_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_insert` BEFORE INSERT ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_update` BEFORE UPDATE ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e UNION SELECT NEW.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_shortlinks_delete` BEFORE DELETE ON `shortlinks`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.entity_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.entity_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.entity_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_insert` BEFORE INSERT ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_update` BEFORE UPDATE ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e UNION SELECT NEW.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_assets_delete` BEFORE DELETE ON `assets`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_insert` BEFORE INSERT ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_update` BEFORE UPDATE ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_totals_delete` BEFORE DELETE ON `asset_totals`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_insert` BEFORE INSERT ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_update` BEFORE UPDATE ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_versions_delete` BEFORE DELETE ON `asset_versions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_insert` BEFORE INSERT ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_update` BEFORE UPDATE ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_variants_delete` BEFORE DELETE ON `variants`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_insert` BEFORE INSERT ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_update` BEFORE UPDATE ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_previews_delete` BEFORE DELETE ON `previews`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_insert` BEFORE INSERT ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_update` BEFORE UPDATE ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comments_delete` BEFORE DELETE ON `comments`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_insert` BEFORE INSERT ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_update` BEFORE UPDATE ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_comment_revisions_delete` BEFORE DELETE ON `comment_revisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_insert` BEFORE INSERT ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_update` BEFORE UPDATE ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_asset_follows_delete` BEFORE DELETE ON `asset_follows`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_insert` BEFORE INSERT ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_update` BEFORE UPDATE ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_decisions_delete` BEFORE DELETE ON `review_decisions`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_insert` BEFORE INSERT ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_update` BEFORE UPDATE ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_review_requests_delete` BEFORE DELETE ON `review_requests`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_insert` BEFORE INSERT ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_update` BEFORE UPDATE ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_heal_candidates_delete` BEFORE DELETE ON `heal_candidates`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_insert` BEFORE INSERT ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_update` BEFORE UPDATE ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id)) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = NEW.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = NEW.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e UNION SELECT NEW.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_search_content_delete` BEFORE DELETE ON `search_content`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = OLD.asset_id) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = OLD.asset_id));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT OLD.asset_id AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_insert` BEFORE INSERT ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = NEW.variant_id) AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_update` BEFORE UPDATE ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = (SELECT asset_id FROM variants WHERE id = OLD.variant_id))) OR (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = (SELECT asset_id FROM variants WHERE id = NEW.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = OLD.variant_id) AS e UNION SELECT (SELECT asset_id FROM variants WHERE id = NEW.variant_id) AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
--> statement-breakpoint
CREATE TRIGGER `library_move_upload_parts_delete` BEFORE DELETE ON `upload_parts`
WHEN EXISTS (SELECT 1 FROM library_directory)
BEGIN
  SELECT RAISE(ABORT, 'LIBRARY_MOVING') WHERE (EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id WHERE d.state IN ('moving', 'shard') AND c.descendant = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)) OR EXISTS (SELECT 1 FROM library_directory d JOIN group_closure c ON c.ancestor = d.library_id JOIN group_members gm ON gm.group_id = c.descendant WHERE d.state IN ('moving', 'shard') AND gm.el_id = (SELECT asset_id FROM variants WHERE id = OLD.variant_id)));
  INSERT INTO library_move_journal (entity_id) SELECT e FROM (SELECT (SELECT asset_id FROM variants WHERE id = OLD.variant_id) AS e) WHERE e IS NOT NULL AND EXISTS (SELECT 1 FROM library_directory WHERE state = 'copying');
END;
