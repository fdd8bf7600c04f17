import { ROOT_GROUP_ID } from "../../lib/ids";
import type { GlobalStatement } from "../library-shard-import";
import type { Statement } from "./asset.repository";
import type { MoveState, Row } from "./library-move.repository";

/**
 * The catalog's side of a change across libraries (decision 046, migration 0061): which switched libraries it
 * touches, the rows that let the catalog write them and journal what it writes meanwhile, and at its end the
 * entities written, each with the library it belongs to now and the one the id directory had it in.
 */

export interface CrossedLibrary {
  libraryId: string;
  name: string;
  shard: number;
  state: MoveState;
}

/**
 * The libraries in their shards (or being switched) that folders and files `ids` are in: a folder's library, and
 * every library a file is listed in.
 */
export function switchedLibrariesOf(db: D1Database, ids: readonly string[]): Promise<CrossedLibrary[]> {
  return switchedLibrariesReached(db, { entities: "SELECT value FROM json_each(?1)", binds: [JSON.stringify([...new Set(ids)])] });
}

/** A global change's statement, for a catalog batch (`runBatch`): the same text a shard runs (decision 050). */
export const catalogStatement = (s: GlobalStatement) => ({ toSQL: () => ({ sql: s.sql, params: [...s.binds] }) });

/**
 * How a global change that reaches into libraries runs (decision 050): `statements` as one catalog batch (their
 * results), the libraries `reach` finds held meanwhile and `inShards` run in their shards. The API passes the library
 * domain's `acrossLibrariesReached`: the services making such changes (tags, classifications, field templates,
 * people) sit below that domain and cannot call it themselves.
 */
export type GlobalChange = (reach: Reach, statements: Statement[], inShards: GlobalStatement[]) => Promise<D1Result[]>;

/** Folders and files chosen by a query (`entities` yields their ids, its parameters `binds`), in any number. */
export interface Reach {
  entities: string;
  binds: readonly unknown[];
}

/** The switched libraries the folders and files `reach` chooses are in, found in the catalog in one statement. */
export async function switchedLibrariesReached(db: D1Database, reach: Reach): Promise<CrossedLibrary[]> {
  const { results } = await db
    .prepare(
      `WITH e(id) AS (${reach.entities}),
         f(g) AS (SELECT id FROM e UNION SELECT m.group_id FROM group_members m JOIN e ON m.el_id = e.id)
       SELECT DISTINCT d.library_id AS libraryId, d.name, d.shard, d.state
       FROM f JOIN group_closure c ON c.descendant = f.g JOIN library_directory d ON d.library_id = c.ancestor
       WHERE d.state <> 'copying' ORDER BY d.library_id`,
    )
    .bind(...reach.binds)
    .all<CrossedLibrary>();
  return results;
}

/**
 * The crossing begins, in one statement per library and one batch: from here the catalog takes writes to these
 * libraries and journals every entity written, from the journal's position now.
 */
export async function beginCrossing(db: D1Database, crossing: string, libraries: readonly CrossedLibrary[], now: number): Promise<void> {
  await db.batch(
    libraries.map((l) =>
      db
        .prepare(
          `INSERT INTO library_crossing (crossing_id, library_id, shard, journal_from, started_at)
           VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) FROM library_move_journal), ?)`,
        )
        .bind(crossing, l.libraryId, l.shard, now),
    ),
  );
}

/** A crossing's libraries and where its journal begins (none: it has ended). */
export async function readCrossing(
  db: D1Database,
  crossing: string,
): Promise<{ libraries: Pick<CrossedLibrary, "libraryId" | "shard">[]; journalFrom: number } | null> {
  const { results } = await db
    .prepare("SELECT library_id AS libraryId, shard, journal_from AS journalFrom FROM library_crossing WHERE crossing_id = ?")
    .bind(crossing)
    .all<{ libraryId: string; shard: number; journalFrom: number }>();
  if (results.length === 0) return null;
  return { libraries: results.map(({ libraryId, shard }) => ({ libraryId, shard })), journalFrom: results[0].journalFrom };
}

/** Journal entries `after` < seq ≤ `upTo`: a global change's, which the shards made themselves (decision 050). */
export interface JournalRange {
  after: number;
  upTo: number;
}

/** An entity written during a crossing: the library it is in now (null: gone) and the one the id directory had. */
export interface CrossedEntity {
  id: string;
  now: string | null;
  was: string | null;
}

/** The library (top-level folder) entity `id` (an SQL expression) is in: a folder's by its closure, a file's by its home. */
const LIBRARY_OF = (id: string) => `(SELECT c.ancestor FROM group_closure c JOIN groups l ON l.id = c.ancestor AND l.parent_id = ?2
  WHERE c.descendant = coalesce((SELECT id FROM groups WHERE id = ${id}),
    (SELECT m.group_id FROM group_members m WHERE m.el_id = ${id} AND m.el_type = 'asset' ORDER BY m.ctime, m.group_id LIMIT 1)))`;

/**
 * The crossing stops letting writes in (the catalog refuses its libraries' writes again; its journal stays on until
 * the rows go), and in the same batch the entities journaled since it began, with the library each is in now and the
 * one the id directory had — and the files of every folder that came into or left one of `held` (a folder moved
 * between libraries takes the files whose home it is along, though nothing of theirs was written). Entities journaled
 * only in `applied` are left out: the shards made that change themselves.
 */
export async function closeCrossing(
  db: D1Database,
  crossing: string,
  journalFrom: number,
  held: readonly string[],
  applied: JournalRange = { after: 0, upTo: 0 },
): Promise<CrossedEntity[]> {
  const [, journaled] = await db.batch<CrossedEntity>([
    db.prepare("UPDATE library_crossing SET ending = 1 WHERE crossing_id = ?").bind(crossing),
    db
      .prepare(
        `WITH w AS (SELECT DISTINCT entity_id AS id FROM library_move_journal WHERE seq > ?1 AND entity_id <> ?2
                      AND NOT (seq > ?4 AND seq <= ?5)),
           placed AS (SELECT w.id, ${LIBRARY_OF("w.id")} AS now, (SELECT library_id FROM id_directory WHERE id = w.id) AS was FROM w),
           carried AS (
             SELECT DISTINCT m.el_id AS id FROM placed p JOIN group_members m ON m.group_id = p.id AND m.el_type = 'asset'
             WHERE p.now IS NOT p.was AND (p.now IN (SELECT value FROM json_each(?3)) OR p.was IN (SELECT value FROM json_each(?3)))
               AND m.el_id NOT IN (SELECT id FROM w))
         SELECT id, now, was FROM placed
         UNION ALL SELECT carried.id, ${LIBRARY_OF(
           "carried.id",
         )}, (SELECT library_id FROM id_directory WHERE id = carried.id) FROM carried`,
      )
      .bind(journalFrom, ROOT_GROUP_ID, JSON.stringify(held), applied.after, applied.upTo),
  ]);
  return journaled.results;
}

/**
 * The id directory follows the entities that came into or left the crossing's libraries: each says the library it
 * is in now — one in the catalog too, so an id minted in a shard is not looked for there any more — or, for a file
 * listed nowhere now (its last listing taken out), `IN_NO_LIBRARY`: the catalog keeps it and no library directory
 * entry matches. What is gone goes from the directory too.
 */
export async function redirectEntities(db: D1Database, entities: readonly CrossedEntity[]): Promise<void> {
  if (entities.length === 0) return;
  const json = JSON.stringify(entities);
  await db.batch([
    db
      .prepare(
        `INSERT INTO id_directory (id, library_id)
         SELECT json_extract(value, '$.id'), coalesce(json_extract(value, '$.now'), ?2) FROM json_each(?1)
         WHERE json_extract(value, '$.now') IS NOT NULL OR EXISTS (SELECT 1 FROM assets a WHERE a.id = json_extract(value, '$.id'))
         ON CONFLICT (id) DO UPDATE SET library_id = excluded.library_id`,
      )
      .bind(json, IN_NO_LIBRARY),
    db
      .prepare(
        `DELETE FROM id_directory WHERE id IN (SELECT json_extract(value, '$.id') FROM json_each(?) WHERE json_extract(value, '$.now') IS NULL)
           AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.id = id_directory.id)`,
      )
      .bind(json),
  ]);
}

/** The id directory's word for a file in the catalog and in no library (the root is no library's id). */
export const IN_NO_LIBRARY = ROOT_GROUP_ID;

/**
 * Of entities `ids`, the files and the folders the catalog holds (in any library, or in none), and every listing of
 * the files in library `libraryId` (the catalog's, as they are now).
 */
export async function filesAndListingsIn(
  db: D1Database,
  libraryId: string,
  ids: readonly string[],
): Promise<{ files: string[]; folders: string[]; listings: Row[] }> {
  const json = JSON.stringify(ids);
  const [files, folders, listings] = await db.batch([
    db.prepare("SELECT id FROM assets WHERE id IN (SELECT value FROM json_each(?))").bind(json),
    db.prepare("SELECT id FROM groups WHERE id IN (SELECT value FROM json_each(?))").bind(json),
    db
      .prepare(
        `SELECT m.* FROM group_members m JOIN group_closure c ON c.descendant = m.group_id AND c.ancestor = ?1
         WHERE m.el_type = 'asset' AND m.el_id IN (SELECT value FROM json_each(?2))`,
      )
      .bind(libraryId, json),
  ]);
  const idsOf = (result: D1Result) => (result.results as { id: string }[]).map((r) => r.id);
  return { files: idsOf(files), folders: idsOf(folders), listings: listings.results as Row[] };
}

/** The crossing is over: its rows go (and with the last of them, its journal's need). */
export async function endCrossing(db: D1Database, crossing: string): Promise<void> {
  await db.prepare("DELETE FROM library_crossing WHERE crossing_id = ?").bind(crossing).run();
}

/** Crossings begun before `before` and not ended: their Worker died or gave up; the minute cron ends them. */
export async function staleCrossings(db: D1Database, before: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT DISTINCT crossing_id AS id FROM library_crossing WHERE started_at < ? ORDER BY started_at LIMIT 20")
    .bind(before)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}
