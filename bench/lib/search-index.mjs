import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The search index rebuilt in bulk from the views its triggers read (migrations 0011, 0055): far faster than the
 * triggers row by row when a bench seeds hundreds of thousands of entities with them dropped.
 */
export const REBUILD_SEARCH_INDEX = [
  "DELETE FROM search_fts",
  "DELETE FROM search_docs",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_asset",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_group",
  `INSERT INTO search_fts (rowid, name, meta, content, acl)
    SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_asset s ON s.entity_id = d.entity_id
    UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM search_docs d JOIN search_source_group s ON s.entity_id = d.entity_id`,
  "INSERT INTO search_fts (search_fts) VALUES ('optimize')",
];

/**
 * The index's triggers as the migrations leave them (a later migration's definition replaces an earlier one), the
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
