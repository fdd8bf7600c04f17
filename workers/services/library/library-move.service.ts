import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { ru } from "../../../shared/i18n/ru";
import {
  abandonMove,
  belonging,
  entityCounts,
  fillIdDirectory,
  insertMove,
  journalAfter,
  journalEnd,
  journaledAmong,
  journaledSince,
  listingsAfter,
  nextAssets,
  nextFolders,
  pauseLibrary,
  readMove,
  referencesOf,
  heavyPage,
  rowsToCopy,
  saveProgress,
  switchToShard,
  trimJournal,
  type LibraryMove,
  type MoveState,
} from "../../db/repositories/library-move.repository";
import { libraryShard, placeOfIdAfresh } from "../../db/library-directory";
import { getConfig } from "../../lib/config";
import type { Actor } from "../access";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";

/** Entities (folders or assets) per slice: one D1 batch of reads, one of the global rows they name, one shard call. */
export const MOVE_SLICE = 200;
/** Listings of files per page of a folder's copy (about 1 MB). */
export const LISTINGS_PAGE = 5_000;
/**
 * Bytes of each heavy table's rows (extracted texts, comments) per call into a shard: both together and a slice's
 * other rows stay far within the 32 MiB one RPC may carry.
 */
export const HEAVY_PAGE_BYTES = 8 * 1024 * 1024;
/** Journal entries per slice of the catch-up. */
export const JOURNAL_SLICE = 1_000;
/** The check runs once fewer journal entries than this are left to apply (seconds of work at most). */
export const PAUSE_BELOW = 1_000;

/** The points a move passes, after each of which it may stop (the tests stop it at every one). */
export type MoveCheckpoint =
  | "folders:imported"
  | "folders:saved"
  | "assets:imported"
  | "assets:saved"
  | "catch-up:imported"
  | "catch-up:saved"
  | "counted"
  | "checked"
  | "paused"
  | "final:imported"
  | "final:saved"
  | "switched";

export interface MoveOptions {
  /** no slice starts after this time (ms since the epoch); the move resumes on the next call */
  deadline: number;
  slice?: number;
  /** called after each checkpoint; what it throws ends the run there, like a Worker ended by the platform */
  afterStep?: (checkpoint: MoveCheckpoint) => void | Promise<void>;
}

/**
 * Starts moving a library (a top-level folder and its subtree) into a shard of its own: the directory row from which
 * every write to the catalog is journaled. 404 for what is not a library, 409 when it is already moving or moved.
 */
export async function startLibraryMove(env: Env, libraryId: string, now = Date.now()): Promise<LibraryMove> {
  const library = await env.DB.prepare("SELECT name FROM groups WHERE id = ? AND parent_id = ? AND deleted_at IS NULL")
    .bind(libraryId, ROOT_GROUP_ID)
    .first<{ name: string }>();
  if (!library || libraryId === ROOT_GROUP_ID) throw new AppError("NOT_FOUND", ru.groups.notFound);
  const move = await insertMove(env.DB, libraryId, library.name, now);
  if (!move) throw new AppError("CONFLICT", ru.groups.libraryMoveStarted(library.name));
  return move;
}

/**
 * Gives up a library's move before its switch (decision 045): the catalog, which held the library throughout, takes
 * its writes again at once, and the shard's partial copy is cleared. The directory goes first: if the shard does not
 * answer, its stale copy is one nobody is sent to, and a later move into that shard checks what it holds. 409 for a
 * library already in its shard (moving it back is not built); null when no move is under way (already given up: a
 * task step repeated after it ran changes nothing).
 */
export async function abandonLibraryMove(env: Env, libraryId: string): Promise<LibraryMove | null> {
  const move = await readMove(env.DB, libraryId);
  if (!move) return null;
  if (move.state === "shard" || !(await abandonMove(env.DB, libraryId))) throw new AppError("CONFLICT", ru.tasks.libraryMoved(move.name));
  await libraryShard(env, move.shard).clearLibrary();
  return move;
}

/** How long making a library may spend moving it into its shard; an empty library takes a few dozen statements. */
const NEW_LIBRARY_MS = 15_000;

/**
 * A library an administrator just made, where the install makes new libraries in shards (`NEW_LIBRARIES=shard`,
 * decision 045): moved into a shard of its own at once, by the same move as a library of any size — empty, it is
 * over in a moment and its writes are never paused for anyone who could know it. A top-level folder someone else
 * makes for himself stays in the catalog (a shard is for as long as the install lives: only those who may move
 * libraries make them). A move that fails or runs out of time is logged and leaves the library working from the
 * catalog (`copying`); the libraries screen resumes it.
 */
export async function moveNewLibrary(env: Env, actor: Pick<Actor, "isAdmin">, libraryId: string): Promise<void> {
  if (getConfig(env).NEW_LIBRARIES !== "shard" || !actor.isAdmin) return;
  try {
    await startLibraryMove(env, libraryId);
    const move = await continueLibraryMove(env, libraryId, { deadline: Date.now() + NEW_LIBRARY_MS });
    if (move.step !== "done") throw new Error(`the move stopped at step ${move.step}`);
    // Asked afresh here: this isolate's first write into the new library goes straight to its shard.
    await placeOfIdAfresh(env.DB, libraryId);
  } catch (error) {
    console.error(JSON.stringify({ level: "error", op: "new-library", library: libraryId, message: String(error) }));
  }
}

/**
 * Copies entities into the shard: the rows of those that belong to the library now replace the shard's, and those
 * that no longer belong (moved to another library, deleted) leave it. A folder's listings of files follow a page at a
 * time: one folder may list hundreds of thousands, more than one read or one call should carry. `known`: every id is
 * known to belong. Also how tests that seed rows at the storage layer bring them into a switched library's shard.
 */
export async function copyEntities(env: Env, move: Pick<LibraryMove, "libraryId" | "shard">, ids: string[], known: boolean): Promise<void> {
  if (ids.length === 0) return;
  const mine = known ? ids : await belonging(env.DB, move.libraryId, ids);
  const { tables, heavyLeft } = await rowsToCopy(env.DB, mine, HEAVY_PAGE_BYTES);
  const references = await referencesOf(env.DB, tables);
  const shard = libraryShard(env, move.shard);
  await shard.importEntities(move.libraryId, ids, tables, references);
  for (let cursor = ""; ; ) {
    const page = await listingsAfter(env.DB, mine, cursor, LISTINGS_PAGE);
    if (page.rows.length === 0) break;
    await shard.appendRows([{ table: "group_members", rows: page.rows }]);
    cursor = page.last;
  }
  await copyHeavyRest(env.DB, shard, mine, heavyLeft);
}

/**
 * The heavy rows an import left out (`rowsToCopy`: extracted texts, comments), after the entities' other rows, a page
 * of HEAVY_PAGE_BYTES at a time: 200 files of 400 KB of text each (books, long PDFs) were 79 MB in one call, and one
 * file's 1,700 long comments 34 MB, which the platform refuses past 32 MiB. Nothing to do, and no round trip, for a
 * slice whose heavy rows came with its other rows.
 */
export async function copyHeavyRest(
  db: D1Database,
  shard: Pick<LibraryShardDO, "appendRows">,
  ids: string[],
  left: { table: string; after: string }[],
): Promise<void> {
  for (const { table, after } of left) {
    for (let page = { last: after, more: true }; page.more; ) {
      const next = await heavyPage(db, table, ids, page.last, HEAVY_PAGE_BYTES);
      await shard.appendRows([next.rows]);
      page = next;
    }
  }
}

/** Where a check stands: the walk's phase and place, and the folders and files it has counted. */
interface CheckState {
  phase: "folders" | "assets" | "done";
  at: string;
  folders: number;
  assets: number;
}

function checkState(cursor: string): CheckState {
  const fresh: CheckState = { phase: "folders", at: "", folders: 0, assets: 0 };
  return cursor.startsWith("{") ? { ...fresh, ...(JSON.parse(cursor) as Partial<CheckState>) } : fresh;
}

/** What differs between two sets of counts, or null. */
function compare(global: Record<string, number>, shard: Record<string, number>): string | null {
  const differ = Object.keys(global).filter((key) => global[key] !== shard[key]);
  return differ.length === 0 ? null : differ.map((key) => `${key}: ${global[key]} ≠ ${shard[key]}`).join(", ");
}

/**
 * Moves a library into its shard (decision 043, issue 40 item 4), as far as the deadline allows; called again, it
 * resumes where the directory row says it stopped. The steps: copy the library's folders, then its assets, slice by
 * slice, while the catalog keeps accepting writes and journals what they touch; apply the journal until little is
 * left; check, still with writes going on, that the shard holds exactly what D1 holds and fill the id directory
 * ahead; pause the library's writes (`moving`: the catalog refuses them with 503 and Retry-After) and apply only the
 * journal's tail; switch. Every step is a repeatable replace of whole entities recorded after it is done, so a run
 * stopped anywhere loses nothing and doubles nothing. A check that finds a difference resumes the library's writes,
 * records what differed, and copies the library again (the copy replaces, so it repairs whatever the difference was).
 */
export async function continueLibraryMove(env: Env, libraryId: string, o: MoveOptions): Promise<LibraryMove> {
  let move = await readMove(env.DB, libraryId);
  if (!move) throw new AppError("NOT_FOUND", ru.groups.notFound);
  const slice = o.slice ?? MOVE_SLICE;
  const save = async (patch: Partial<LibraryMove>, state: MoveState = move!.state) => {
    move = { ...move!, ...patch, state };
    await saveProgress(env.DB, move, state, Date.now());
  };
  while (move.step !== "done" && Date.now() < o.deadline) {
    // Between slices the isolate's other requests get their turn: in-process calls (a shard, and locally every
    // database) finish without waiting on I/O, and a run of them would otherwise hold the isolate for its whole budget.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (move.step === "folders") {
      const ids = await nextFolders(env.DB, libraryId, move.cursor, slice);
      if (ids.length === 0) {
        await save({ step: "assets", cursor: "" });
        continue;
      }
      await copyEntities(env, move, ids, true);
      await o.afterStep?.("folders:imported");
      await save({ cursor: ids.at(-1)! });
      await o.afterStep?.("folders:saved");
    } else if (move.step === "assets") {
      const { last, homed } = await nextAssets(env.DB, libraryId, move.cursor, slice);
      if (last === null) {
        await save({ step: "catch-up", cursor: "" });
        continue;
      }
      await copyEntities(env, move, homed, true);
      await o.afterStep?.("assets:imported");
      await save({ cursor: last });
      await o.afterStep?.("assets:saved");
    } else if (move.step === "catch-up" || move.step === "final") {
      const step = move.step;
      const until = step === "final" ? Number(move.cursor) : Number.POSITIVE_INFINITY;
      const { last, entries, ids } = await journalAfter(env.DB, move.journalSeq, JOURNAL_SLICE);
      await copyEntities(env, move, ids, false);
      await o.afterStep?.(`${step}:imported`);
      if (last > move.journalSeq) await save({ journalSeq: Math.min(last, until) });
      await o.afterStep?.(`${step}:saved`);
      if (step === "catch-up" && entries < PAUSE_BELOW) await save({ step: "check", cursor: "" });
      else if (step === "final" && move.journalSeq >= until) {
        await switchToShard(env.DB, libraryId, Date.now(), await journaledSince(env.DB, move.checkedSeq ?? 0, until));
        move = (await readMove(env.DB, libraryId))!;
        await o.afterStep?.("switched");
      }
      await trimJournal(env.DB);
    } else if (move.step === "check") {
      await check();
    }
  }
  return move;

  /**
   * A difference found: it is recorded and logged, the shard's copy of the library is cleared (what it held beyond
   * D1 would survive a copy that only replaces), and the copy starts again with the library's writes going on.
   */
  async function restart(differ: string) {
    console.error(JSON.stringify({ level: "error", op: "library-move", library: libraryId, message: differ }));
    await libraryShard(env, move!.shard).clearLibrary();
    await save({ step: "folders", cursor: "", checkedSeq: null, error: differ }, "copying");
  }

  /** The shard brought up to the journal's end as it is now. */
  async function applyJournal() {
    const end = await journalEnd(env.DB);
    while (move!.journalSeq < end) {
      const { last, ids } = await journalAfter(env.DB, move!.journalSeq, JOURNAL_SLICE);
      await copyEntities(env, move!, ids, false);
      await save({ journalSeq: Math.min(last, end) });
    }
  }

  /**
   * The check while writes go on, so that the pause holds only the journal's tail: the shard brought up to the
   * journal's end, then the library's entities walked in slices as the copy walks them — folders, then each file at
   * its home listing — each slice's rows counted per table in D1 and in the shard (short statements: D1 runs one at a
   * time, and one count over a whole library held it for seconds), and at the end the shard's own totals compared
   * with the walk's, which finds what the shard holds beyond it. Writes go on meanwhile: a slice or total that
   * differs is a fault of the copy only if nothing journaled since the walk began touched it (in D1, or in the shard:
   * a file may have left it) — what was touched comes over with the journal. The walk's place is saved, so a check
   * spanning runs resumes. Then the id directory is filled ahead, what was written during the check is applied, and
   * the library pauses for the rest.
   */
  async function check() {
    let state = checkState(move!.cursor);
    if (state.phase === "folders" && state.at === "") await applyJournal();
    const shard = libraryShard(env, move!.shard);
    while (state.phase !== "done" && Date.now() < o.deadline) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      let ids: string[];
      let at: string | null;
      if (state.phase === "folders") {
        ids = await nextFolders(env.DB, libraryId, state.at, slice);
        at = ids.at(-1) ?? null;
      } else {
        const next = await nextAssets(env.DB, libraryId, state.at, slice);
        [ids, at] = [next.homed, next.last];
      }
      if (at === null) {
        state = state.phase === "folders" ? { ...state, phase: "assets", at: "" } : { ...state, phase: "done", at: "" };
      } else {
        const [global, held] = ids.length === 0 ? [{}, {}] : await Promise.all([entityCounts(env.DB, ids), shard.entityCounts(ids)]);
        const differ = compare(global, held);
        // A slice written to since the walk began may differ for that reason alone: the journal brings it over
        // under the pause. Only a slice nobody touched shows a fault of the copy.
        if (differ && (await journaledAmong(env.DB, move!.journalSeq, ids)).length === 0) return restart(differ);
        state = { ...state, at, [state.phase]: state[state.phase as "folders" | "assets"] + ids.length };
      }
      await save({ cursor: JSON.stringify(state) });
    }
    if (state.phase !== "done") return;
    const totals = await shard.entityTotals(libraryId);
    const differ = compare({ folders: state.folders, assets: state.assets }, { folders: totals.folders, assets: totals.assets });
    await o.afterStep?.("counted");
    if (differ) {
      // Folders or files made or removed during the walk move the totals too; only a walk nobody touched shows more.
      const meanwhile = await journaledSince(env.DB, move!.journalSeq);
      const touched =
        meanwhile.length > 0 &&
        ((await belonging(env.DB, libraryId, meanwhile)).length > 0 || (await shard.heldEntities(meanwhile)).length > 0);
      if (!touched) return restart(differ);
    }
    await fillIdDirectory(env.DB, libraryId);
    await save({ checkedSeq: move!.journalSeq });
    await o.afterStep?.("checked");
    // What was written during the walk comes over now, while writes still go on: the pause keeps only the rest.
    await applyJournal();
    // The pause, in one write: the catalog refuses the library's writes from here; what is left is the journal's tail.
    await pauseLibrary(env.DB, libraryId, Date.now());
    move = (await readMove(env.DB, libraryId))!;
    await o.afterStep?.("paused");
  }
}
