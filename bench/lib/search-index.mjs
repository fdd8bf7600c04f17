import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The search index rebuilt in bulk from the views the feed reads (migrations 0055, 0056): far faster than marking
 * and feeding row by row when a bench seeds hundreds of thousands of entities with the triggers dropped.
 */
export const REBUILD_SEARCH_INDEX = [
  "DELETE FROM search_index",
  "DELETE FROM search_pending",
  "DELETE FROM search_docs",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_asset",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_group",
  `INSERT INTO search_index (rowid, name, meta, content, acl)
    SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_doc_asset s ON s.entity_id = d.entity_id
    UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_doc_group s ON s.entity_id = d.entity_id`,
  "INSERT INTO search_index (search_index) VALUES ('optimize')",
];

/**
 * One slice of the index's feed, the statements of `indexSlice` (workers/db/repositories/search-feed.repository.ts)
 * for node:sqlite: the lowest `size` pending documents indexed again from the catalog. Returns how many it took.
 */
export function feedSlice(db, size = 200) {
  const slice = `(SELECT doc_id FROM search_pending ORDER BY doc_id LIMIT ${size})`;
  db.exec("BEGIN");
  const taken = db.prepare(`SELECT count(*) AS n FROM ${slice}`).get().n;
  db.exec(`DELETE FROM search_index WHERE rowid IN ${slice}`);
  db.exec(`INSERT INTO search_index (rowid, name, meta, content, acl)
    SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_doc_asset s ON s.entity_id = d.entity_id
      WHERE d.doc_id IN ${slice} AND d.entity_type = 'asset'
    UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_doc_group s ON s.entity_id = d.entity_id
      WHERE d.doc_id IN ${slice} AND d.entity_type = 'group'`);
  db.exec(`DELETE FROM search_pending WHERE doc_id IN ${slice}`);
  db.exec("COMMIT");
  return taken;
}

/**
 * The index's triggers as the migrations leave them (those that mark documents, and the view's that record the marks) (a later migration's definition replaces an earlier one), the
 * epoch's left out: what a seed drops before loading rows and creates again after `REBUILD_SEARCH_INDEX`.
 */
export function searchIndexTriggers(root) {
  const byName = new Map();
  const dir = join(root, "migrations");
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of readFileSync(join(dir, file), "utf8").split("--> statement-breakpoint")) {
      const body = statement
        .split("\n")
        .filter((line) => !line.startsWith("--"))
        .join("\n")
        .trim();
      const name = /^CREATE TRIGGER (search_\w+)/.exec(body)?.[1];
      if (name && !name.startsWith("search_epoch_")) byName.set(name, body);
    }
  }
  return [...byName.values()];
}
