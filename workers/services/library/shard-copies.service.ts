import { libraryShard } from "../../db/library-directory";
import { clearCopyJournal, copiedRows, copyJournal, switchedShards } from "../../db/repositories/library-move.repository";

/** Changed global rows sent per run: one D1 batch to read them, one call to each shard. */
export const COPY_SLICE = 500;

/**
 * The minute cron's share of keeping the shards' copies of global rows current (decision 043, migration 0059): the
 * rows changed since the last run (a person renamed, a tag, a class) are read once and sent to every shard holding a
 * switched library, each updating the copies it has. The journal is cleared only after every shard took them; a
 * shard that did not answer gets them again next minute (an update repeated changes nothing).
 */
export async function refreshShardCopies(env: Env): Promise<{ rows: number; shards: number; updated: number }> {
  const { last, wanted } = await copyJournal(env.DB, COPY_SLICE);
  if (wanted.length === 0) return { rows: 0, shards: 0, updated: 0 };
  const [tables, shards] = await Promise.all([copiedRows(env.DB, wanted), switchedShards(env.DB)]);
  const updated = await Promise.all(shards.map((n) => libraryShard(env, n).refreshCopies(tables)));
  await clearCopyJournal(env.DB, last);
  return { rows: tables.reduce((n, t) => n + t.rows.length, 0), shards: shards.length, updated: updated.reduce((a, b) => a + b, 0) };
}
