import type { LibraryShardDO } from "../../../durable-objects/library-shard.do";
import { ru } from "../../../shared/i18n/ru";
import { createDb, type Database } from "../../db/client";
import {
  noLibrarySwitched,
  openLibraryShard,
  placeOfId,
  placeOfIdAfresh,
  switchedLibraries,
  type LibraryPlace,
  type ShardPlace,
} from "../../db/library-directory";
import { callShard } from "../../db/library-shard-call";
import { applyWriteback, type Writeback } from "../../db/library-writeback";
import { RemoteShardClient } from "../../db/remote-shard-client";
import { metered } from "../../db/round-trips";
import { callerCopyOf, readPersonCopy, type CallerCopy } from "../../db/repositories/caller-copy.repository";
import { globalsNamed, listedOutsideLibrary, outsideLibrary, type TableRows } from "../../db/repositories/library-move.repository";
import { switchedLibrariesOf } from "../../db/repositories/library-crossing.repository";
import { AppError, isLibraryMoving } from "../../lib/errors";
import { mintingIn } from "../../lib/id-minting";
import type { Actor, RequestContext } from "../access";
import { acrossLibraries, crossingOver, outsideOf, type Crossing } from "./library-crossing.service";
import { writeBack } from "./shard-writeback.service";

type RunShard = Pick<LibraryShardDO, "enter" | "statements" | "writeback" | "writtenBack">;

/**
 * Writes back what a shard committed before the answer, so everything still reading the catalog sees it; the shard
 * forgets it after the answer. Committed in the shard, the library's own: what is not written back here the next
 * write or the minute cron writes back (idempotent), so the caller gets the shard's answer either way.
 */
export async function writeBackNow(rc: RequestContext, shard: Pick<RunShard, "writeback" | "writtenBack">, library: string, wb: Writeback) {
  const failed = (error: unknown) => {
    console.error(JSON.stringify({ level: "error", op: "shard-writeback", library, message: String(error) }));
    return false;
  };
  const applied = await applyWriteback(rc.env.DB, wb).then(() => true, failed);
  rc.waitUntil(writeBack(rc.env, shard, wb, { applied }).catch(failed));
}

/**
 * An operation whose bytes stay in the Worker — an upload streams, hashes and stores them there; the media pipeline
 * decodes them there — run over a switched library's shard (decision 043, «Uploads»): its statements go to the
 * shard one call each (`RemoteShardClient`), with the caller (none for the pipeline) and the global rows it names
 * stored there first. Storages stay read from the global database (their credentials never leave it). What it
 * queues waits for the writeback — the consumers read the catalog, which must already hold what they are asked to
 * process — and what it changed is written back before it returns, whether it succeeded or not (a mark it made and
 * undid, a cleanup after a failure).
 */
export async function runOverShard<T>(
  rc: RequestContext,
  place: ShardPlace,
  enter: { caller: CallerCopy | null; globals: TableRows[] },
  operation: (rc: RequestContext) => Promise<T>,
  /** for work that receives a body: the folders and files it touches, looked at again once the body has arrived */
  touched?: readonly string[],
): Promise<T> {
  const shard = (await openLibraryShard(rc.env, place)) as unknown as RunShard;
  const meter = rc.dbSession?.meter;
  const call = <V>(work: () => Promise<V>) => callShard(place.name, async () => ({ ok: true as const, value: await work() }), meter);
  await call(() => shard.enter(enter.caller, enter.globals));
  const queued: MessageSendRequest[] = [];
  const tasks = {
    send: async (body: unknown, options?: QueueSendOptions) => void queued.push({ body, ...options }),
    sendBatch: async (messages: Iterable<MessageSendRequest>) => void queued.push(...messages),
  } as unknown as Queue;
  let across: Crossing | null = null;
  const over: RequestContext = {
    ...rc,
    // Each statement or batch sent is one round trip, counted like the catalog's (decision 030).
    db: createDb(new RemoteShardClient({ statements: (list, mode) => metered(meter, list.length, () => shard.statements(list, mode)) })),
    env: { ...rc.env, TASKS: tasks },
    library: place.library,
  };
  if (touched) {
    // A change across while the body arrived may have taken what the work touches into another library (decision
    // 049): the rest then runs on the catalog's copy as a change across the libraries it is in now and this one —
    // which writes back what it took meanwhile (a pending version written after its file had left) and, at the end,
    // lets go of it.
    over.outsideHold = async (work) => {
      const received = await work();
      const now = await switchedLibrariesOf(rc.env.DB, touched);
      if (now.length === 1 && now[0]!.libraryId === place.library) return received;
      const here = { libraryId: place.library, name: place.name, shard: place.shard, state: "shard" as const };
      across = crossingOver(rc.env, touched);
      await across.hold([here, ...now.filter((l) => l.libraryId !== place.library)]);
      Object.assign(over, { db: rc.db, library: undefined, outsideHold: outsideOf(across) });
      return received;
    };
  }
  try {
    return await mintingIn(place.shard, () => operation(over));
  } finally {
    try {
      const wb = await call(() => shard.writeback(place.library));
      await writeBackNow(rc, shard, place.library, wb);
    } finally {
      // An end that fails (a shard not answering) is the minute cron's to repeat, as for any change across.
      await (across as Crossing | null)
        ?.letGo()
        .catch((error) => console.error(JSON.stringify({ level: "error", op: "library-crossing", message: String(error) })));
    }
    if (queued.length) await rc.env.TASKS.sendBatch(queued);
  }
}

/**
 * Statements to a library's shard from the Worker without entering it: for reads that decide no access (no caller)
 * and write nothing (no writeback) — where a planned archive's bytes are, as it streams. Each statement is one call.
 */
export async function shardReader(rc: RequestContext, place: ShardPlace): Promise<Database> {
  const shard = (await openLibraryShard(rc.env, place)) as unknown as RunShard;
  const meter = rc.dbSession?.meter;
  return createDb(new RemoteShardClient({ statements: (list, mode) => metered(meter, list.length, () => shard.statements(list, mode)) }));
}

/**
 * Work on one file or folder where its library lives: over the catalog, or over its shard (`runOverShard`), written
 * back before it returns. Without an actor (the media pipeline, hashing, cleanups) no caller enters; an automation's
 * or a task's owner enters with the global rows the work names. Work that also touches another library, one of them
 * in its shard, runs as a change across libraries (decision 046) — found before it runs when the first library is in
 * a shard, or by the catalog's refusal (nothing written) when it is not, and then run again; work that cannot run
 * twice (`streamed`: it reads a request's body) asks its place afresh and, when any library is in a shard, where its
 * file is once the body has arrived.
 */
export async function inLibraryOf<T>(
  rc: RequestContext,
  id: string,
  work: (rc: RequestContext) => Promise<T>,
  o: Entry & { streamed?: boolean; beforeCrossing?: () => Promise<void> } = {},
): Promise<T> {
  // Already over a shard (work nested in work): the same library.
  if (rc.library) return work(rc);
  const touched = [id, ...(o.sameLibrary ?? []), ...(o.files ?? [])];
  const across = () => acrossLibraries(rc, touched, work, { beforeHold: o.beforeCrossing });
  // Work that reads a body would answer 503 after it, were the catalog to refuse it: an isolate's belief that no
  // library is in a shard (a minute old at most, and wrong only after the install's first move) is not trusted there.
  let place = await (o.streamed && noLibrarySwitched() ? placeOfIdAfresh : placeOfId)(rc.db.$client, id);
  if (place.place !== "shard") {
    if (o.streamed && !noLibrarySwitched()) return across();
    try {
      return await work(rc);
    } catch (error) {
      if (!isLibraryMoving(error) || o.streamed) throw error;
      place = await placeOfIdAfresh(rc.db.$client, id);
      if (place.place === "moving") throw error;
      if (place.place === "catalog") return across();
    }
  }
  let entry;
  try {
    entry = await entryInto(rc, place.library, o);
  } catch (error) {
    if (error instanceof AcrossLibraries) return across();
    throw error;
  }
  return runOverShard(rc, place, entry, work, o.streamed ? touched : undefined);
}

/**
 * Work entering a library's shard that touches another library too: a change across libraries does it instead
 * (decision 046), so this refusal is always caught on the way.
 */
export class AcrossLibraries extends AppError {
  constructor() {
    super("CONFLICT", ru.groups.betweenLibraries);
  }
}

/** Who enters a library's shard for a piece of work, with what, and what it may touch (decision 043). */
export interface Entry {
  /** the caller (none for the pipeline and the sweeps) */
  actor?: Actor | null;
  /** global rows the work names, for the shard's checks */
  named?: Parameters<typeof globalsNamed>[1];
  /** files whose listings it changes: refused when listed in another library too */
  files?: string[];
  /** other folders and files it touches: in another library, the work runs across libraries (decision 046) */
  sameLibrary?: string[];
  /** other people (by id or login) whose access the shard decides, as it does the caller's: a reviewer asked for */
  people?: string[];
}

/**
 * The caller's copy and the named global rows a piece of work brings into `library`'s shard, read from the global
 * database; 409 when it touches another library (a file listed there too, a folder or file of it).
 */
export async function entryInto(
  rc: RequestContext,
  library: string,
  o: Entry,
): Promise<{ caller: CallerCopy | null; globals: TableRows[]; people: CallerCopy[] }> {
  const named = o.named ?? {};
  const [caller, globals, elsewhere, others, people] = await Promise.all([
    o.actor ? callerCopyOf(rc, rc.db, o.actor.id) : null,
    Object.values(named).some((ids) => ids && ids.length > 0) ? globalsNamed(rc.env.DB, named) : [],
    o.files?.length ? listedOutsideLibrary(rc.env.DB, library, o.files) : false,
    o.sameLibrary?.length ? outsideLibrary(rc.env.DB, library, o.sameLibrary) : false,
    Promise.all((o.people ?? []).map((who) => readPersonCopy(rc.db, who))),
  ]);
  if (o.actor && !caller) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  // What it touches in other libraries (its listings there too) is not in this shard: the shard's write would leave
  // it as it was.
  if (others || elsewhere) throw new AcrossLibraries();
  return { caller, globals, people: people.filter((p) => p !== null) };
}

/**
 * Background work over every switched library's shard in turn (the hourly cleanups): the catalog's own run leaves
 * their rows alone, since the catalog refuses to change them. One shard not answering is logged; the others go on.
 */
export async function inEverySwitchedLibrary(rc: RequestContext, work: (rc: RequestContext) => Promise<string>): Promise<string[]> {
  const done: string[] = [];
  for (const place of await switchedLibraries(rc.env.DB)) {
    try {
      done.push(`${place.name}: ${await runOverShard(rc, place, { caller: null, globals: [] }, work)}`);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", op: "library-shard", library: place.name, message: String(error) }));
    }
  }
  return done;
}
