import { openLibraryShard, switchedLibraries } from "./library-directory";
import { callShard } from "./library-shard-call";
import type { Reach } from "./repositories/library-crossing.repository";
import type { RoundTripMeter } from "./round-trips";

/**
 * How many rows a reach chooses across every library (decision 051, step 2.4): a global row's uses — a class on
 * files, a template's values, a classification's members, what a person owns — counted before it may go. The catalog
 * counts its own libraries' rows, leaving out the folders and files of libraries that live in their shards (its copy
 * of them would count them twice, and goes at step 2.5); each of those shards counts its own, side by side. A shard
 * that does not answer fails the count (503 naming the library): "unused" is never assumed.
 */
export async function countReached(at: { env: Env; dbSession?: { meter?: RoundTripMeter } }, reach: Reach): Promise<number> {
  const { env } = at;
  const catalog = env.DB;
  const [here, libraries] = await Promise.all([
    catalog
      .prepare(
        `WITH e(id) AS (${reach.entities})
         SELECT count(*) AS n FROM e WHERE NOT EXISTS (SELECT 1 FROM id_directory d
           JOIN library_directory l ON l.library_id = d.library_id WHERE d.id = e.id AND l.state = 'shard')`,
      )
      .bind(...reach.binds)
      .first<number>("n"),
    switchedLibraries(catalog),
  ]);
  const there = await Promise.all(
    libraries.map(async (place) => {
      const shard = await openLibraryShard(env, place);
      return callShard(place.name, async () => ({ ok: true as const, value: await shard.reachCount(reach) }), at.dbSession?.meter);
    }),
  );
  return there.reduce((sum, n) => sum + n, here ?? 0);
}
