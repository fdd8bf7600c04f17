import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { libraryShard } from "../../workers/db/library-directory";
import { redirectEntities } from "../../workers/db/repositories/library-crossing.repository";
import { trimJournal } from "../../workers/db/repositories/library-move.repository";
import { newId, ROOT_GROUP_ID } from "../../workers/lib/ids";
import { copyEntities } from "../../workers/services/library/library-move.service";

/**
 * Runs writes a test makes at the storage layer (SQL of its own, in the catalog) so that they hold with libraries in
 * shards too (sharding on: vitest.library-shards.config.ts). While they run, the catalog lets writes to switched
 * libraries through (as it lets a writeback through) and journals every entity written (as during a move: a move row
 * of its own turns the journal on); then each journaled entity is copied into the shard of the library it belongs to
 * now, and out of the one it belonged to, as a move copies it, with the id directory following. With no library in a
 * shard it is just `write()`. Unlike a change across, it holds no shard before the write and writes none back, so
 * every switched library is not asked on each of a test's statements: a test with work under way in a shard while it
 * writes (a body arriving) moves things with `crossingOver` instead.
 */
export async function throughShards<T>(write: () => Promise<T>): Promise<T> {
  const { results: libraries } = await env.DB.prepare(
    "SELECT library_id AS libraryId, shard FROM library_directory WHERE state = 'shard'",
  ).all<{
    libraryId: string;
    shard: number;
  }>();
  if (libraries.length === 0) return write();
  const journalOn = `seed-${newId()}`;
  await env.DB.batch([
    ...libraries.map((l) => env.DB.prepare("INSERT OR IGNORE INTO library_writeback (library_id) VALUES (?)").bind(l.libraryId)),
    env.DB.prepare(
      `INSERT INTO library_directory (library_id, name, shard, state, step, journal_seq, started_at, updated_at)
       VALUES (?1, ?1, -1 - abs(random() % 1000000000), 'copying', 'folders', 0, 0, 0)`,
    ).bind(journalOn),
  ]);
  const from = (await env.DB.prepare("SELECT coalesce(max(seq), 0) AS seq FROM library_move_journal").first<{ seq: number }>())!.seq;
  try {
    return await write();
  } finally {
    await env.DB.batch([
      env.DB.prepare("DELETE FROM library_directory WHERE library_id = ?").bind(journalOn),
      ...libraries.map((l) => env.DB.prepare("DELETE FROM library_writeback WHERE library_id = ?").bind(l.libraryId)),
    ]);
    // Each entity written: the switched library it belongs to now (a folder by its closure, a file by its home — its
    // earliest listing) and the one the id directory had it in.
    const { results } = await env.DB.prepare(
      `WITH w AS (SELECT DISTINCT entity_id AS id FROM library_move_journal WHERE seq > ?1 AND entity_id <> ?2)
       SELECT w.id,
         (SELECT l.library_id FROM group_closure c JOIN library_directory l ON l.library_id = c.ancestor AND l.state = 'shard'
          WHERE c.descendant = coalesce((SELECT id FROM groups WHERE id = w.id),
            (SELECT gm.group_id FROM group_members gm WHERE gm.el_id = w.id ORDER BY gm.ctime, gm.group_id LIMIT 1))) AS now,
         (SELECT library_id FROM id_directory WHERE id = w.id) AS was
       FROM w`,
    )
      .bind(from, ROOT_GROUP_ID)
      .all<{ id: string; now: string | null; was: string | null }>();
    const touched = new Map<string, string[]>();
    const shards = new Map(libraries.map((l) => [l.libraryId, l.shard]));
    for (const r of results)
      for (const library of new Set([r.now, r.was]))
        if (library && shards.has(library)) touched.set(library, [...(touched.get(library) ?? []), r.id]);
    await redirectEntities(env.DB, results);
    for (const [libraryId, ids] of touched) {
      // Held while its rows arrive, as a change across holds it: reads meanwhile are the catalog's copy's.
      const shard = libraryShard(env, shards.get(libraryId)!);
      await shard.hold(journalOn, libraryId);
      try {
        await copyEntities(env, { libraryId, shard: shards.get(libraryId)! }, ids, false);
      } finally {
        await shard.release(journalOn);
      }
    }
    await trimJournal(env.DB);
  }
}

/**
 * Reads or writes library shard `shard`'s own SQLite directly (what no request can do: the faults and checks of
 * tests), with the shard itself at hand for its own methods.
 */
export function inShard<T>(
  shard: number,
  work: (sql: SqlStorage, storage: DurableObjectStorage, instance: LibraryShardDO) => T | Promise<T>,
): Promise<T> {
  return runInDurableObject(
    libraryShard(env, shard) as unknown as DurableObjectStub<LibraryShardDO>,
    (instance: LibraryShardDO, state: DurableObjectState) => work(state.storage.sql, state.storage, instance),
  );
}
