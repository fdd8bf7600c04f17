-- How many shards the search index's documents were written for (decision 042): document d lives in shard d mod n of
-- the SEARCH databases a Worker binds. A feed whose Worker binds another number of shards would put documents where
-- searches never look (a partial rollout, a Worker deployed without `npm run deploy:check`), so it refuses and the
-- documents stay pending until the root `reindex` — which moves every document to its shard — records the new number.
-- NULL: nothing indexed yet; the first feed records its own number. An install with documents was one shard.
CREATE TABLE search_layout (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	shards INTEGER CHECK (shards >= 1)
);
--> statement-breakpoint
INSERT INTO search_layout (id, shards) SELECT 1, CASE WHEN EXISTS (SELECT 1 FROM search_docs) THEN 1 END;
