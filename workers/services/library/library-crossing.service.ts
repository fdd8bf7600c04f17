import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { ru } from "../../../shared/i18n/ru";
import { forgetPlacesOf, libraryShard, noLibrarySwitched } from "../../db/library-directory";
import { carriesAnything } from "../../db/library-writeback";
import {
  beginCrossing,
  closeCrossing,
  endCrossing,
  filesAndListingsIn,
  readCrossing,
  redirectEntities,
  staleCrossings,
  switchedLibrariesOf,
  switchedLibrariesReached,
  type CrossedLibrary,
  type JournalRange,
  type Reach,
} from "../../db/repositories/library-crossing.repository";
import { anyLibraryMoving, belonging, referencesOf, rowsToCopy, trimJournal } from "../../db/repositories/library-move.repository";
import { sql } from "drizzle-orm";
import type { GlobalStatement } from "../../db/library-shard-import";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import { AppError, isLibraryMoving } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { RequestContext } from "../access";
import { copyHeavyRest, HEAVY_PAGE_BYTES } from "./library-move.service";
import { writeBack } from "./shard-writeback.service";

type CrossingShard = Pick<LibraryShardDO, "hold" | "release" | "writeback" | "writtenBack" | "importCrossed" | "appendRows">;

/**
 * Entities a crossing copies into a shard per call, while it holds the libraries: each call sets the shard's triggers
 * aside and back, so fewer, larger calls hold them for less (a folder of 6,000 files moved across: 2.2 s with 200 a
 * call, 1.2 s with 1,000, in the integration pool). Texts travel within 8 MB a call whatever the slice (`rowsToCopy`).
 */
const CROSSING_SLICE = 1_000;

/** A crossing begun this long ago and not ended was left by a Worker that died: the minute cron ends it. */
export const STALE_CROSSING_MS = 60_000;

/**
 * A change across libraries (decision 046): a file moved, copied or listed between a library in its shard and another
 * library, tags or rules over several. It runs in the catalog, which holds a current copy of every library, with the
 * product's own service and checks, while the shards of the switched libraries it touches are held (their writes wait
 * for that moment in the shard, decision 049) and their last changes written back; then every entity written meanwhile is
 * copied into the shard of the library it is in now and out of the one it was in, as a library's move copies it, the
 * id directory following, and the shards are let go. Recorded first: a Worker that dies half-way leaves the crossing
 * to the minute cron, which ends it the same way (every step repeatable), so nothing is lost and nothing doubled.
 */
export async function acrossLibraries<T>(
  rc: RequestContext,
  ids: readonly string[],
  write: (rc: RequestContext) => Promise<T>,
  o: { /** before anything is held (a limit on who may hold libraries how often) */ beforeHold?: () => Promise<void> } = {},
): Promise<T> {
  const env = rc.env;
  if (noLibrarySwitched()) return write(rc);
  const libraries = await switchedLibrariesOf(env.DB, ids);
  if (libraries.length > 0) await o.beforeHold?.();
  const held = crossingOver(env, ids);
  try {
    await held.hold(libraries);
    return await write({ ...rc, outsideHold: outsideOf(held) });
  } catch (error) {
    // Refused by the catalog for yet another switched library (a folder's file listed there): not named, not held —
    // unless a library is being switched this moment, which is a matter of seconds.
    if (libraries.length > 0 && isLibraryMoving(error) && !(await anyLibraryMoving(env.DB)))
      throw new AppError("CONFLICT", ru.groups.betweenLibraries);
    throw error;
  } finally {
    await letGoLogged(held);
  }
}

/**
 * A change to global rows that reaches into libraries' own (a tag, a classification or a field template deleted with
 * its uses, a person with their rules and what they own: decision 050), as a change across every switched library
 * `reach` finds rows in. The catalog runs `statements` (one batch: their results are the answer) while those libraries
 * are held; each of their shards then runs `inShards`, the same change over its own rows — a tag on a hundred
 * thousand files is one statement there, not a hundred thousand files copied while the library waits. What else the
 * catalog journaled meanwhile is copied as by any change across; were a shard not to take the statements, everything
 * is (the same rows, the long way). Without this the catalog's triggers refuse such a change as a whole for as long as
 * a library lives in its shard. A use added meanwhile in a library not held is refused by the catalog, nothing
 * written; the libraries are looked for again, once.
 */
export async function acrossLibrariesReached(
  rc: RequestContext,
  reach: Reach,
  statements: Statement[],
  inShards: GlobalStatement[],
): Promise<D1Result[]> {
  const env = rc.env;
  for (let attempt = 0; ; attempt++) {
    const held = crossingOver(env, []);
    let applied: JournalRange | undefined;
    try {
      const libraries = await switchedLibrariesReached(env.DB, reach);
      await held.hold(libraries);
      const results = await runBatch(rc.db, [JOURNAL_END, ...statements, JOURNAL_END]);
      applied = await appliedInShards(env, libraries, inShards, { after: journalEnd(results[0]), upTo: journalEnd(results.at(-1)) });
      return results.slice(1, -1);
    } catch (error) {
      if (attempt > 0 || !isLibraryMoving(error) || (await anyLibraryMoving(env.DB))) throw error;
    } finally {
      await letGoLogged(held, applied);
    }
  }
}

/** The journal's last entry, read in a batch before and after a change's statements: what the change journaled. */
const JOURNAL_END = sql`select coalesce(max(seq), 0) as seq from library_move_journal`;
const journalEnd = (result: D1Result | undefined) => Number((result?.results[0] as { seq: number } | undefined)?.seq ?? 0);

/** A global change's statements run in each held library's shard; the journal range they stand for (none: a shard failed). */
async function appliedInShards(
  env: Env,
  libraries: readonly CrossedLibrary[],
  statements: GlobalStatement[],
  range: JournalRange,
): Promise<JournalRange | undefined> {
  if (libraries.length === 0) return undefined;
  try {
    await Promise.all(libraries.map((l) => libraryShard(env, l.shard).applyGlobalChange(statements)));
    return range;
  } catch (error) {
    console.error(JSON.stringify({ level: "error", op: "library-crossing", global: true, message: String(error) }));
    return undefined;
  }
}

/** Made or not, the answer stands: an end that fails (a shard not answering) is the minute cron's to repeat. */
async function letGoLogged(held: Crossing, applied?: JournalRange): Promise<void> {
  await held
    .letGo(applied)
    .catch((error) =>
      console.error(JSON.stringify({ level: "error", op: "library-crossing", crossing: held.id(), message: String(error) })),
    );
}

/** A change across libraries as it is held and let go (around a body, decision 048). */
export interface Crossing {
  /** the switched libraries `ids` are in (as given, or as the catalog says now) held; none held when there are none */
  hold(libraries?: readonly CrossedLibrary[]): Promise<void>;
  /**
   * the change ended: what it wrote copied into the shards, and they are let go (nothing when nothing is held);
   * `applied`: what the catalog journaled there, the shards made themselves (not copied)
   */
  letGo(applied?: JournalRange): Promise<void>;
  id(): string | null;
}

/**
 * The crossing over whatever switched libraries `ids` are in when it is held: a library being switched answers 503.
 * Another change across holding one of them is waited out in its shard (decision 049).
 */
export function crossingOver(env: Env, ids: readonly string[]): Crossing {
  let crossing: string | null = null;
  return {
    async hold(given) {
      const libraries = given ?? (await switchedLibrariesOf(env.DB, ids));
      if (libraries.some((l) => l.state !== "shard"))
        throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryMoving, { "Retry-After": "5" });
      if (libraries.length === 0) return;
      crossing = newId();
      await beginCrossing(env.DB, crossing, libraries, Date.now());
      await holdLibraries(env, crossing, libraries);
    },
    async letGo(applied) {
      if (crossing) await finishCrossing(env, crossing, applied);
      crossing = null;
    },
    id: () => crossing,
  };
}

/**
 * A crossing's `outsideHold`: a request's body is received, and stored bytes hashed, with the libraries let go
 * (decision 048): however long that takes, their writes wait only for the moments before and after it. What was
 * written before it reaches the shards then; the libraries its ids are in *now* are held again, their writes
 * meanwhile written back, for the rest — a change across meanwhile may have taken its file elsewhere (decision 049).
 */
export function outsideOf(held: Crossing): <B>(work: () => Promise<B>) => Promise<B> {
  return async (work) => {
    try {
      await held.letGo();
    } catch (error) {
      // A shard that does not take what was written so far: nothing of the body is read; the minute cron ends the
      // crossing, and the client sends it all again.
      console.error(JSON.stringify({ level: "error", op: "library-crossing", crossing: held.id(), message: String(error) }));
      throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryHeld, { "Retry-After": "5" });
    }
    try {
      return await work();
    } finally {
      await held.hold();
    }
  };
}

/**
 * Each library's shard held, and what it had not yet written back written back: the catalog's copy is current. One
 * after another in the order of their shards, each waiting in the shard for another change across to end (decision
 * 049): two changes over the same libraries then never hold one each and wait for the other's.
 */
export async function holdLibraries(env: Env, crossing: string, libraries: readonly CrossedLibrary[]): Promise<void> {
  for (const l of [...libraries].sort((x, y) => x.shard - y.shard)) {
    const shard = libraryShard(env, l.shard) as unknown as CrossingShard;
    let wb;
    try {
      wb = await shard.hold(crossing, l.libraryId);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", op: "library-crossing", library: l.name, message: String(error) }));
      throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryDown(l.name), { "Retry-After": "5" });
    }
    if (!wb) throw new AppError("SERVICE_UNAVAILABLE", ru.groups.libraryHeld, { "Retry-After": "5" });
    if (carriesAnything(wb)) await writeBack(env, shard, wb, { deadline: Number.POSITIVE_INFINITY });
  }
}

/**
 * The crossing's end (repeatable: the minute cron repeats it for one whose Worker died): the catalog stops taking its
 * libraries' writes, the entities written since it began are copied where they are now, the shards are let go, and
 * the crossing's rows and journal entries go.
 */
export async function finishCrossing(env: Env, crossing: string, applied?: JournalRange): Promise<void> {
  const found = await readCrossing(env.DB, crossing);
  if (!found) return;
  const shards = new Map(found.libraries.map((l) => [l.libraryId, l.shard]));
  const written = await closeCrossing(env.DB, crossing, found.journalFrom, [...shards.keys()], applied);
  const moved = written.filter((e) => (e.now && shards.has(e.now)) || (e.was && shards.has(e.was)));
  await redirectEntities(env.DB, moved);
  forgetPlacesOf(moved.map((e) => e.id));
  // Every entity written, to each shard: each takes what is its own now (a file homed elsewhere: its listings there)
  // and lets go of what no longer is. Side by side.
  const ids = written.map((e) => e.id);
  await Promise.all(
    [...shards].map(async ([libraryId, shard]) => {
      for (let i = 0; i < ids.length; i += CROSSING_SLICE) await copyCrossed(env, libraryId, shard, ids.slice(i, i + CROSSING_SLICE));
    }),
  );
  await Promise.all(found.libraries.map((l) => (libraryShard(env, l.shard) as unknown as CrossingShard).release(crossing)));
  await endCrossing(env.DB, crossing);
  await trimJournal(env.DB);
}

/**
 * Entities a crossing wrote, copied into library `libraryId`'s shard as they are in the catalog now — those that left
 * it, out — each folder with its own rows but not its listings of files, and each file with its listings in the
 * library: a change to one file in a folder of a hundred thousand copies one listing, not the folder's all.
 */
async function copyCrossed(env: Env, libraryId: string, shard: number, ids: string[]): Promise<void> {
  const [mine, { files, folders, listings }] = await Promise.all([
    belonging(env.DB, libraryId, ids),
    filesAndListingsIn(env.DB, libraryId, ids),
  ]);
  const { tables, heavyLeft } = await rowsToCopy(env.DB, mine, HEAVY_PAGE_BYTES);
  const references = await referencesOf(env.DB, tables);
  const known = new Set([...files, ...folders]);
  const unknown = ids.filter((id) => !known.has(id));
  const target = libraryShard(env, shard) as unknown as CrossingShard;
  await target.importCrossed(libraryId, ids, unknown, files, tables, references, listings);
  await copyHeavyRest(env.DB, target, mine, heavyLeft);
}

/** The minute cron: crossings whose Worker died, ended (one shard not answering leaves its crossing for next minute). */
export async function finishStaleCrossings(env: Env, now = Date.now()): Promise<number> {
  let ended = 0;
  for (const crossing of await staleCrossings(env.DB, now - STALE_CROSSING_MS)) {
    try {
      await finishCrossing(env, crossing);
      ended++;
    } catch (error) {
      console.error(JSON.stringify({ level: "error", op: "library-crossing", crossing, message: String(error) }));
    }
  }
  return ended;
}
