/**
 * The search index rebuilt in bulk from the views its triggers read (migration 0011): far faster than the triggers
 * row by row when a bench seeds hundreds of thousands of entities with them dropped.
 */
export const REBUILD_SEARCH_INDEX = [
  "DELETE FROM search_fts",
  "DELETE FROM search_docs",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_asset",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_group",
  `INSERT INTO search_fts (rowid, name, meta, content)
    SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id
    UNION ALL SELECT d.doc_id, s.name, s.meta, s.content FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id`,
  "INSERT INTO search_fts (search_fts) VALUES ('optimize')",
];
