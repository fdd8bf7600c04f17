import type { Context } from "hono";
import type { LibraryShardDO, Written } from "../../durable-objects/library-shard.do";
import { knownPlaceOfId, noLibrarySwitched, openLibraryShard, placeOfId, placeOfIdAfresh, type ShardPlace } from "../db/library-directory";
import { callShard } from "../db/library-shard-call";
import { rulesByIds } from "../db/repositories/access.repository";
import { findComment } from "../db/repositories/comment.repository";
import { findShortlink } from "../db/repositories/shortlink.repository";
import { anyLibraryMoving } from "../db/repositories/library-move.repository";
import { isLibraryMoving } from "../lib/errors";
import { shardOfId } from "../lib/ids";
import type { RequestContext } from "../services/access";
import type { GlobalChange } from "../db/repositories/library-crossing.repository";
import {
  AcrossLibraries,
  acrossLibraries,
  acrossLibrariesReached,
  entryInto,
  inLibraryOf,
  refreshShardCopies,
  writeBackNow,
  type Entry,
} from "../services/library";
import { runRoutedWrite, type RoutedArgs, type RoutedValue, type RoutedWrite } from "../services/routed-writes";
import { movedSince } from "./library-reads";
import { enforceRateLimit } from "./middleware/rate-limit";
import type { AppEnv } from "./types";

type WriteShard = Pick<LibraryShardDO, "routedWrite" | "writeback" | "writtenBack">;

/**
 * After a change to a global row the shards keep copies of (a person, a tag, a classification, a class or a field
 * template renamed): the shards' copies made current right after the answer (decision 050), so a file read from its
 * shard shows the new name at once; the minute cron (decision 043) stays the fallback. One refresh at a time per
 * isolate, run again while changes came meanwhile (for 20 s at most, within waitUntil's time): anyone may rename
 * himself in a loop, and each refresh calls every shard — back to back, never side by side.
 */
export function refreshCopiesSoon(c: Context<AppEnv>): void {
  if (noLibrarySwitched()) return;
  // A refresh the runtime cut short (past waitUntil's limit) never settles: after a while it no longer counts.
  if (copiesRefresh && Date.now() - copiesRefresh.since < 30_000) {
    copiesRefresh.again = true;
    return;
  }
  const refresh = { since: Date.now(), again: false };
  copiesRefresh = refresh;
  const once = () =>
    refreshShardCopies(c.env).catch((error) =>
      console.error(JSON.stringify({ level: "error", op: "shard-copies", message: String(error) })),
    );
  c.var.rc.waitUntil(
    (async () => {
      do {
        refresh.again = false;
        await once();
      } while (refresh.again && Date.now() - refresh.since < 20_000);
      if (copiesRefresh === refresh) copiesRefresh = null;
    })(),
  );
}
let copiesRefresh: { since: number; again: boolean } | null = null;

/** A global change reaching into libraries, run as a change across those in their shards (decision 050). */
export const globalChange =
  (c: Context<AppEnv>): GlobalChange =>
  (reach, statements, inShards) =>
    acrossLibrariesReached(c.var.rc, reach, statements, inShards);

/**
 * A write to one folder or file, made where its library lives (decision 043, «Writes»). It is tried in the catalog
 * first: the catalog's triggers refuse a write to a switched library as a whole (LIBRARY_MOVING, nothing written),
 * so a library still in the catalog — every one, until the first move — pays nothing for the routing. Refused, or
 * known to be in a shard, the write runs in the shard with the caller and the global rows it names riding along;
 * its changes are written back to the catalog before the answer (what still reads the catalog — search, lists across
 * libraries, the outbox, the audit — sees them at once) and the shard forgets them after. A library being switched
 * stays refused with 503 and Retry-After. A write that touches another library too, one of them in its shard, runs
 * as a change across libraries (decision 046).
 */
export async function writeWhereItLives<K extends RoutedWrite>(
  c: Context<AppEnv>,
  id: string,
  name: K,
  args: RoutedArgs<K>,
  o: Omit<Entry, "actor" | "sameLibrary"> & {
    /** an entity not in the directory itself (a comment, a link): placed by what this answers */
    placedBy?: () => Promise<string>;
    /** other folders and files it touches, perhaps in other libraries (perhaps worked out only when needed) */
    sameLibrary?: string[] | (() => Promise<string[]>);
    /** whether the write takes something out of its library though it names no other (a file's last listing) */
    leaves?: () => Promise<boolean>;
  } = {},
): Promise<RoutedValue<K>> {
  const placed = async () => (o.placedBy ? await o.placedBy() : id);
  const sameLibrary = async () => (typeof o.sameLibrary === "function" ? await o.sameLibrary() : o.sameLibrary ?? []);
  const across = async (): Promise<RoutedValue<K>> =>
    acrossLibraries(
      c.var.rc,
      [await placed(), ...(await sameLibrary()), ...(o.files ?? [])],
      (rc) => runRoutedWrite(rc, c.var.actor, name, args),
      { beforeHold: () => limitCrossings(c) },
    );
  let place = knownPlaceOfId(id);
  const remembered = place?.place === "shard";
  // An id minted in a shard (decision 043) lives in one almost always: its place is asked first, one read, instead of a
  // write the catalog would refuse and then the same read.
  if (!place && !o.placedBy && shardOfId(id) !== null) place = await placeOfId(c.var.rc.db.$client, id);
  if (place?.place !== "shard") {
    try {
      return await runRoutedWrite(c.var.rc, c.var.actor, name, args);
    } catch (error) {
      if (!isLibraryMoving(error)) throw error;
      place = await placeOfIdAfresh(c.var.rc.db.$client, await placed());
      if (place.place === "catalog" && !(await anyLibraryMoving(c.env.DB))) return across();
      if (place.place !== "shard") throw error;
    }
  }
  try {
    return await writeInShard(place);
  } catch (error) {
    if (!remembered || !(await movedSince(c.var.rc, place, id, error, placed))) throw error;
    return writeWhereItLives(c, id, name, args, o);
  }

  async function writeInShard(place: ShardPlace): Promise<RoutedValue<K>> {
    const library = place.library;
    const entry = { actor: c.var.actor, named: o.named, files: o.files, sameLibrary: await sameLibrary(), people: o.people };
    let entered;
    try {
      entered = await Promise.all([openLibraryShard(c.env, place), entryInto(c.var.rc, library, entry), o.leaves?.() ?? false]);
    } catch (error) {
      if (error instanceof AcrossLibraries) return across();
      throw error;
    }
    const [shard, { caller, globals, people }, leaves] = entered;
    // What leaves its library lives on in the catalog, in none: the shard would keep it.
    if (leaves) return across();
    const routed = shard as unknown as WriteShard;
    const written = (await callShard(
      place.name,
      () => routed.routedWrite(caller!, c.var.actor, globals, library, name, args, people ?? [], place.shard),
      c.var.rc.dbSession.meter,
    )) as Written<RoutedValue<K>>;
    await writeBackNow(c.var.rc, routed, library, written.writeback);
    return written.value;
  }
}

/**
 * An operation run in the Worker (an upload: its bytes stay there) where `id`'s library lives: over the catalog, or
 * over its shard (`runOverShard`, decision 043 «Uploads») with the caller and the global rows it names; across
 * libraries when it touches another one too (decision 046). One that reads the request's body (`streamed`) cannot be
 * tried twice: its place and the libraries it touches are asked before anything is stored.
 */
export async function runWhereItLives<T>(
  c: Context<AppEnv>,
  id: string,
  operation: (rc: RequestContext) => Promise<T>,
  o: Entry & { streamed?: boolean } = {},
): Promise<T> {
  const remembered = knownPlaceOfId(id);
  try {
    return await inLibraryOf(c.var.rc, id, operation, { ...o, actor: o.actor ?? c.var.actor, beforeCrossing: () => limitCrossings(c) });
  } catch (error) {
    // Refused before a body was read, the operation can run again where the entity lives now.
    const again = remembered?.place === "shard" && !(o.streamed && c.req.raw.bodyUsed);
    if (again && (await movedSince(c.var.rc, remembered, id, error))) return runWhereItLives(c, id, operation, o);
    if (!isLibraryMoving(error)) throw error;
    // The isolate's place was out of date (its next request asks afresh): the 503 asks the client to try again.
    await placeOfIdAfresh(c.var.rc.db.$client, id);
    throw error;
  }
}

/**
 * A change across libraries holds the shards it touches, refusing others' writes there for its moment, before its own
 * checks run: limited per person (administrators, who move libraries' contents about, are not), so nobody can keep a
 * library's writes refused by sending such calls in a loop.
 */
async function limitCrossings(c: Context<AppEnv>): Promise<void> {
  // Per person only: a change across needs a signed-in caller, and people behind one address each get their own.
  if (!c.var.actor?.isAdmin) await enforceRateLimit(c, "across-libraries", { perIp: false });
}

/** The file a comment is on, which places the comment in its library (the catalog's copy keeps every comment). */
export const fileOfComment = (c: Context<AppEnv>, id: string) => async () => (await findComment(c.var.rc.db, id))?.asset_id ?? id;

/** The file or folder a link shares, which places the link in its library (the catalog's copy keeps every link). */
export const itemOfLink = (c: Context<AppEnv>, id: string) => async () => (await findShortlink(c.var.rc.db, id))?.entityId ?? id;

/** The folders and files rules `ids` are on, which place the rules in their libraries (a rule not found: its id). */
export async function objectsOfRules(c: Context<AppEnv>, ids: string[]): Promise<string[]> {
  const found = new Map((await rulesByIds(c.var.rc.db, ids)).map((r) => [r.rule_id, r.obj_id]));
  return ids.map((id) => found.get(id) ?? id);
}
