import { ru } from "../../shared/i18n/ru";
import { AppError } from "../lib/errors";
import { shardOfId } from "../lib/ids";

/**
 * Where an entity (a folder or an asset) lives (decision 043): in the catalog D1 (no directory entry, or its library
 * is still being copied), in a library being switched into its shard (writes answer 503 for those seconds), or in its
 * library's shard. An id minted into a shard (UUIDv8) names the shard; an id minted before sharding (UUIDv7) is found
 * in the id directory, which the switch fills. Answers are cached per isolate: ten seconds for what may still
 * change soon (the catalog, a move in progress), ten minutes for a library in its shard.
 */
export type LibraryPlace =
  | { place: "catalog" }
  | { place: "moving"; library: string; name: string }
  | { place: "shard"; library: string; name: string; shard: number };

/** The object that holds library shard `n` (shard numbers are the directory's; ids minted there carry them). */
export function libraryShard(env: Env, shard: number) {
  return env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName(`library-${shard}`));
}

const SOON_MS = 10_000;
const SETTLED_MS = 600_000;
const cache = new Map<string, { place: LibraryPlace; until: number }>();
/** Shards this isolate has seen holding their library: the check costs a call, once. */
const holding = new Set<string>();

interface DirectoryRow {
  library: string;
  name: string;
  shard: number;
  state: "copying" | "moving" | "shard";
}

export async function placeOfId(db: D1Database, id: string, now = Date.now()): Promise<LibraryPlace> {
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.place;
  const shard = shardOfId(id);
  const row =
    shard === null
      ? await db
          .prepare(
            `SELECT d.library_id AS library, d.name, d.shard, d.state FROM id_directory i
             JOIN library_directory d ON d.library_id = i.library_id WHERE i.id = ?`,
          )
          .bind(id)
          .first<DirectoryRow>()
      : await db
          .prepare("SELECT library_id AS library, name, shard, state FROM library_directory WHERE shard = ?")
          .bind(shard)
          .first<DirectoryRow>();
  const place: LibraryPlace =
    !row || row.state === "copying"
      ? { place: "catalog" }
      : row.state === "moving"
      ? { place: "moving", library: row.library, name: row.name }
      : { place: "shard", library: row.library, name: row.name, shard: row.shard };
  cache.set(id, { place, until: now + (place.place === "shard" ? SETTLED_MS : SOON_MS) });
  return place;
}

/**
 * The shard of a library the directory places there, once it has shown it holds the library. A directory entry
 * naming a shard that does not hold it (a shard lost, a directory restored from an older copy) is refused as the
 * library not answering — 503 naming it, logged — never answered from an empty shard as if the library were empty.
 */
export async function openLibraryShard(env: Env, place: Extract<LibraryPlace, { place: "shard" }>) {
  const shard = libraryShard(env, place.shard);
  const key = `${place.shard}:${place.library}`;
  if (holding.has(key)) return shard;
  let holds: boolean;
  try {
    holds = await shard.holds(place.library);
  } catch (error) {
    holds = false;
    console.error(JSON.stringify({ level: "error", op: "library-shard", library: place.name, message: String(error) }));
  }
  if (!holds) {
    console.error(
      JSON.stringify({
        level: "error",
        op: "library-directory",
        library: place.name,
        shard: place.shard,
        message: "shard does not hold the library",
      }),
    );
    throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryDown(place.name), { "Retry-After": "5" });
  }
  holding.add(key);
  return shard;
}

/** Forgets what this isolate cached (the tests move libraries between calls). */
export function forgetLibraryPlaces(): void {
  cache.clear();
  holding.clear();
}
