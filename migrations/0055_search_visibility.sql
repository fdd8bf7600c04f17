-- Visibility inside the search index (decision 039, issue 40 item 5). Each document gains a fourth column, `acl`,
-- of tokens that say where the entity sits for access control, so a reader's query asks the index which matches
-- they may see instead of walking every match through the rule checks:
--   o<user>    its owner;
--   a<node>    a node whose rules reach it: the entity itself, and (unless its inheritance is off) each ancestor up
--              to the nearest switch that cuts inheritance — for a file, through every folder it is listed in (live
--              listings only);
--   b<node>    an ancestor its rules do not reach (above a cut, or through a trashed listing): it still lies inside
--              that subtree, which is what a chroot or a robot token's scope asks;
--   unfiled    a file listed in no folder (its owner's, inside any chroot).
-- Rules themselves are not in the index: a query turns the caller's rules into terms (`a<node>` of each rule granting
-- read, minus those of each deny), so adding or removing a rule re-indexes nothing. Only what moves the tokens does:
-- listings, folder moves, inheritance switches and owners, by the triggers below, in the same statement as the write.
-- The column's weight in bm25 is 0, and user words are matched in the other three columns only.
DROP TRIGGER search_asset_insert;
--> statement-breakpoint
DROP TRIGGER search_asset_update;
--> statement-breakpoint
DROP TRIGGER search_group_insert;
--> statement-breakpoint
DROP TRIGGER search_group_update;
--> statement-breakpoint
DROP TRIGGER search_tagging_insert;
--> statement-breakpoint
DROP TRIGGER search_tagging_delete;
--> statement-breakpoint
DROP TRIGGER search_tag_rename;
--> statement-breakpoint
DROP TRIGGER search_class_rename;
--> statement-breakpoint
DROP TRIGGER search_field_insert;
--> statement-breakpoint
DROP TRIGGER search_field_update;
--> statement-breakpoint
DROP TRIGGER search_field_delete;
--> statement-breakpoint
DROP TRIGGER search_taxon_insert;
--> statement-breakpoint
DROP TRIGGER search_taxon_delete;
--> statement-breakpoint
DROP TRIGGER search_taxon_rename;
--> statement-breakpoint
DROP TRIGGER search_variant_ready;
--> statement-breakpoint
DROP TRIGGER search_variant_insert;
--> statement-breakpoint
DROP TRIGGER search_variant_delete;
--> statement-breakpoint
DROP TRIGGER search_content_insert;
--> statement-breakpoint
DROP TRIGGER search_content_update;
--> statement-breakpoint
DROP VIEW search_source_asset;
--> statement-breakpoint
DROP VIEW search_source_group;
--> statement-breakpoint
CREATE VIEW search_acl_asset AS
SELECT a.id AS entity_id,
	'o' || coalesce(a.owner_id, '') || ' a' || a.id || coalesce((SELECT ' ' || group_concat(t, ' ') FROM (
		SELECT DISTINCT CASE WHEN m.trashed_at IS NULL
				AND NOT EXISTS (SELECT 1 FROM access_inheritance ai WHERE ai.entity_id = a.id AND ai.inherit = 0)
				AND c.depth <= coalesce((SELECT min(k.depth) FROM group_closure k JOIN access_inheritance ak ON ak.entity_id = k.ancestor
					WHERE k.descendant = m.group_id AND ak.inherit = 0), 1000000)
			THEN 'a' ELSE 'b' END || c.ancestor AS t
		FROM group_members m JOIN group_closure c ON c.descendant = m.group_id
		WHERE m.el_id = a.id AND m.el_type = 'asset')), '') ||
	CASE WHEN EXISTS (SELECT 1 FROM group_members m WHERE m.el_id = a.id AND m.el_type = 'asset') THEN '' ELSE ' unfiled' END AS acl
FROM assets a;
--> statement-breakpoint
CREATE VIEW search_acl_group AS
SELECT g.id AS entity_id,
	'o' || coalesce(g.owner_id, '') || coalesce((SELECT ' ' || group_concat(CASE WHEN c.depth <= coalesce((SELECT min(k.depth) FROM group_closure k
			JOIN access_inheritance ak ON ak.entity_id = k.ancestor WHERE k.descendant = g.id AND ak.inherit = 0), 1000000)
		THEN 'a' ELSE 'b' END || c.ancestor, ' ') FROM group_closure c WHERE c.descendant = g.id), '') AS acl
FROM groups g;
--> statement-breakpoint
CREATE VIEW search_source_asset AS
SELECT a.id AS entity_id, 'asset' AS entity_type, replace(replace(a.name, 'ё', 'е'), 'Ё', 'Е') AS name,
	replace(replace(trim(
		coalesce((SELECT group_concat(t.name, ' ') FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = a.id), '') || ' ' ||
		coalesce((SELECT c.name FROM asset_classes c WHERE c.id = a.class_id), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM field_values fv, json_tree(CASE WHEN json_valid(fv.data) THEN fv.data ELSE 'null' END) j
			WHERE fv.entity_id = a.id AND j.type IN ('text', 'integer', 'real')), '') || ' ' ||
		coalesce((SELECT group_concat(x.name, ' ') FROM taxon_members tm JOIN taxa x ON x.id = tm.taxon_id WHERE tm.object_id = a.id), '') || ' ' ||
		coalesce((SELECT group_concat(DISTINCT v.file_name) FROM variants v
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND v.file_name <> a.name), '') || ' ' ||
		coalesce((SELECT group_concat(json_extract(v.tech_fields, '$.width') || 'x' || json_extract(v.tech_fields, '$.height'), ' ') FROM variants v
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND json_valid(v.tech_fields)
				AND json_type(v.tech_fields, '$.width') = 'integer' AND json_type(v.tech_fields, '$.height') = 'integer'), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM variants v, json_tree(CASE WHEN json_valid(v.tech_fields) THEN v.tech_fields ELSE 'null' END) j
			WHERE v.asset_id = a.id AND v.status = 'ready' AND v.variant_type IN ('initial', 'master', 'untyped') AND v.tech_fields IS NOT NULL
				AND j.type = 'text' AND length(j.value) <= 200 AND NOT (j.path = '$' AND j.key IN ('mime', 'container'))
				AND j.value NOT GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*'), '')
	), 'ё', 'е'), 'Ё', 'Е') AS meta,
	replace(replace(coalesce((SELECT sc.text FROM search_content sc WHERE sc.asset_id = a.id), ''), 'ё', 'е'), 'Ё', 'Е') AS content,
	(SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = a.id) AS acl
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
	'' AS content,
	(SELECT x.acl FROM search_acl_group x WHERE x.entity_id = g.id) AS acl
FROM groups g WHERE g.id <> 'ffffffffffffffffffffffffffffffff';
--> statement-breakpoint
CREATE TRIGGER search_asset_insert AFTER INSERT ON assets
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_asset_update AFTER UPDATE OF name, class_id ON assets
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_group_insert AFTER INSERT ON groups
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_group_update AFTER UPDATE OF name ON groups
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tagging_insert AFTER INSERT ON entity_tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tagging_delete AFTER DELETE ON entity_tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_tag_rename AFTER UPDATE OF name ON tags
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT entity_id FROM entity_tags WHERE tag_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_class_rename AFTER UPDATE OF name ON asset_classes
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT id FROM assets WHERE class_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_field_insert AFTER INSERT ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_field_update AFTER UPDATE OF data ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_field_delete AFTER DELETE ON field_values
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.entity_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.entity_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.entity_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.entity_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_insert AFTER INSERT ON taxon_members
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.object_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.object_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.object_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.object_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.object_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_delete AFTER DELETE ON taxon_members
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.object_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.object_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.object_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.object_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.object_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_taxon_rename AFTER UPDATE OF name ON taxa
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT s.entity_id, s.entity_type FROM search_source_asset s WHERE s.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		UNION ALL SELECT s.entity_id, s.entity_type FROM search_source_group s WHERE s.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id));
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id)
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id IN (SELECT object_id FROM taxon_members WHERE taxon_id = NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_ready AFTER UPDATE OF status, file_name, tech_fields ON variants WHEN NEW.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_insert AFTER INSERT ON variants WHEN NEW.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_variant_delete AFTER DELETE ON variants WHEN OLD.status = 'ready'
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = OLD.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = OLD.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = OLD.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_content_insert AFTER INSERT ON search_content
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
CREATE TRIGGER search_content_update AFTER UPDATE ON search_content
BEGIN
	INSERT INTO search_docs (entity_id, entity_type)
		SELECT entity_id, entity_type FROM search_source_asset WHERE entity_id = NEW.asset_id
		UNION ALL SELECT entity_id, entity_type FROM search_source_group WHERE entity_id = NEW.asset_id
		ON CONFLICT (entity_id) DO NOTHING;
	DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.asset_id);
	INSERT INTO search_fts (rowid, name, meta, content, acl)
		SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id
		UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.entity_id = NEW.asset_id;
END;
--> statement-breakpoint
DROP TABLE search_fts;
--> statement-breakpoint
CREATE VIRTUAL TABLE search_fts USING fts5(name, meta, content, acl, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8');
--> statement-breakpoint
-- The documents again, 25,000 at a time: one statement over a whole large library would pass D1's 30 s limit.
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 0 AND d.doc_id < 25000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 0 AND d.doc_id < 25000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 25000 AND d.doc_id < 50000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 25000 AND d.doc_id < 50000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 50000 AND d.doc_id < 75000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 50000 AND d.doc_id < 75000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 75000 AND d.doc_id < 100000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 75000 AND d.doc_id < 100000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 100000 AND d.doc_id < 125000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 100000 AND d.doc_id < 125000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 125000 AND d.doc_id < 150000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 125000 AND d.doc_id < 150000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 150000 AND d.doc_id < 175000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 150000 AND d.doc_id < 175000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 175000 AND d.doc_id < 200000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 175000 AND d.doc_id < 200000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 200000 AND d.doc_id < 225000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 200000 AND d.doc_id < 225000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 225000 AND d.doc_id < 250000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 225000 AND d.doc_id < 250000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 250000 AND d.doc_id < 275000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 250000 AND d.doc_id < 275000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 275000 AND d.doc_id < 300000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 275000 AND d.doc_id < 300000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 300000 AND d.doc_id < 325000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 300000 AND d.doc_id < 325000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 325000 AND d.doc_id < 350000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 325000 AND d.doc_id < 350000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 350000 AND d.doc_id < 375000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 350000 AND d.doc_id < 375000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 375000 AND d.doc_id < 400000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 375000 AND d.doc_id < 400000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 400000 AND d.doc_id < 425000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 400000 AND d.doc_id < 425000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 425000 AND d.doc_id < 450000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 425000 AND d.doc_id < 450000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 450000 AND d.doc_id < 475000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 450000 AND d.doc_id < 475000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 475000 AND d.doc_id < 500000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 475000 AND d.doc_id < 500000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 500000 AND d.doc_id < 525000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 500000 AND d.doc_id < 525000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 525000 AND d.doc_id < 550000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 525000 AND d.doc_id < 550000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 550000 AND d.doc_id < 575000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 550000 AND d.doc_id < 575000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 575000 AND d.doc_id < 600000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 575000 AND d.doc_id < 600000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 600000 AND d.doc_id < 625000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 600000 AND d.doc_id < 625000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 625000 AND d.doc_id < 650000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 625000 AND d.doc_id < 650000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 650000 AND d.doc_id < 675000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 650000 AND d.doc_id < 675000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 675000 AND d.doc_id < 700000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 675000 AND d.doc_id < 700000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 700000 AND d.doc_id < 725000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 700000 AND d.doc_id < 725000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 725000 AND d.doc_id < 750000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 725000 AND d.doc_id < 750000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 750000 AND d.doc_id < 775000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 750000 AND d.doc_id < 775000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 775000 AND d.doc_id < 800000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 775000 AND d.doc_id < 800000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 800000 AND d.doc_id < 825000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 800000 AND d.doc_id < 825000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 825000 AND d.doc_id < 850000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 825000 AND d.doc_id < 850000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 850000 AND d.doc_id < 875000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 850000 AND d.doc_id < 875000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 875000 AND d.doc_id < 900000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 875000 AND d.doc_id < 900000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 900000 AND d.doc_id < 925000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 900000 AND d.doc_id < 925000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 925000 AND d.doc_id < 950000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 925000 AND d.doc_id < 950000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 950000 AND d.doc_id < 975000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 950000 AND d.doc_id < 975000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 975000 AND d.doc_id < 1000000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 975000 AND d.doc_id < 1000000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1000000 AND d.doc_id < 1025000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1000000 AND d.doc_id < 1025000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1025000 AND d.doc_id < 1050000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1025000 AND d.doc_id < 1050000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1050000 AND d.doc_id < 1075000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1050000 AND d.doc_id < 1075000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1075000 AND d.doc_id < 1100000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1075000 AND d.doc_id < 1100000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1100000 AND d.doc_id < 1125000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1100000 AND d.doc_id < 1125000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1125000 AND d.doc_id < 1150000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1125000 AND d.doc_id < 1150000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1150000 AND d.doc_id < 1175000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1150000 AND d.doc_id < 1175000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1175000 AND d.doc_id < 1200000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1175000 AND d.doc_id < 1200000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1200000 AND d.doc_id < 1225000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1200000 AND d.doc_id < 1225000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1225000 AND d.doc_id < 1250000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1225000 AND d.doc_id < 1250000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1250000 AND d.doc_id < 1275000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1250000 AND d.doc_id < 1275000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1275000 AND d.doc_id < 1300000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1275000 AND d.doc_id < 1300000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1300000 AND d.doc_id < 1325000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1300000 AND d.doc_id < 1325000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1325000 AND d.doc_id < 1350000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1325000 AND d.doc_id < 1350000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1350000 AND d.doc_id < 1375000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1350000 AND d.doc_id < 1375000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1375000 AND d.doc_id < 1400000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1375000 AND d.doc_id < 1400000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1400000 AND d.doc_id < 1425000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1400000 AND d.doc_id < 1425000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1425000 AND d.doc_id < 1450000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1425000 AND d.doc_id < 1450000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1450000 AND d.doc_id < 1475000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1450000 AND d.doc_id < 1475000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1475000 AND d.doc_id < 1500000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1475000 AND d.doc_id < 1500000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1500000 AND d.doc_id < 1525000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1500000 AND d.doc_id < 1525000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1525000 AND d.doc_id < 1550000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1525000 AND d.doc_id < 1550000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1550000 AND d.doc_id < 1575000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1550000 AND d.doc_id < 1575000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1575000 AND d.doc_id < 1600000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1575000 AND d.doc_id < 1600000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1600000 AND d.doc_id < 1625000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1600000 AND d.doc_id < 1625000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1625000 AND d.doc_id < 1650000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1625000 AND d.doc_id < 1650000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1650000 AND d.doc_id < 1675000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1650000 AND d.doc_id < 1675000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1675000 AND d.doc_id < 1700000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1675000 AND d.doc_id < 1700000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1700000 AND d.doc_id < 1725000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1700000 AND d.doc_id < 1725000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1725000 AND d.doc_id < 1750000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1725000 AND d.doc_id < 1750000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1750000 AND d.doc_id < 1775000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1750000 AND d.doc_id < 1775000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1775000 AND d.doc_id < 1800000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1775000 AND d.doc_id < 1800000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1800000 AND d.doc_id < 1825000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1800000 AND d.doc_id < 1825000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1825000 AND d.doc_id < 1850000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1825000 AND d.doc_id < 1850000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1850000 AND d.doc_id < 1875000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1850000 AND d.doc_id < 1875000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1875000 AND d.doc_id < 1900000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1875000 AND d.doc_id < 1900000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1900000 AND d.doc_id < 1925000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1900000 AND d.doc_id < 1925000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1925000 AND d.doc_id < 1950000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1925000 AND d.doc_id < 1950000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1950000 AND d.doc_id < 1975000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1950000 AND d.doc_id < 1975000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1975000 AND d.doc_id < 2000000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 1975000 AND d.doc_id < 2000000;
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content, acl)
	SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id WHERE d.doc_id >= 2000000
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id WHERE d.doc_id >= 2000000;
--> statement-breakpoint
CREATE TRIGGER search_acl_listing_insert AFTER INSERT ON group_members WHEN NEW.el_type = 'asset'
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = NEW.el_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.el_id AND entity_type = 'asset');
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_listing_delete AFTER DELETE ON group_members WHEN OLD.el_type = 'asset'
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = OLD.el_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.el_id AND entity_type = 'asset');
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_listing_update AFTER UPDATE OF group_id, trashed_at, el_id ON group_members WHEN NEW.el_type = 'asset' OR OLD.el_type = 'asset'
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = OLD.el_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.el_id AND entity_type = 'asset');
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = NEW.el_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.el_id AND entity_type = 'asset');
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_folder_placed AFTER INSERT ON group_members WHEN NEW.el_type = 'group'
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_group x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN search_docs d ON d.entity_id = c.descendant WHERE c.ancestor = NEW.el_id);
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_asset x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN group_members m ON m.group_id = c.descendant AND m.el_type = 'asset'
			JOIN search_docs d ON d.entity_id = m.el_id WHERE c.ancestor = NEW.el_id);
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_folder_moved AFTER UPDATE OF group_id ON group_members WHEN NEW.el_type = 'group'
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_group x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN search_docs d ON d.entity_id = c.descendant WHERE c.ancestor = NEW.el_id);
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_asset x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN group_members m ON m.group_id = c.descendant AND m.el_type = 'asset'
			JOIN search_docs d ON d.entity_id = m.el_id WHERE c.ancestor = NEW.el_id);
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_switch_insert AFTER INSERT ON access_inheritance
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = NEW.entity_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id AND entity_type = 'asset');
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_group x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN search_docs d ON d.entity_id = c.descendant WHERE c.ancestor = NEW.entity_id);
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_asset x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN group_members m ON m.group_id = c.descendant AND m.el_type = 'asset'
			JOIN search_docs d ON d.entity_id = m.el_id WHERE c.ancestor = NEW.entity_id);
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_switch_update AFTER UPDATE OF inherit ON access_inheritance
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = NEW.entity_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.entity_id AND entity_type = 'asset');
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_group x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN search_docs d ON d.entity_id = c.descendant WHERE c.ancestor = NEW.entity_id);
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_asset x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN group_members m ON m.group_id = c.descendant AND m.el_type = 'asset'
			JOIN search_docs d ON d.entity_id = m.el_id WHERE c.ancestor = NEW.entity_id);
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_switch_delete AFTER DELETE ON access_inheritance
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = OLD.entity_id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = OLD.entity_id AND entity_type = 'asset');
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_group x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN search_docs d ON d.entity_id = c.descendant WHERE c.ancestor = OLD.entity_id);
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_docs d JOIN search_acl_asset x ON x.entity_id = d.entity_id WHERE d.doc_id = search_fts.rowid)
		WHERE rowid IN (SELECT d.doc_id FROM group_closure c JOIN group_members m ON m.group_id = c.descendant AND m.el_type = 'asset'
			JOIN search_docs d ON d.entity_id = m.el_id WHERE c.ancestor = OLD.entity_id);
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_asset_owner AFTER UPDATE OF owner_id ON assets
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_asset x WHERE x.entity_id = NEW.id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id AND entity_type = 'asset');
END;
--> statement-breakpoint
CREATE TRIGGER search_acl_group_owner AFTER UPDATE OF owner_id ON groups
BEGIN
	UPDATE search_fts SET acl = (SELECT x.acl FROM search_acl_group x WHERE x.entity_id = NEW.id)
		WHERE rowid = (SELECT doc_id FROM search_docs WHERE entity_id = NEW.id AND entity_type = 'group');
END;
