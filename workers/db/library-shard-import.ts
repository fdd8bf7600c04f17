import { listedFiles, noteShared } from "./library-shared-files";
import { JSON_IDS, LIBRARY_TABLES } from "./library-tables";
import type { Row, TableRows } from "./repositories/library-move.repository";

/**
 * Inside a library shard: the rows of some of its entities replaced by the global database's, exactly (decision 043).
 * One transaction: the entities' rows are deleted and inserted again as they are in D1, with the shard's triggers set
 * aside meanwhile — the rows the triggers maintain (rollups, totals, revisions) are copied like any other, and would
 * be counted twice if the triggers ran. The global rows they name are upserted beside them (never deleted: other
 * rows of the shard may name them too). Each database's own caches of a folder's order (seek lists) are dropped for
 * the folders whose members changed, and the shard's shared files worked out again. Repeating an import changes
 * nothing, which is what makes a move resumable.
 */
export function importLibraryRows(storage: DurableObjectStorage, ids: string[], tables: TableRows[], references: TableRows[]): void {
  withoutTriggers(
    storage,
    (sql) => [...holdingRowsOf(sql, ids), ...namesOf(tables), ...namesOf(references)],
    (sql) => {
      const listed = listingsIn(tables);
      const stale = foldersListing(sql, [...ids, ...listed]);
      const json = JSON.stringify(ids);
      for (const table of LIBRARY_TABLES) sql.exec(`DELETE FROM ${table.name} WHERE ${table.of(JSON_IDS)}`, json);
      for (const { table, rows } of references) for (const row of rows) upsert(sql, table, row);
      for (const { table, rows } of tables) for (const row of rows) insert(sql, table, row, "");
      noteShared(sql, [...ids, ...listed], ids);
      forgetSeekLists(sql, [...stale, ...foldersListing(sql, [...ids, ...listed])]);
    },
  );
}

/**
 * A change across libraries brought in (decision 046): like `importLibraryRows`, but a folder keeps its listings of
 * files — one folder may list hundreds of thousands, and a change touches a few — while the listings of the files
 * the change touched (`assets`), wherever they are in this library, are replaced by the catalog's (`listings`). A
 * file's listing changing journals the file too, so the listings that changed are exactly theirs.
 */
export function importCrossedRows(
  storage: DurableObjectStorage,
  written: string[],
  unknown: string[],
  assets: string[],
  tables: TableRows[],
  references: TableRows[],
  listings: Row[],
): void {
  const ids = entitiesReplaced(storage.sql, written, unknown);
  const writes = (sql: SqlStorage) => [...holdingRowsOf(sql, ids), ...namesOf(tables), ...namesOf(references), "group_members"];
  withoutTriggers(storage, writes, (sql) => {
    const touched = [...ids, ...assets, ...listedFiles(listings)];
    const stale = foldersListing(sql, touched);
    const json = JSON.stringify(ids);
    for (const table of LIBRARY_TABLES) {
      const keep = table.name === "group_members" ? " AND el_type <> 'asset'" : "";
      sql.exec(`DELETE FROM ${table.name} WHERE ${table.of(JSON_IDS)}${keep}`, json);
    }
    sql.exec("DELETE FROM group_members WHERE el_type = 'asset' AND el_id IN (SELECT value FROM json_each(?))", JSON.stringify(assets));
    for (const { table, rows } of references) for (const row of rows) upsert(sql, table, row);
    for (const { table, rows } of tables) for (const row of rows) insert(sql, table, row, "");
    for (const row of listings) insert(sql, "group_members", row, "ON CONFLICT DO NOTHING");
    noteShared(sql, touched);
    forgetSeekLists(sql, [...stale, ...foldersListing(sql, touched)]);
  });
}

/**
 * More rows of entities just imported — a folder's listings of files, page by page after the folder itself — with
 * the triggers set aside in the same way. A page applied twice changes nothing.
 */
export function appendLibraryRows(storage: DurableObjectStorage, tables: TableRows[]): void {
  withoutTriggers(
    storage,
    () => namesOf(tables),
    (sql) => {
      for (const { table, rows } of tables) for (const row of rows) insert(sql, table, row, "ON CONFLICT DO NOTHING");
      const listed = listingsIn(tables);
      noteShared(sql, listed);
      forgetSeekLists(sql, foldersListing(sql, listed));
    },
  );
}

/**
 * Of the entities a change across wrote, those whose rows here an import replaces: all but the ids the catalog holds
 * no file or folder for (`unknown`) and this shard does not hold either. Such an id is a file whose upload is
 * under way here (its pending version is keyed by an asset id that exists nowhere until the commit; written back with
 * the crossing's hold, it reaches the journal): its rows are left alone, or its upload would answer 404 after its
 * body. A file this shard holds that the catalog no longer does (purged meanwhile) goes; so do rows of a file the
 * catalog holds elsewhere that an upload's last steps wrote here after the file had left.
 */
function entitiesReplaced(sql: SqlStorage, written: string[], unknown: string[]): string[] {
  if (unknown.length === 0) return written;
  const held = new Set(
    sql
      .exec<{ id: string }>(
        "SELECT id FROM assets WHERE id IN (SELECT value FROM json_each(?1)) UNION SELECT id FROM groups WHERE id IN (SELECT value FROM json_each(?1))",
        JSON.stringify(unknown),
      )
      .toArray()
      .map((r) => r.id),
  );
  const left = new Set(unknown.filter((id) => !held.has(id)));
  return written.filter((id) => !left.has(id));
}

/** Folders `ids` themselves and the folders that list any of them (a folder lists files and folders). */
function foldersListing(sql: SqlStorage, ids: string[]): string[] {
  const json = JSON.stringify(ids);
  return sql
    .exec<{ id: string }>(
      "SELECT value AS id FROM json_each(?1) UNION SELECT group_id FROM group_members WHERE el_id IN (SELECT value FROM json_each(?1))",
      json,
    )
    .toArray()
    .map((r) => r.id);
}

/**
 * The seek lists (decision 017) of folders whose members an import changed, dropped: triggers keep a list's spans
 * exact as members come and go, and an import sets them aside. The next deep page builds the list afresh.
 */
function forgetSeekLists(sql: SqlStorage, folders: string[]): void {
  const json = JSON.stringify([...new Set(folders)]);
  sql.exec("DELETE FROM member_seek WHERE group_id IN (SELECT value FROM json_each(?))", json);
  sql.exec("DELETE FROM member_seek_lists WHERE group_id IN (SELECT value FROM json_each(?))", json);
}

/** The files listed by an import's `group_members` rows. */
function listingsIn(tables: TableRows[]): string[] {
  return tables.flatMap(({ table, rows }) => (table === "group_members" ? listedFiles(rows) : []));
}

/**
 * `work` run in one transaction with the triggers of the tables it writes set aside: those `writes` names (worked out
 * before it, inside the transaction) and the shard's own tables every import keeps by hand (listings, shared files,
 * seek lists). A trigger on another table fires on nothing, since only the tables named are written; setting aside
 * only these — about a third of the schema's triggers for a change to a few files — is most of what an import costs.
 */
function withoutTriggers(
  storage: DurableObjectStorage,
  writes: (sql: SqlStorage) => Iterable<string>,
  work: (sql: SqlStorage) => void,
): void {
  const sql = storage.sql;
  storage.transactionSync(() => {
    const tables = JSON.stringify([...new Set([...writes(sql), ...KEPT_BY_IMPORTS])]);
    const triggers = sql
      .exec<{ name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (SELECT value FROM json_each(?))",
        tables,
      )
      .toArray();
    for (const trigger of triggers) sql.exec(`DROP TRIGGER "${trigger.name}"`);
    work(sql);
    for (const trigger of triggers) sql.exec(trigger.sql);
  });
}

/** Tables every import writes besides the rows it brings: listings, the shard's shared files, the seek lists. */
const KEPT_BY_IMPORTS = ["group_members", "shard_shared", "member_seek", "member_seek_lists"];

/** The library tables holding rows of entities `ids` (an import deletes them before it inserts the catalog's). */
function holdingRowsOf(sql: SqlStorage, ids: string[]): string[] {
  const row = sql
    .exec<Record<string, number>>(
      `SELECT ${LIBRARY_TABLES.map(
        (t) => `EXISTS (SELECT 1 FROM ${t.name} WHERE ${t.of("SELECT value FROM json_each(?1)")}) AS "${t.name}"`,
      ).join(", ")}`,
      JSON.stringify(ids),
    )
    .one();
  return LIBRARY_TABLES.map((t) => t.name).filter((name) => row[name] === 1);
}

const namesOf = (tables: TableRows[]): string[] => tables.filter((t) => t.rows.length > 0).map((t) => t.table);

/** D1 hands BLOBs over as arrays of byte values; the storage API binds an ArrayBuffer. */
function bound(value: unknown): SqlStorageValue {
  return Array.isArray(value) ? new Uint8Array(value as number[]).buffer : (value as SqlStorageValue);
}

function insert(sql: SqlStorage, table: string, row: Row, onConflict: string): void {
  const columns = Object.keys(row);
  sql.exec(
    `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) ${onConflict}`,
    ...columns.map((c) => bound(row[c])),
  );
}

/** A global row's copy made current; a stale copy of someone who has since given up this login lets it go first. */
function upsert(sql: SqlStorage, table: string, row: Row): void {
  if (table === "users")
    sql.exec("UPDATE users SET login = id WHERE lower(login) = lower(?) AND id <> ?", row.login as string, row.id as string);
  const set = Object.keys(row)
    .filter((c) => c !== "id")
    .map((c) => `"${c}" = excluded."${c}"`);
  insert(sql, table, row, `ON CONFLICT (id) DO UPDATE SET ${set.join(", ")}`);
}

/**
 * Inside a shard: its copies of global rows made current (the minute cron sends what changed, decision 043). Only
 * copies the shard has are updated — it copies just the rows its own rows name — with its triggers running, so its
 * answer caches see the change.
 */
export function refreshCopies(storage: DurableObjectStorage, tables: TableRows[]): number {
  const sql = storage.sql;
  let updated = 0;
  storage.transactionSync(() => {
    sql.exec("INSERT OR IGNORE INTO shard_quiet (id) VALUES (1)");
    for (const { table, rows } of tables) {
      for (const row of rows) {
        const held = sql.exec(`SELECT 1 FROM ${table} WHERE id = ?`, row.id as string).toArray().length > 0;
        // A folder of the library is the shard's own: the catalog's copy of it follows the shard, never the reverse.
        if (!held || (table === "groups" && ownFolder(sql, row.id as string))) continue;
        if (table === "users")
          sql.exec("UPDATE users SET login = id WHERE lower(login) = lower(?) AND id <> ?", row.login as string, row.id as string);
        const columns = Object.keys(row).filter((c) => c !== "id");
        sql.exec(
          `UPDATE ${table} SET ${columns.map((c) => `"${c}" = ?`).join(", ")} WHERE id = ?`,
          ...columns.map((c) => bound(row[c])),
          row.id as string,
        );
        updated++;
      }
    }
    sql.exec("DELETE FROM shard_quiet");
  });
  return updated;
}

/** One statement of a global change, as SQL with its bound values: the same text runs in the catalog and in a shard. */
export interface GlobalStatement {
  sql: string;
  binds: readonly (string | number | null)[];
}

/**
 * Inside a shard, while the change across that makes it holds the shard: a global change's statements run over its
 * rows in one transaction (decision 050), its triggers running (rollups, answer caches) but its change log quiet — the
 * catalog made the same change already — and the hold's guard set aside for them alone (nothing else runs meanwhile:
 * the transaction is synchronous).
 */
export function applyGlobalStatements(storage: DurableObjectStorage, statements: readonly GlobalStatement[]): void {
  const sql = storage.sql;
  storage.transactionSync(() => {
    const holds = sql.exec<{ crossing_id: string; since: number }>("SELECT crossing_id, since FROM shard_holds").toArray();
    sql.exec("DELETE FROM shard_holds");
    sql.exec("INSERT OR IGNORE INTO shard_quiet (id) VALUES (1)");
    // Each stepped to its end: a statement with RETURNING left half-read keeps the transaction from committing.
    for (const s of statements) for (const _ of sql.exec(s.sql, ...s.binds));
    sql.exec("DELETE FROM shard_quiet");
    for (const h of holds) sql.exec("INSERT INTO shard_holds (crossing_id, since) VALUES (?, ?)", h.crossing_id, h.since);
  });
}

const ownFolder = (sql: SqlStorage, id: string) =>
  sql.exec("SELECT 1 FROM group_closure c JOIN shard_libraries l ON l.library_id = c.ancestor WHERE c.descendant = ?", id).toArray()
    .length > 0;

/**
 * Inside a shard: global rows a routed write names (a class, its field templates, tags, a storage, people and groups
 * of users) upserted as the catalog has them, so the service's checks in the shard find them; never logged as the
 * shard's own changes, and never over one of the library's own folders (the catalog's copy of it follows the shard).
 */
export function storeGlobals(storage: DurableObjectStorage, tables: TableRows[]): void {
  const sql = storage.sql;
  if (tables.every((t) => t.rows.length === 0)) return;
  storage.transactionSync(() => {
    sql.exec("INSERT OR IGNORE INTO shard_quiet (id) VALUES (1)");
    for (const { table, rows } of tables)
      for (const row of rows) if (!(table === "groups" && ownFolder(sql, row.id as string))) upsert(sql, table, row);
    sql.exec("DELETE FROM shard_quiet");
  });
}
