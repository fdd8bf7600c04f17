-- The search index (decision 040): one FTS5 row per document of the catalog's `search_docs` (rowid = doc_id), fed
-- by workers/services/search/index-feed.ts. The columns and tokenizer are those of the catalog's index before
-- (migrations 0016, 0055): name, metadata, document text and the visibility tokens of decision 039.
CREATE VIRTUAL TABLE search_index USING fts5(name, meta, content, acl, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8');
--> statement-breakpoint
-- The newest mark (the catalog's `search_pending.seq`) each document was written from: a feed carrying an older
-- reading leaves it alone. Kept for deleted documents too, for the same reason.
CREATE TABLE search_doc_seq (doc_id INTEGER PRIMARY KEY NOT NULL, seq INTEGER NOT NULL);
--> statement-breakpoint
-- This database's own epoch for the answer cache (decision 031): moved by every feed that writes here.
CREATE TABLE search_index_epoch (id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1), n INTEGER NOT NULL);
--> statement-breakpoint
INSERT INTO search_index_epoch (id, n) VALUES (1, 0);
