import { ENTITY_COUNTS, HEAVY_TABLES, HOMED_IN_LIBRARY, JSON_IDS, LIBRARY_COUNTS, LIBRARY_TABLES } from "../library-tables";
import { ROOT_GROUP_ID } from "../../lib/ids";

/**
 * The global database's side of moving a library into its shard (decision 043, migration 0058): the directory row
 * that records the move's state and progress, the slices of the library's entities, their rows and the global rows
 * they name, the journal of what was written meanwhile, and the switch. Raw statements over `D1Database`: they are
 * the same for every table, and the counts run in the shard as well (through `SqlStorageClient`).
 */

export type MoveState = "copying" | "moving" | "shard";
/**
 * The move's next step: copy the folders, then the assets, apply the journal until it is short, check the shard
 * against D1 while writes go on, then pause for the last entries and switch.
 */
export type MoveStep = "folders" | "assets" | "catch-up" | "check" | "final" | "done";

export interface LibraryMove {
  libraryId: string;
  name: string;
  shard: number;
  state: MoveState;
  step: MoveStep;
  /** the last entity id copied in this step ('' before the first) */
  cursor: string;
  /** journal entries up to this one are applied to the shard */
  journalSeq: number;
  /** the journal position at which the shard was found to hold exactly what D1 holds (null: not checked yet) */
  checkedSeq: number | null;
  error: string | null;
  startedAt: number;
  updatedAt: number;
  switchedAt: number | null;
}

export type Row = Record<string, unknown>;
export interface TableRows {
  table: string;
  rows: Row[];
}

type Catalog = Pick<D1Database, "prepare" | "batch">;

const MOVE_COLUMNS = `library_id AS libraryId, name, shard, state, step, cursor, journal_seq AS journalSeq,
  checked_seq AS checkedSeq, error,
  started_at AS startedAt, updated_at AS updatedAt, switched_at AS switchedAt`;

export async function readMove(db: D1Database, libraryId: string): Promise<LibraryMove | null> {
  return db.prepare(`SELECT ${MOVE_COLUMNS} FROM library_directory WHERE library_id = ?`).bind(libraryId).first<LibraryMove>();
}

export async function listMoves(db: D1Database): Promise<LibraryMove[]> {
  const { results } = await db.prepare(`SELECT ${MOVE_COLUMNS} FROM library_directory ORDER BY shard`).all<LibraryMove>();
  return results;
}

/**
 * Starts a move: the directory row, in state `copying` from the journal's current end, so everything written to the
 * catalog from now on is journaled. The shard number is the next free one. Null when the library is moving or moved.
 */
export async function insertMove(db: D1Database, libraryId: string, name: string, now: number): Promise<LibraryMove | null> {
  const inserted = await db
    .prepare(
      `INSERT INTO library_directory (library_id, name, shard, state, step, journal_seq, started_at, updated_at)
       SELECT ?1, ?2, coalesce((SELECT max(shard) FROM library_directory), 0) + 1, 'copying', 'folders',
         coalesce((SELECT max(seq) FROM library_move_journal), 0), ?3, ?3
       ON CONFLICT (library_id) DO NOTHING`,
    )
    .bind(libraryId, name, now)
    .run();
  return inserted.meta.changes > 0 ? readMove(db, libraryId) : null;
}

export async function saveProgress(
  db: D1Database,
  move: Pick<LibraryMove, "libraryId" | "step" | "cursor" | "journalSeq" | "checkedSeq" | "error">,
  state: MoveState,
  now: number,
): Promise<void> {
  await db
    .prepare(
      `UPDATE library_directory SET state = ?2, step = ?3, cursor = ?4, journal_seq = ?5, checked_seq = ?6, error = ?7,
         updated_at = ?8 WHERE library_id = ?1`,
    )
    .bind(move.libraryId, state, move.step, move.cursor, move.journalSeq, move.checkedSeq, move.error, now)
    .run();
}

/** The next `n` folders of the library after `cursor`, by id. */
export async function nextFolders(db: D1Database, libraryId: string, cursor: string, n: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT descendant AS id FROM group_closure WHERE ancestor = ?1 AND descendant > ?2 ORDER BY descendant LIMIT ?3")
    .bind(libraryId, cursor, n)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/**
 * The library's next `n` listings of assets after `cursor` ("folder:asset", by folder then asset: the listings'
 * primary key, so each slice is an index range), and the assets whose home listing (their earliest) is one of them:
 * each asset homed in the library once over the whole walk. A walk over the library's own listings: moving one
 * library of many reads that library, not the catalog.
 */
export async function nextAssets(
  db: D1Database,
  libraryId: string,
  cursor: string,
  n: number,
): Promise<{ last: string | null; homed: string[] }> {
  const [folder = "", asset = ""] = cursor.split(":");
  const { results } = await db
    .prepare(
      `SELECT m.group_id AS folder, m.el_id AS id, (
         SELECT hm.group_id FROM group_members hm WHERE hm.el_id = m.el_id AND hm.el_type = 'asset'
         ORDER BY hm.ctime, hm.group_id LIMIT 1) = m.group_id AS homed
       FROM group_closure f JOIN group_members m ON m.group_id = f.descendant
       WHERE f.ancestor = ?1 AND f.descendant >= ?2 AND m.el_type = 'asset' AND (m.group_id > ?2 OR m.el_id > ?3)
       ORDER BY f.descendant, m.el_id LIMIT ?4`,
    )
    .bind(libraryId, folder, asset, n)
    .all<{ folder: string; id: string; homed: number }>();
  const end = results.at(-1);
  return { last: end ? `${end.folder}:${end.id}` : null, homed: results.filter((r) => r.homed).map((r) => r.id) };
}

/** Of `ids`, those that belong to the library now: its folders and the assets whose home it is. */
export async function belonging(db: Catalog, libraryId: string, ids: string[]): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT j.value AS id FROM json_each(?2) j
       WHERE EXISTS (SELECT 1 FROM group_closure WHERE ancestor = ?1 AND descendant = j.value) OR ${HOMED_IN_LIBRARY("j.value")}`,
    )
    .bind(libraryId, JSON.stringify(ids))
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Every library table's rows of the entities, in one round trip (the move's property test compares two copies so). */
export async function rowsOf(db: Catalog, ids: string[]): Promise<TableRows[]> {
  const json = JSON.stringify(ids);
  const results = await db.batch(LIBRARY_TABLES.map((t) => db.prepare(`SELECT * FROM ${t.name} WHERE ${t.of(JSON_IDS)}`).bind(json)));
  return LIBRARY_TABLES.map((t, i) => ({ table: t.name, rows: results[i].results as Row[] }));
}

/**
 * The rows a copy into a shard brings in one call — `rowsOf` without the listings of files — with the rows of each
 * heavy table (`HEAVY_TABLES`: extracted texts, comments) only as far as `bytes` of them, in the same round trip: one
 * text may weigh 400 KB and one file may carry thousands of comments, and a slice of 200 books was 80 MB, past the
 * 32 MiB one call may carry. `heavyLeft`: the heavy tables whose rows follow (`heavyPage`, after the last key sent);
 * none but for heavy slices.
 */
export async function rowsToCopy(
  db: Catalog,
  ids: string[],
  bytes: number,
): Promise<{ tables: TableRows[]; heavyLeft: { table: string; after: string }[] }> {
  const json = JSON.stringify(ids);
  const others = LIBRARY_TABLES.filter((t) => !HEAVY_TABLES.some((h) => h.name === t.name));
  const results = await db.batch([
    // Not the folders' listings of files: one folder may list hundreds of thousands, read a page at a time (`listingsAfter`).
    ...others.map((t) =>
      db
        .prepare(`SELECT * FROM ${t.name} WHERE ${t.of(JSON_IDS)}${t.name === "group_members" ? " AND el_type <> 'asset'" : ""}`)
        .bind(json),
    ),
    ...HEAVY_TABLES.flatMap((h) => heavyStatements(db, h, json, "", bytes)),
  ]);
  const heavy = HEAVY_TABLES.map((h, i) =>
    heavyAnswer(h, results[others.length + 2 * i].results, results[others.length + 2 * i + 1].results),
  );
  return {
    tables: [...others.map((t, i) => ({ table: t.name, rows: results[i].results as Row[] })), ...heavy.map((h) => h.rows)],
    heavyLeft: heavy.filter((h) => h.more).map((h) => ({ table: h.rows.table, after: h.last })),
  };
}

/** The next rows of heavy table `table` of files `ids` after key `after`, as far as `bytes` of them (one at least). */
export async function heavyPage(
  db: Catalog,
  table: string,
  ids: string[],
  after: string,
  bytes: number,
): Promise<{ rows: TableRows; last: string; more: boolean }> {
  const h = HEAVY_TABLES.find((t) => t.name === table)!;
  const [rows, more] = await db.batch(heavyStatements(db, h, JSON.stringify(ids), after, bytes));
  return heavyAnswer(h, rows.results, more.results);
}

type Heavy = (typeof HEAVY_TABLES)[number];

/**
 * A page of a heavy table's rows in key order: those that begin within `bytes` (a window over their weights, so the
 * page passes `bytes` by one row at most and holds one at least), and whether any row is left after it.
 */
function heavyStatements(db: Catalog, h: Heavy, json: string, after: string, bytes: number) {
  const window = `SELECT ${h.key} AS k, ${h.weight} AS size, sum(${h.weight}) OVER (ORDER BY ${h.key}) AS run FROM ${h.name}
    WHERE asset_id IN (SELECT value FROM json_each(?1)) AND ${h.key} > ?2`;
  return [
    db
      .prepare(`SELECT * FROM ${h.name} WHERE ${h.key} IN (SELECT k FROM (${window}) WHERE run - size < ?3) ORDER BY ${h.key}`)
      .bind(json, after, bytes),
    db.prepare(`SELECT EXISTS (SELECT 1 FROM (${window}) WHERE run - size >= ?3) AS more`).bind(json, after, bytes),
  ];
}

function heavyAnswer(h: Heavy, rows: unknown[], more: unknown[]): { rows: TableRows; last: string; more: boolean } {
  const found = rows as Row[];
  return {
    rows: { table: h.name, rows: found },
    last: String(found.at(-1)?.[h.key] ?? ""),
    more: (more[0] as { more: number }).more === 1,
  };
}

/** The next `n` listings of files in folders `ids` after `cursor` ("folder:asset", the listings' primary key). */
export async function listingsAfter(db: Catalog, ids: string[], cursor: string, n: number): Promise<{ rows: Row[]; last: string }> {
  const [folder = "", asset = ""] = cursor.split(":");
  const { results } = await db
    .prepare(
      `SELECT * FROM group_members WHERE group_id IN (${JSON_IDS}) AND el_type = 'asset' AND (group_id > ?2 OR (group_id = ?2 AND el_id > ?3))
       ORDER BY group_id, el_id LIMIT ?4`,
    )
    .bind(JSON.stringify(ids), folder, asset, n)
    .all<Row>();
  const end = results.at(-1);
  return { rows: results, last: end ? `${end.group_id}:${end.el_id}` : cursor };
}

/** The columns a shard copies of each global table it keeps copies of: never a password hash. */
export const COPIED_COLUMNS: Record<string, string> = {
  users: "id, login, name, is_admin, is_robot, enabled, chroot_groups, default_storage, ctime, mtime",
  groups: "*",
  tags: "*",
  taxa: "*",
  asset_classes: "*",
  field_templates: "*",
  storages: "id, name, kind, url, bucket, region, ctime, mtime",
};

/**
 * Global rows the library's rows name, copied into the shard beside them (decision 043): people (authors, owners,
 * rule subjects), groups of users that rules name, and the vocabulary's tags, classes, classifications and field
 * templates, which the shard's queries join for names.
 */
const REFERENCES: { table: string; from: (t: TableRows) => unknown[] }[] = [
  {
    table: "users",
    from: ({ rows }) =>
      rows.flatMap((r) => [
        ...["owner_id", "creator_id", "created_by", "author_id", "user_id", "by_id", "requester_id", "reviewer_id", "revoked_by"].map(
          (c) => r[c],
        ),
        r.subj_type === "user" ? r.subj_id : null,
      ]),
  },
  {
    table: "groups",
    from: ({ table, rows }) => (table === "access_rules" ? rows.map((r) => (r.subj_type === "group" ? r.subj_id : null)) : []),
  },
  { table: "tags", from: ({ table, rows }) => (table === "entity_tags" ? rows.map((r) => r.tag_id) : []) },
  { table: "taxa", from: ({ table, rows }) => (table === "taxon_members" ? rows.map((r) => r.taxon_id) : []) },
  { table: "asset_classes", from: ({ table, rows }) => (table === "assets" ? rows.map((r) => r.class_id) : []) },
  { table: "field_templates", from: ({ table, rows }) => (table === "field_values" ? rows.map((r) => r.def_id) : []) },
];

/** The rows of global tables a shard keeps copies of, by table and id, in one round trip. */
export async function copiedRows(db: D1Database, wanted: { table: string; ids: string[] }[]): Promise<TableRows[]> {
  const asked = wanted.map((w) => ({ ...w, ids: w.ids.filter((id) => id !== ROOT_GROUP_ID) })).filter((w) => w.ids.length > 0);
  if (asked.length === 0) return [];
  const results = await db.batch(
    asked.map(({ table, ids }) =>
      db.prepare(`SELECT ${COPIED_COLUMNS[table]} FROM ${table} WHERE id IN (${JSON_IDS})`).bind(JSON.stringify(ids)),
    ),
  );
  return asked.map(({ table }, i) => ({ table, rows: results[i].results as Row[] }));
}

export function referencesOf(db: D1Database, tables: TableRows[]): Promise<TableRows[]> {
  return copiedRows(
    db,
    REFERENCES.map((ref) => ({
      table: ref.table,
      ids: [...new Set(tables.flatMap(ref.from).filter((v): v is string => typeof v === "string"))],
    })),
  );
}

/**
 * The global rows a write names, for a shard to check them against (decision 043, «Writes»): classes with the field
 * templates they define, field templates, tags, storages (never their credentials), people by the logins a comment mentions (never
 * their password hash).
 */
export async function globalsNamed(
  db: D1Database,
  named: {
    classes?: string[];
    templates?: string[];
    tags?: string[];
    taxa?: string[];
    storages?: string[];
    logins?: string[];
    /** people and groups of users by id (the subjects of rules) */
    subjects?: string[];
  },
): Promise<TableRows[]> {
  const classes = named.classes ?? [];
  const templates = classes.length
    ? (
        await db
          .prepare(`SELECT DISTINCT d.value AS id FROM asset_classes c, json_each(c.def_fields) d WHERE c.id IN (${JSON_IDS})`)
          .bind(JSON.stringify(classes))
          .all<{ id: string }>()
      ).results.map((r) => r.id)
    : [];
  const logins = named.logins ?? [];
  const people = logins.length
    ? (
        await db
          .prepare(`SELECT id FROM users WHERE lower(login) IN (SELECT lower(value) FROM json_each(?))`)
          .bind(JSON.stringify(logins))
          .all<{ id: string }>()
      ).results.map((r) => r.id)
    : [];
  return copiedRows(db, [
    { table: "asset_classes", ids: classes },
    { table: "field_templates", ids: [...templates, ...(named.templates ?? [])] },
    { table: "tags", ids: named.tags ?? [] },
    { table: "taxa", ids: named.taxa ?? [] },
    { table: "storages", ids: named.storages ?? [] },
    { table: "users", ids: [...people, ...(named.subjects ?? [])] },
    { table: "groups", ids: named.subjects ?? [] },
  ]);
}

/** Whether a library is being switched into its shard right now (its writes are refused for seconds). */
export async function anyLibraryMoving(db: D1Database): Promise<boolean> {
  return (await db.prepare("SELECT 1 AS found FROM library_directory WHERE state = 'moving' LIMIT 1").first()) !== null;
}

/** Whether any of the folders and files `ids` lives elsewhere than in switched library `libraryId`. */
export async function outsideLibrary(db: D1Database, libraryId: string, ids: string[]): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS found FROM json_each(?2) j
       WHERE NOT EXISTS (SELECT 1 FROM id_directory d WHERE d.id = j.value AND d.library_id = ?1) LIMIT 1`,
    )
    .bind(libraryId, JSON.stringify(ids))
    .first();
  return row !== null;
}

/** Whether any of the files `ids` (folders among them are passed over) is listed outside library `libraryId` too. */
export async function listedOutsideLibrary(db: D1Database, libraryId: string, ids: string[]): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS found FROM group_members m WHERE m.el_id IN (${JSON_IDS.replace("?", "?2")}) AND m.el_type = 'asset'
         AND NOT EXISTS (SELECT 1 FROM group_closure c WHERE c.ancestor = ?1 AND c.descendant = m.group_id) LIMIT 1`,
    )
    .bind(libraryId, JSON.stringify(ids))
    .first<{ found: number }>();
  return row !== null;
}

/** Whether any of the files `ids` is listed in folder `groupId` and nowhere else (taking it out would leave it in no library). */
export async function listedOnlyIn(db: D1Database, groupId: string, ids: string[]): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT 1 AS found FROM json_each(?2) j
       WHERE EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = ?1 AND m.el_id = j.value AND m.el_type = 'asset')
         AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.el_id = j.value AND m.group_id <> ?1) LIMIT 1`,
    )
    .bind(groupId, JSON.stringify(ids))
    .first();
  return row !== null;
}

/** The next `n` changes of copied global rows (migration 0059): the last entry's number and the rows, by table. */
export async function copyJournal(db: D1Database, n: number): Promise<{ last: number; wanted: { table: string; ids: string[] }[] }> {
  const { results } = await db
    .prepare("SELECT seq, table_name AS t, row_id AS id FROM shard_copy_journal ORDER BY seq LIMIT ?")
    .bind(n)
    .all<{ seq: number; t: string; id: string }>();
  const byTable = new Map<string, Set<string>>();
  for (const r of results) byTable.set(r.t, (byTable.get(r.t) ?? new Set()).add(r.id));
  return { last: results.at(-1)?.seq ?? 0, wanted: [...byTable].map(([table, ids]) => ({ table, ids: [...ids] })) };
}

export async function clearCopyJournal(db: D1Database, upTo: number): Promise<void> {
  await db.prepare("DELETE FROM shard_copy_journal WHERE seq <= ?").bind(upTo).run();
}

/** The shards that hold a switched library: every one of them gets the changed copies. */
export async function switchedShards(db: D1Database): Promise<number[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT shard FROM library_directory WHERE state = 'shard' ORDER BY shard")
    .all<{ shard: number }>();
  return results.map((r) => r.shard);
}

/** The next `n` journal entries after `seq`: how many, the last one's number, and the distinct entities they name. */
export async function journalAfter(db: D1Database, seq: number, n: number): Promise<{ last: number; entries: number; ids: string[] }> {
  const { results } = await db
    .prepare("SELECT seq, entity_id AS id FROM library_move_journal WHERE seq > ? ORDER BY seq LIMIT ?")
    .bind(seq, n)
    .all<{ seq: number; id: string }>();
  const ids = [...new Set(results.map((r) => r.id))].filter((id) => id !== ROOT_GROUP_ID);
  return { last: results.at(-1)?.seq ?? seq, entries: results.length, ids };
}

/** The journal's last entry now. */
export async function journalEnd(db: D1Database): Promise<number> {
  return (await db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM library_move_journal").first<number>("seq")) ?? 0;
}

/** The distinct entities journaled after `after` (and up to `upTo`). */
export async function journaledSince(db: D1Database, after: number, upTo = Number.MAX_SAFE_INTEGER): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT entity_id AS id FROM library_move_journal WHERE seq > ? AND seq <= ?")
    .bind(after, upTo)
    .all<{ id: string }>();
  return results.map((r) => r.id).filter((id) => id !== ROOT_GROUP_ID);
}

/** Of `ids`, those journaled after `after`. */
export async function journaledAmong(db: D1Database, after: number, ids: string[]): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT entity_id AS id FROM library_move_journal WHERE seq > ?1 AND entity_id IN (SELECT value FROM json_each(?2))")
    .bind(after, JSON.stringify(ids))
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/**
 * The pause, in one statement: the library's writes are refused from here (`moving`), the step becomes the final
 * catch-up, and the journal's end is recorded as its cursor — everything written to the library before the pause.
 */
export async function pauseLibrary(db: D1Database, libraryId: string, now: number): Promise<void> {
  await db
    .prepare(
      `UPDATE library_directory SET state = 'moving', step = 'final', updated_at = ?2,
         cursor = (SELECT coalesce(max(seq), 0) FROM library_move_journal) WHERE library_id = ?1`,
    )
    .bind(libraryId, now)
    .run();
}

/**
 * A move given up before its switch: the directory forgets the library, so the catalog takes its writes again and
 * journals nothing more for it, and the journal drops what only this move needed. False for a library already in its
 * shard (or with no move): that is not a move to give up.
 */
export async function abandonMove(db: D1Database, libraryId: string): Promise<boolean> {
  const [, gone] = await db.batch([
    db
      .prepare(
        "DELETE FROM id_directory WHERE library_id = ?1 AND EXISTS (SELECT 1 FROM library_directory WHERE library_id = ?1 AND state <> 'shard')",
      )
      .bind(libraryId),
    db.prepare("DELETE FROM library_directory WHERE library_id = ? AND state <> 'shard'").bind(libraryId),
  ]);
  if (gone.meta.changes === 0) return false;
  await trimJournal(db);
  return true;
}

/** Journal entries no move and no change across libraries still needs (all of them once none is under way). */
export async function trimJournal(db: D1Database): Promise<void> {
  await db
    .prepare(
      `DELETE FROM library_move_journal WHERE seq <= coalesce(
         (SELECT min(p) FROM (
           SELECT min(coalesce(checked_seq, journal_seq)) AS p FROM library_directory WHERE state <> 'shard'
           UNION ALL SELECT min(journal_from) FROM library_crossing)),
         (SELECT max(seq) FROM library_move_journal))`,
    )
    .run();
}

/** Per library table, the rows belonging to the library, in one statement (in D1 or a shard: the tests' measure). */
export async function libraryCounts(db: Pick<D1Database, "prepare">, libraryId: string): Promise<Record<string, number>> {
  return (await db.prepare(LIBRARY_COUNTS).bind(libraryId).first<Record<string, number>>()) ?? {};
}

/** Per library table, the rows belonging to these entities (the move's check, one slice at a time, in D1 and the shard). */
export async function entityCounts(db: Pick<D1Database, "prepare">, ids: string[]): Promise<Record<string, number>> {
  return (await db.prepare(ENTITY_COUNTS).bind(JSON.stringify(ids)).first<Record<string, number>>()) ?? {};
}

/** Library `?1`'s folders and homed files minted before sharding (UUIDv7), as id directory rows. */
const DIRECTORY_ROWS = `SELECT descendant, ?1 FROM group_closure WHERE ancestor = ?1 AND substr(descendant, 13, 1) <> '8'
  UNION SELECT m.el_id, ?1 FROM group_members m JOIN group_closure f ON f.descendant = m.group_id AND f.ancestor = ?1
  WHERE m.el_type = 'asset' AND substr(m.el_id, 13, 1) <> '8' AND ${HOMED_IN_LIBRARY("m.el_id")}`;

/** The id directory filled for the whole library ahead of the pause (repeatable; the switch corrects what changed). */
export async function fillIdDirectory(db: D1Database, libraryId: string): Promise<void> {
  await db.prepare(`INSERT OR REPLACE INTO id_directory (id, library_id) ${DIRECTORY_ROWS}`).bind(libraryId).run();
}

/**
 * The switch, in one batch: the id directory made exact — for the whole library, or, when it was filled ahead, for
 * the entities journaled since (`changed`: those that left the library leave it, those that came enter it) — and the
 * directory says `shard`: from here this database refuses writes to the library.
 */
export async function switchToShard(db: D1Database, libraryId: string, now: number, changed: string[] | null): Promise<void> {
  const json = JSON.stringify(changed ?? []);
  await db.batch([
    ...(changed === null
      ? [db.prepare(`INSERT OR REPLACE INTO id_directory (id, library_id) ${DIRECTORY_ROWS}`).bind(libraryId)]
      : [
          db.prepare("DELETE FROM id_directory WHERE id IN (SELECT value FROM json_each(?2)) AND +library_id = ?1").bind(libraryId, json),
          db
            .prepare(
              `INSERT OR REPLACE INTO id_directory (id, library_id)
               SELECT j.value, ?1 FROM json_each(?2) j WHERE substr(j.value, 13, 1) <> '8'
                 AND (EXISTS (SELECT 1 FROM group_closure WHERE ancestor = ?1 AND descendant = j.value) OR ${HOMED_IN_LIBRARY("j.value")})`,
            )
            .bind(libraryId, json),
        ]),
    db
      .prepare(
        "UPDATE library_directory SET state = 'shard', step = 'done', cursor = '', switched_at = ?2, updated_at = ?2 WHERE library_id = ?1",
      )
      .bind(libraryId, now),
  ]);
}
