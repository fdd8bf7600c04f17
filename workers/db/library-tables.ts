/**
 * The catalog tables a library takes into its shard (decision 043), and how each table's rows are found from the
 * entities they belong to: a folder of the library (its row, closure, memberships, rollup) or an asset whose home is
 * the library (its row and everything keyed by it); rules, switches, fields, tags, classifications and links belong to
 * the folder or asset they are on. The move copies, re-copies and counts rows entity by entity with these conditions,
 * in the global database and in the shard alike. Migration 0058's journal triggers cover exactly these tables (a test
 * compares them). Left out on purpose: the seek caches (`member_seek*`), which a shard rebuilds on its first read, and
 * everything global (users, groups of users, classes, templates, the vocabulary, the outbox, logs, the shop).
 */
export interface LibraryTable {
  name: string;
  /** SQL condition on the table's rows belonging to the entities `set` selects (a subquery yielding ids) */
  of: (set: string) => string;
  /** its primary key's columns: a row changed in a shard is written back by it */
  key: readonly string[];
}

const by = (column: string) => (set: string) => `${column} IN (${set})`;

/** Tables keyed by the asset they belong to, with their primary keys. */
const ASSET_KEYED: Record<string, readonly string[]> = {
  asset_totals: ["asset_id"],
  asset_versions: ["id"],
  previews: ["id"],
  comments: ["id"],
  comment_revisions: ["asset_id"],
  asset_follows: ["asset_id", "user_id"],
  review_decisions: ["decision_id"],
  review_requests: ["request_id"],
  heal_candidates: ["id"],
  search_content: ["asset_id"],
};

/** In dependency order for deleting (a table whose condition reads another comes before it). */
export const LIBRARY_TABLES: readonly LibraryTable[] = [
  {
    name: "upload_parts",
    of: (set) => `variant_id IN (SELECT id FROM variants WHERE asset_id IN (${set}))`,
    key: ["variant_id", "part_number"],
  },
  { name: "variants", of: by("asset_id"), key: ["id"] },
  ...Object.entries(ASSET_KEYED).map(([name, key]) => ({ name, of: by("asset_id"), key })),
  { name: "assets", of: by("id"), key: ["id"] },
  { name: "groups", of: by("id"), key: ["id"] },
  { name: "group_closure", of: by("descendant"), key: ["ancestor", "descendant"] },
  { name: "group_members", of: by("group_id"), key: ["group_id", "el_id"] },
  { name: "folder_rollups", of: by("group_id"), key: ["group_id"] },
  { name: "access_rules", of: by("obj_id"), key: ["id"] },
  { name: "access_inheritance", of: by("entity_id"), key: ["entity_id"] },
  { name: "field_values", of: by("entity_id"), key: ["id"] },
  { name: "entity_tags", of: by("entity_id"), key: ["tag_id", "entity_id"] },
  { name: "taxon_members", of: by("object_id"), key: ["taxon_id", "object_id"] },
  { name: "shortlinks", of: by("entity_id"), key: ["id"] },
];

/**
 * Library tables whose rows may weigh a lot, copied by weight rather than by count (a call into a shard carries 32 MiB
 * at most): a file's extracted text (up to 200,000 characters, `MAX_INDEX_CHARS`) and its comments (10,000 characters
 * each, as many as people write). Both belong to a file by `asset_id`; `key` orders a file's rows for paging, and
 * `weight` is an SQL expression of a row's bytes.
 */
export const HEAVY_TABLES: readonly { name: string; key: string; weight: string }[] = [
  { name: "search_content", key: "asset_id", weight: "coalesce(length(CAST(text AS BLOB)), 0)" },
  {
    name: "comments",
    key: "id",
    weight: "length(CAST(text AS BLOB)) + length(CAST(mentions AS BLOB)) + coalesce(length(CAST(anchor AS BLOB)), 0)",
  },
];

/** The entities of a JSON array bound as one parameter (any count: D1 binds at most 100 parameters). */
export const JSON_IDS = "SELECT value FROM json_each(?)";

/**
 * Whether asset `asset` (an SQL expression) has its home in library `?1`: its earliest listing lies in the library
 * (the folder it was uploaded into; decision 043). An asset also listed in other libraries is read from its home.
 */
export const HOMED_IN_LIBRARY = (asset: string) =>
  `EXISTS (SELECT 1 FROM group_closure hc WHERE hc.ancestor = ?1 AND hc.descendant = (
     SELECT hm.group_id FROM group_members hm WHERE hm.el_id = ${asset} AND hm.el_type = 'asset'
     ORDER BY hm.ctime, hm.group_id LIMIT 1))`;

/** The library's entities, as a subquery over library `?1`: its folders and the assets whose home it is. */
export const LIBRARY_ENTITIES = `SELECT descendant FROM group_closure WHERE ancestor = ?1
  UNION ALL SELECT DISTINCT m.el_id FROM group_members m JOIN group_closure f ON f.descendant = m.group_id AND f.ancestor = ?1
  WHERE m.el_type = 'asset' AND ${HOMED_IN_LIBRARY("m.el_id")}`;

function countsSql(entities: string): string {
  return `WITH e(id) AS MATERIALIZED (${entities}) SELECT ${LIBRARY_TABLES.map(
    (t) => `(SELECT count(*) FROM ${t.name} WHERE ${t.of("SELECT id FROM e")}) AS ${t.name}`,
  ).join(", ")}`;
}

/** Per library table, its rows belonging to library `?1` (one statement over the whole library: for the tests). */
export const LIBRARY_COUNTS = countsSql(LIBRARY_ENTITIES);

/** Per library table, its rows belonging to the entities of the JSON array `?1`: the move's check, slice by slice. */
export const ENTITY_COUNTS = countsSql(JSON_IDS.replace("?", "?1"));
