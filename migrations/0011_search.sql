-- Search (decision 011): one search document per asset and group in an FTS5 table, kept true by triggers in the
-- same transaction as every write that changes what it indexes. The document is computed in SQL from the live
-- tables (views search_source_asset / search_source_group), so no write path can forget it and the index never lags.
-- Words are indexed as written, ё folded to е (unicode61 folds case and Latin diacritics); the Worker stems queries.
CREATE TABLE `search_docs` (
	`doc_id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_docs_entity_unique` ON `search_docs` (`entity_id`);
--> statement-breakpoint
CREATE TABLE `search_content` (
	`asset_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`text` text NOT NULL,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE VIRTUAL TABLE search_fts USING fts5(name, meta, content, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4');
--> statement-breakpoint
CREATE VIEW search_source_asset AS
SELECT a.id AS entity_id, 'asset' AS entity_type, replace(replace(a.name, 'ё', 'е'), 'Ё', 'Е') AS name,
	replace(replace(trim(
		coalesce((SELECT group_concat(t.name, ' ') FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = a.id), '') || ' ' ||
		coalesce((SELECT c.name FROM asset_classes c WHERE c.id = a.class_id), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM field_values fv, json_tree(CASE WHEN json_valid(fv.data) THEN fv.data ELSE 'null' END) j
			WHERE fv.entity_id = a.id AND j.type IN ('text', 'integer', 'real')), '') || ' ' ||
		coalesce((SELECT group_concat(x.name, ' ') FROM taxon_members tm JOIN taxa x ON x.id = tm.taxon_id WHERE tm.object_id = a.id), '') || ' ' ||
		coalesce((SELECT group_concat(v.file_name, ' ') FROM variants v WHERE v.asset_id = a.id AND v.status = 'ready'), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM variants v, json_tree(CASE WHEN json_valid(v.tech_fields) THEN v.tech_fields ELSE 'null' END) j
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.tech_fields IS NOT NULL AND j.type = 'text' AND length(j.value) <= 200), '')
	), 'ё', 'е'), 'Ё', 'Е') AS meta,
	replace(replace(coalesce((SELECT sc.text FROM search_content sc WHERE sc.asset_id = a.id), ''), 'ё', 'е'), 'Ё', 'Е') AS content
FROM assets a;
--> statement-breakpoint
CREATE VIEW search_source_group AS
SELECT g.id AS entity_id, 'group' AS entity_type, replace(replace(g.name, 'ё', 'е'), 'Ё', 'Е') AS name,
	replace(replace(trim(
		coalesce((SELECT group_concat(t.name, ' ') FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = g.id), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM field_values fv, json_tree(CASE WHEN json_valid(fv.data) THEN fv.data ELSE 'null' END) j
			WHERE fv.entity_id = g.id AND j.type IN ('text', 'integer', 'real')), '') || ' ' ||
		coalesce((SELECT group_concat(x.name, ' ') FROM taxon_members tm JOIN taxa x ON x.id = tm.taxon_id WHERE tm.object_id = g.id), '')
	), 'ё', 'е'), 'Ё', 'Е') AS meta,
	'' AS content
FROM groups g WHERE g.id <> 'ffffffffffffffffffffffffffffffff';
--> statement-breakpoint
CREATE TRIGGER search_asset_insert AFTER INSERT ON assets
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_asset_update AFTER UPDATE OF name, class_id ON assets
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_asset_delete AFTER DELETE ON assets
BEGIN
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.id);
	DELETE FROM search_docs WHERE entity_id = OLD.id;
	DELETE FROM search_content WHERE asset_id = OLD.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_group_insert AFTER INSERT ON groups
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_group_update AFTER UPDATE OF name ON groups
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_group_delete AFTER DELETE ON groups
BEGIN
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.id);
	DELETE FROM search_docs WHERE entity_id = OLD.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tagging_insert AFTER INSERT ON entity_tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tagging_delete AFTER DELETE ON entity_tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tag_rename AFTER UPDATE OF name ON tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_class_rename AFTER UPDATE OF name ON asset_classes
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_field_insert AFTER INSERT ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_field_update AFTER UPDATE OF data ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_field_delete AFTER DELETE ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_insert AFTER INSERT ON taxon_members
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.object_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.object_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.object_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.object_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.object_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_delete AFTER DELETE ON taxon_members
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.object_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.object_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.object_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.object_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.object_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_rename AFTER UPDATE OF name ON taxa
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_ready AFTER UPDATE OF status, file_name, tech_fields ON variants WHEN NEW.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_insert AFTER INSERT ON variants WHEN NEW.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_delete AFTER DELETE ON variants WHEN OLD.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_content_insert AFTER INSERT ON search_content
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_content_update AFTER UPDATE ON search_content
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content)
		SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
-- Existing rows: index everything the database already holds.
INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_asset;
--> statement-breakpoint
INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_group;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content)
	SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id;
