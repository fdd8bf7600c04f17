import { ru } from "../../shared/i18n/ru";
import { AppError } from "../lib/errors";
import { shardOfId } from "../lib/ids";

/**
 * Where an entity (a folder or an asset) lives (decision 043): in the catalog D1 (no directory entry, or its library
 * is still being copied), in a library being switched into its shard (writes answer 503 for those seconds), or in its
 * library's shard. An id minted into a shard (UUIDv8) names the shard; an id minted before sharding (UUIDv7) is found
 * in the id directory, which the switch fills. Answers are cached per isolate: ten seconds for what may still
 * change soon (the catalog, a move in progress), ten minutes for a library in its shard, a minute for "no library is
 * in a shard" — a switch waits that long before the catalog's copy may go (decision 043).
 */
export type LibraryPlace =
  | { place: "catalog" }
  | { place: "moving"; library: string; name: string }
  | { place: "shard"; library: string; name: string; shard: number };

/** A library that lives in its shard. */
export type ShardPlace = Extract<LibraryPlace, { place: "shard" }>;

/**
 * Items grouped by where their libraries live, in the order first met: one share for each library in its shard, one
 * for the rest (the catalog's, a library being moved among them), with the place of its first item.
 */
export function sharesByPlace<T>(items: Iterable<T>, placeOf: (item: T) => LibraryPlace): { place: LibraryPlace; items: T[] }[] {
  const shares = new Map<string, { place: LibraryPlace; items: T[] }>();
  for (const item of items) {
    const place = placeOf(item);
    const key = place.place === "shard" ? place.library : "";
    const share = shares.get(key) ?? { place, items: [] };
    share.items.push(item);
    shares.set(key, share);
  }
  return [...shares.values()];
}

/** The object that holds library shard `n` (shard numbers are the directory's; ids minted there carry them). */
export function libraryShard(env: Env, shard: number) {
  return env.LIBRARY_SHARDS.get(env.LIBRARY_SHARDS.idFromName(`library-${shard}`));
}

/**
 * Places an isolate remembers at most: every id it places is remembered (an export's files, a list's rows), a
 * long-lived isolate meets millions, and it has 128 MB; past this the oldest are forgotten (asked again when next met).
 */
const REMEMBERED_MAX = 20_000;
const SOON_MS = 10_000;
const SETTLED_MS = 600_000;
/** How long an isolate trusts that no library lives in a shard (then an id needs no lookup at all). */
const NONE_MS = 60_000;

/** What this isolate remembers of places. */
interface Remembered {
  places: Map<string, { place: LibraryPlace; until: number }>;
  /** until when this isolate knows no library is in a shard: every id is in the catalog without asking */
  noneSwitchedUntil: number;
  /** shards this isolate has seen holding their library: the check costs a call, once */
  holding: Set<string>;
}

// The pages' bundle (app/, built apart by Remix) carries a copy of this module: the memory lives on the isolate's
// global object, so a page and an API call in one isolate know the same places, and forgetting them forgets both.
const REMEMBERED = Symbol.for("mam.library-places");
const memory = ((globalThis as Record<symbol, unknown>)[REMEMBERED] ??= {
  places: new Map(),
  noneSwitchedUntil: 0,
  holding: new Set(),
} satisfies Remembered) as Remembered;
const cache = memory.places;
const holding = memory.holding;

interface DirectoryRow {
  switched: number;
  library: string | null;
  name: string | null;
  shard: number | null;
  state: "copying" | "moving" | "shard" | null;
}

/**
 * Where the entity `id` lives. While no library is in a shard (what every install is until its first move) this
 * costs nothing but a statement a minute per isolate; after, one indexed statement per id the isolate has not seen
 * lately — which also tells whether any library is in a shard.
 */
export async function placeOfId(db: Pick<D1Database, "prepare">, id: string, now = Date.now()): Promise<LibraryPlace> {
  return (await placesOfIds(db, [id], now)).get(id)!;
}

/**
 * Where each of entities `ids` lives, as `placeOfId` answers it: those this isolate has not seen lately asked in one
 * statement.
 */
export async function placesOfIds(
  db: Pick<D1Database, "prepare">,
  ids: readonly string[],
  now = Date.now(),
): Promise<Map<string, LibraryPlace>> {
  const places = new Map<string, LibraryPlace>();
  const unknown: { id: string; shard: number | null }[] = [];
  for (const id of new Set(ids)) {
    const known = knownPlaceOfId(id, now);
    if (known) places.set(id, known);
    else unknown.push({ id, shard: shardOfId(id) });
  }
  if (unknown.length === 0) return places;
  // An id minted into a shard names it; moved to another library since (decision 046), the id directory says where —
  // in the catalog too.
  const { results } = await db
    .prepare(
      `SELECT (SELECT count(*) FROM library_directory WHERE state <> 'copying') AS switched, a.id, d.library_id AS library,
         d.name, d.shard, d.state
       FROM (SELECT json_extract(j.value, '$.id') AS id, json_extract(j.value, '$.shard') AS shard FROM json_each(?1) j) a
       LEFT JOIN library_directory d ON d.library_id = coalesce((SELECT library_id FROM id_directory WHERE id = a.id),
         (SELECT library_id FROM library_directory WHERE a.shard IS NOT NULL AND shard = a.shard))`,
    )
    .bind(JSON.stringify(unknown))
    .all<DirectoryRow & { id: string }>();
  if (!results[0]?.switched) {
    memory.noneSwitchedUntil = now + NONE_MS;
    for (const { id } of unknown) places.set(id, CATALOG);
    return places;
  }
  for (const row of results) {
    const place: LibraryPlace =
      !row.library || row.state === "copying"
        ? CATALOG
        : row.state === "moving"
        ? { place: "moving", library: row.library, name: row.name! }
        : { place: "shard", library: row.library, name: row.name!, shard: row.shard! };
    cache.set(row.id, { place, until: now + (place.place === "shard" ? SETTLED_MS : SOON_MS) });
    places.set(row.id, place);
  }
  for (const id of cache.keys()) {
    if (cache.size <= REMEMBERED_MAX) break;
    cache.delete(id);
  }
  return places;
}

const CATALOG: LibraryPlace = { place: "catalog" };

/**
 * The place asked afresh, whatever this isolate remembered — that no library is in a shard, or this entity in the
 * catalog: after the catalog refused a write to the entity's library (LIBRARY_MOVING: that memory is out of date), and
 * before work that cannot be tried again once refused (it reads a request's body).
 */
export function placeOfIdAfresh(db: Pick<D1Database, "prepare">, id: string): Promise<LibraryPlace> {
  memory.noneSwitchedUntil = 0;
  cache.delete(id);
  return placeOfId(db, id);
}

/** Whether this isolate knows, without asking, that no library lives in a shard. */
export function noLibrarySwitched(now = Date.now()): boolean {
  return now < memory.noneSwitchedUntil;
}

/** What this isolate already knows of the entity's place, without asking: undefined when it must ask. */
export function knownPlaceOfId(id: string, now = Date.now()): LibraryPlace | undefined {
  if (now < memory.noneSwitchedUntil) return CATALOG;
  const hit = cache.get(id);
  return hit && hit.until > now ? hit.place : undefined;
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

/** Forgets where these entities were (a change across libraries moved them). */
export function forgetPlacesOf(ids: readonly string[]): void {
  for (const id of ids) cache.delete(id);
}

/** Forgets what this isolate cached (the tests move libraries between calls). */
export function forgetLibraryPlaces(): void {
  cache.clear();
  holding.clear();
  memory.noneSwitchedUntil = 0;
}

/**
 * The folders and files of libraries that live in their shards (or are being switched), as an SQL subquery: the
 * catalog's background sweeps leave them alone — the catalog refuses to change them — and run over each shard
 * instead. Selects nothing inside a shard, whose directories are empty.
 */
export const SWITCHED_IDS_SQL =
  "select d.id from id_directory d join library_directory l on l.library_id = d.library_id where l.state <> 'copying'";

/**
 * Every folder of a library in its shard (or being switched) and every file listed in one — homed there or not — as
 * an SQL subquery: what the catalog's triggers refuse to change, so a repair across the whole catalog leaves it to the
 * shards. Selects nothing inside a shard.
 */
export const IN_SWITCHED_LIBRARIES_SQL = `select c.descendant from group_closure c join library_directory l on l.library_id = c.ancestor
    where l.state <> 'copying'
  union select m.el_id from group_members m join group_closure c on c.descendant = m.group_id
    join library_directory l on l.library_id = c.ancestor where l.state <> 'copying'`;

/** Of folders and files `ids`, those of a library that lives in its shard (or is switching into it), by library. */
export async function switchedHomes(db: D1Database, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { results } = await db
    .prepare(
      `SELECT d.id, d.library_id AS library FROM id_directory d JOIN library_directory l ON l.library_id = d.library_id
       WHERE l.state <> 'copying' AND d.id IN (SELECT value FROM json_each(?))`,
    )
    .bind(JSON.stringify(ids))
    .all<{ id: string; library: string }>();
  return new Map(results.map((r) => [r.id, r.library]));
}

/**
 * The libraries that live in their shards, for a read across libraries: when none does, or is switching into one,
 * this isolate remembers it as `placesOfIds` does, so such reads ask nothing for a minute.
 */
export async function librariesInShards(db: Pick<D1Database, "prepare">, now = Date.now()): Promise<ShardPlace[]> {
  const { results } = await db
    .prepare("SELECT library_id AS library, name, shard, state FROM library_directory WHERE state <> 'copying' ORDER BY library_id")
    .all<{ library: string; name: string; shard: number; state: string }>();
  if (results.length === 0) memory.noneSwitchedUntil = now + NONE_MS;
  return results.filter((l) => l.state === "shard").map(({ library, name, shard }) => ({ place: "shard", library, name, shard }));
}

/** Every library that lives in its shard, as the place its work runs over. */
export async function switchedLibraries(db: D1Database): Promise<Extract<LibraryPlace, { place: "shard" }>[]> {
  const { results } = await db
    .prepare("SELECT library_id AS library, name, shard FROM library_directory WHERE state = 'shard' ORDER BY library_id")
    .all<{ library: string; name: string; shard: number }>();
  return results.map((l) => ({ place: "shard", ...l }));
}
