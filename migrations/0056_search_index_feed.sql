-- The search index leaves this database and is fed, not written in the statement of the change (decision 040,
-- issue 40 items 2 and 5).
-- Until now every trigger of migrations 0011–0055 rewrote a document's row of the FTS5 table `search_fts` in the
-- statement that changed what it says: a listing, a move or an inheritance switch rewrote every row below it there
-- and then (50–85 µs a file: a switch over ~400,000 files passed D1's 30 s statement limit), and the index had to
-- live in the same database as the catalog.
-- Now the index is `search_index` in the SEARCH database (migrations-search/), and `search_fts` here is a view over
-- the documents whose INSTEAD OF triggers only mark a document as pending (`search_pending`). The triggers themselves
-- are unchanged: what they write through is the view, and the views they read the text from (`search_source_*`, `search_acl_*`) answer the same rows without
-- computing any text. The real text comes from `search_doc_*` when the feed (workers/services/search/index-feed.ts)
-- drains the pending documents in slices: after each change in the request's `waitUntil`, before a search that
-- finds the index behind, and from the minute cron.
DROP VIEW search_source_asset;
--> statement-breakpoint
DROP VIEW search_source_group;
--> statement-breakpoint
DROP VIEW search_acl_asset;
--> statement-breakpoint
DROP VIEW search_acl_group;
--> statement-breakpoint
CREATE VIEW search_doc_acl_asset AS
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
CREATE VIEW search_doc_acl_group AS
SELECT g.id AS entity_id,
	'o' || coalesce(g.owner_id, '') || coalesce((SELECT ' ' || group_concat(CASE WHEN c.depth <= coalesce((SELECT min(k.depth) FROM group_closure k
			JOIN access_inheritance ak ON ak.entity_id = k.ancestor WHERE k.descendant = g.id AND ak.inherit = 0), 1000000)
		THEN 'a' ELSE 'b' END || c.ancestor, ' ') FROM group_closure c WHERE c.descendant = g.id), '') AS acl
FROM groups g;
--> statement-breakpoint
CREATE VIEW search_doc_asset AS
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
	(SELECT x.acl FROM search_doc_acl_asset x WHERE x.entity_id = a.id) AS acl
FROM assets a;
--> statement-breakpoint
CREATE VIEW search_doc_group AS
SELECT g.id AS entity_id, 'group' AS entity_type, replace(replace(g.name, 'ё', 'е'), 'Ё', 'Е') AS name,
	replace(replace(trim(
		coalesce((SELECT group_concat(t.name, ' ') FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = g.id), '') || ' ' ||
		coalesce((SELECT group_concat(j.value, ' ') FROM field_values fv, json_tree(CASE WHEN json_valid(fv.data) THEN fv.data ELSE 'null' END) j
			WHERE fv.entity_id = g.id AND j.type IN ('text', 'integer', 'real')), '') || ' ' ||
		coalesce((SELECT group_concat(x.name, ' ') FROM taxon_members tm JOIN taxa x ON x.id = tm.taxon_id WHERE tm.object_id = g.id), '')
	), 'ё', 'е'), 'Ё', 'Е') AS meta,
	'' AS content,
	(SELECT x.acl FROM search_doc_acl_group x WHERE x.entity_id = g.id) AS acl
FROM groups g WHERE g.id <> 'ffffffffffffffffffffffffffffffff';
--> statement-breakpoint
-- What the triggers read: the same rows, no text.
CREATE VIEW search_acl_asset AS SELECT a.id AS entity_id, NULL AS acl FROM assets a;
--> statement-breakpoint
CREATE VIEW search_acl_group AS SELECT g.id AS entity_id, NULL AS acl FROM groups g;
--> statement-breakpoint
CREATE VIEW search_source_asset AS
SELECT a.id AS entity_id, 'asset' AS entity_type, NULL AS name, NULL AS meta, NULL AS content, NULL AS acl FROM assets a;
--> statement-breakpoint
CREATE VIEW search_source_group AS
SELECT g.id AS entity_id, 'group' AS entity_type, NULL AS name, NULL AS meta, NULL AS content, NULL AS acl FROM groups g WHERE g.id <> 'ffffffffffffffffffffffffffffffff';
--> statement-breakpoint
DROP TABLE search_fts;
--> statement-breakpoint
-- Documents whose row in `search_index` may differ from what the catalog says now, with the mark's place in the
-- order of marks: the feed drops a mark only if no newer one replaced it, and SEARCH keeps each document's newest
-- seq, so a feed that read a document before a later change never writes over the later one.
CREATE TABLE search_pending (doc_id INTEGER PRIMARY KEY NOT NULL, seq INTEGER NOT NULL);
--> statement-breakpoint
CREATE TABLE search_mark_seq (id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1), n INTEGER NOT NULL);
--> statement-breakpoint
INSERT INTO search_mark_seq (id, n) VALUES (1, 0);
--> statement-breakpoint
CREATE VIEW search_fts (rowid, name, meta, content, acl) AS SELECT doc_id, NULL, NULL, NULL, NULL FROM search_docs;
--> statement-breakpoint
CREATE TRIGGER search_fts_insert INSTEAD OF INSERT ON search_fts
BEGIN
	UPDATE search_mark_seq SET n = n + 1 WHERE id = 1;
	-- no conflict clause: an outer statement's would override the trigger's
	UPDATE search_pending SET seq = (SELECT n FROM search_mark_seq WHERE id = 1) WHERE doc_id = NEW.rowid;
	INSERT INTO search_pending (doc_id, seq) SELECT NEW.rowid, (SELECT n FROM search_mark_seq WHERE id = 1)
		WHERE NOT EXISTS (SELECT 1 FROM search_pending WHERE doc_id = NEW.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER search_fts_update INSTEAD OF UPDATE ON search_fts
BEGIN
	UPDATE search_mark_seq SET n = n + 1 WHERE id = 1;
	-- no conflict clause: an outer statement's would override the trigger's
	UPDATE search_pending SET seq = (SELECT n FROM search_mark_seq WHERE id = 1) WHERE doc_id = OLD.rowid;
	INSERT INTO search_pending (doc_id, seq) SELECT OLD.rowid, (SELECT n FROM search_mark_seq WHERE id = 1)
		WHERE NOT EXISTS (SELECT 1 FROM search_pending WHERE doc_id = OLD.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER search_fts_delete INSTEAD OF DELETE ON search_fts
BEGIN
	UPDATE search_mark_seq SET n = n + 1 WHERE id = 1;
	-- no conflict clause: an outer statement's would override the trigger's
	UPDATE search_pending SET seq = (SELECT n FROM search_mark_seq WHERE id = 1) WHERE doc_id = OLD.rowid;
	INSERT INTO search_pending (doc_id, seq) SELECT OLD.rowid, (SELECT n FROM search_mark_seq WHERE id = 1)
		WHERE NOT EXISTS (SELECT 1 FROM search_pending WHERE doc_id = OLD.rowid);
END;
--> statement-breakpoint
-- Every document is indexed again by the feed, into SEARCH (an upgrade rebuilds the index in the background).
UPDATE search_mark_seq SET n = 1 WHERE id = 1;
--> statement-breakpoint
INSERT INTO search_pending (doc_id, seq) SELECT doc_id, 1 FROM search_docs;
