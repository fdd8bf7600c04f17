-- The answer cache reads one epoch, the catalog's `search_epoch`, which every feed slice moves when it drops its
-- marks (decision 041): this database's own counter is no longer read or written.
DROP TABLE search_index_epoch;
