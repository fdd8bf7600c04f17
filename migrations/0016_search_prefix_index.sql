-- Prefix indexes for 5 to 8 letters as well as 2 to 4 (decision 011). A query word matches as the prefix of its
-- stem (`закат` → "закат"*), and stems are mostly 4 to 8 letters: without an index of that length FTS5 merges the
-- doclists of every term with the prefix on each use, which made ranking and highlighting such words 20-30 times
-- slower. The index grows by about a third. An FTS5 table's options cannot be altered, so it is rebuilt from the
-- same views the triggers use; the triggers write to it by name and need no change.
DROP TABLE search_fts;
--> statement-breakpoint
CREATE VIRTUAL TABLE search_fts USING fts5(name, meta, content, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8');
--> statement-breakpoint
INSERT INTO search_fts (rowid, name, meta, content)
	SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id
	UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id;
--> statement-breakpoint
INSERT INTO search_fts (search_fts) VALUES ('optimize');
