import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { d1FileOf, databaseIdOf, searchShardIdOf } from "./d1-files.mjs";

/**
 * The catalog's half of a bulk rebuild (migrations 0055, 0056): every entity's document row, nothing pending — far
 * faster than marking and feeding row by row when a bench seeds hundreds of thousands of entities with the triggers
 * dropped. The index itself is then written by `buildSearchIndex` (it lives in the SEARCH database, decision 040).
 */
export const REBUILD_SEARCH_DOCS = [
  "DELETE FROM search_pending",
  "DELETE FROM search_docs",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_asset",
  "INSERT INTO search_docs (entity_id, entity_type) SELECT entity_id, entity_type FROM search_source_group",
];

/** The documents as the catalog says they are, read by the index's side with the catalog attached as `catalog`. */
const CATALOG_DOCUMENTS = (where = "") => `SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM catalog.search_docs d
    JOIN catalog.search_doc_asset s ON s.entity_id = d.entity_id WHERE d.entity_type = 'asset'${where}
  UNION ALL SELECT d.doc_id, s.name, s.meta, s.content, s.acl FROM catalog.search_docs d
    JOIN catalog.search_doc_group s ON s.entity_id = d.entity_id WHERE d.entity_type = 'group'${where}`;

/** Attaches the catalog's file to a node:sqlite handle on the SEARCH file as `catalog`; returns the detach. */
export function attachCatalog(search, catalogFile) {
  search.exec(`ATTACH DATABASE '${catalogFile.replaceAll("'", "''")}' AS catalog`);
  return () => search.exec("DETACH DATABASE catalog");
}

/** Writes every document (or those `where` keeps) into SEARCH's `search_index` in bulk (the catalog attached as `catalog`). */
export function buildSearchIndex(search, where = "") {
  search.exec("DELETE FROM search_index");
  search.exec("DELETE FROM search_doc_seq");
  search.exec(`INSERT INTO search_index (rowid, name, meta, content, acl) ${CATALOG_DOCUMENTS(where)}`);
  search.exec("INSERT INTO search_index (search_index) VALUES ('optimize')");
}

/**
 * `buildSearchIndex` for a local wrangler state (a bench's server, stopped), into `shards` shards (decision 042:
 * document d in shard d mod n; 1, as wrangler.toml binds, or BENCH_SEARCH_SHARDS): each database's SQLite file is
 * found by the id miniflare derives from its database id. A state already built in that layout is left alone.
 */
export function buildSearchIndexOfState(persistDir, shards = 1) {
  const catalogFile = d1FileOf(persistDir, databaseIdOf("DB"));
  // the number of shards the feed then writes for (migration 0057)
  const catalog = new DatabaseSync(catalogFile);
  try {
    catalog.prepare("UPDATE search_layout SET shards = ? WHERE id = 1").run(shards);
  } finally {
    catalog.close();
  }
  const layout = join(persistDir, "search-layout");
  if (existsSync(layout) && readFileSync(layout, "utf8") === String(shards)) return;
  for (let i = 0; i < shards; i++) {
    const search = new DatabaseSync(d1FileOf(persistDir, searchShardIdOf(i)));
    const detach = attachCatalog(search, catalogFile);
    try {
      buildSearchIndex(search, shards > 1 ? ` AND d.doc_id % ${shards} = ${i}` : "");
    } finally {
      detach();
      search.close();
    }
  }
  writeFileSync(layout, String(shards));
}

/**
 * One slice of the index's feed as `indexSlice` runs it (workers/db/repositories/search-feed.repository.ts), for
 * node:sqlite with the catalog attached to the SEARCH handle as `catalog`: the lowest `size` pending documents read
 * from the catalog, written to the index, their marks dropped. Returns how many it took.
 */
export function feedSlice(search, size = 200) {
  const slice = `(SELECT doc_id FROM catalog.search_pending ORDER BY doc_id LIMIT ${size})`;
  search.exec("BEGIN");
  const taken = search.prepare(`SELECT count(*) AS n FROM ${slice}`).get().n;
  search.exec(`DELETE FROM search_index WHERE rowid IN ${slice}`);
  search.exec(`INSERT INTO search_index (rowid, name, meta, content, acl) ${CATALOG_DOCUMENTS(` AND d.doc_id IN ${slice}`)}`);
  search.exec(`DELETE FROM catalog.search_pending WHERE doc_id IN ${slice}`);
  search.exec("COMMIT");
  return taken;
}

/** The migrations of one folder (`migrations`, `migrations-search`), applied in order to a node:sqlite handle. */
export function applyMigrations(db, root, folder) {
  const dir = join(root, folder);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  for (const name of files) db.exec(readFileSync(join(dir, name), "utf8").replaceAll("--> statement-breakpoint", ""));
  return files.length;
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
