import type { LibraryShardDO } from "../../durable-objects/library-shard.do";
import { ru } from "../../shared/i18n/ru";
import {
  forgetPlacesOf,
  knownPlaceOfId,
  librariesInShards,
  noLibrarySwitched,
  openLibraryShard,
  placeOfId,
  placeOfIdAfresh,
  placesOfIds,
  sharesByPlace,
  type ShardPlace,
} from "../db/library-directory";
import { callShard, type ShardAnswer } from "../db/library-shard-call";
import type { CountsElsewhere, LibraryScope } from "../db/repositories/library-scope";
import { findVariant } from "../db/repositories/asset-versions.repository";
import { callerCopyOf, readCallerCopies, type CallerCopy } from "../db/repositories/caller-copy.repository";
import { AppError } from "../lib/errors";
import { binaryOrder } from "../lib/binary-order";
import { prefetchAccess, type Actor, type RequestContext } from "../services/access";
import { runRoutedRead, SUBTREE_READS, type RoutedRead, type RoutedReadArgs, type RoutedReadValue } from "../services/routed-reads";
import { mergeZipPlans, withVariants, ZIP_REQUEST_MAX_FILES, type ZipPlan, type ZipSelection } from "../services/archive";
import { CARRIED_ELSEWHERE_MAX, type CarriedElsewhere } from "../services/metadata";
import { mergeRootTrees, rootTreePart, TREE_ASSETS_CAPS, type GroupTreeNode, type RootReads, type SubtreeBody } from "../services/library";
import { ROOT_GROUP_ID } from "../lib/ids";

type Shard = Pick<LibraryShardDO, "asset" | "membersPage" | "routedRead">;

/** Who reads: a route's `c.var`, or a page loader's request context and signed-in actor. */
export interface Reader {
  rc: RequestContext;
  actor: Actor;
}

/**
 * A read of one folder or file, answered where its library lives (decision 043): in the Worker over the catalog, or —
 * once its library is in a shard — by one call to that shard, which runs the same service against its own database
 * with the caller's row and groups riding along. What the caller may see is decided inside the shard by the same
 * access rules. The catalog's copy of a switched library stays until routing covers writes too, so both answer alike;
 * the shard's answer is the one that will stay.
 */
export async function readWhereItLives<T>(
  at: Reader,
  id: string,
  here: () => Promise<T>,
  /** null: this read is the catalog's copy's to answer (a file shared with another library, or its folder: decision 047) */
  there: (shard: Shard, caller: CallerCopy) => Promise<ShardAnswer<T | null>>,
  /** whether the catalog's read may start before the place is known: not for a whole folder's ZIP plan */
  o: { guess?: boolean } = {},
): Promise<T> {
  const known = knownPlaceOfId(id);
  if (known && known.place !== "shard") return here();
  // Not known to this isolate: the catalog's read starts with the directory's lookup, so a library still in the
  // catalog (every one, until the first move) pays no extra round trip; the directory's answer picks which stands. A
  // folder's ZIP plan waits for the answer instead: a plan of the whole folder, in a shard, would be thrown away.
  const local = known || o.guess === false ? null : here();
  local?.catch(() => undefined);
  // Beside the lookup, the caller's copy a shard's answer needs next: a lookup happens only once some library lives in
  // a shard, and the copy then costs no round trip of its own (decision 030).
  const copy = known ? null : callerCopyOf(at.rc, at.rc.db, at.actor.id);
  copy?.catch(() => undefined);
  const place = known ?? (await placeOfId(at.rc.db.$client, id));
  if (place.place !== "shard") return local ?? here();
  const [shard, caller] = await Promise.all([openLibraryShard(at.rc.env, place), copy ?? callerCopyOf(at.rc, at.rc.db, at.actor.id)]);
  if (!caller) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  let answer;
  try {
    answer = await callShard(place.name, () => there(shard as unknown as Shard, caller), at.rc.dbSession.meter);
  } catch (error) {
    if (!known || !(await movedSince(at.rc, place, id, error))) throw error;
    return readWhereItLives(at, id, here, there, o);
  }
  return answer ?? local ?? here();
}

/**
 * Whether a shard's 404 for an entity this isolate remembered there means that another isolate's write took it out
 * since (its last listing removed, a move to another library): its place is then asked afresh, and the call goes
 * where it lives now. A place just asked is not asked again: a 404 from it is the answer.
 */
export async function movedSince(
  rc: RequestContext,
  place: ShardPlace,
  id: string,
  error: unknown,
  /** what places it (a comment's file, a link's item), asked only after a 404 */
  placedAs: () => Promise<string> = async () => id,
): Promise<boolean> {
  if (!(error instanceof AppError) || error.code !== "NOT_FOUND") return false;
  forgetPlacesOf([id]);
  const now = await placeOfIdAfresh(rc.db.$client, await placedAs());
  return !(now.place === "shard" && now.library === place.library);
}

/**
 * A read of one folder or file named in `ROUTED_READS`, answered where its library lives (`readWhereItLives`).
 * `prefetch`: over the catalog, the entity's access rows load beside its own rows (decision 030).
 */
export function readRouted<K extends RoutedRead>(
  at: Reader,
  name: K,
  args: RoutedReadArgs<K>,
  prefetch?: "asset" | "group",
): Promise<RoutedReadValue<K>> {
  const id = args[0] as string;
  return readWhereItLives(
    at,
    id,
    () => {
      if (prefetch) prefetchAccess(at.rc, at.actor, { id, type: prefetch });
      return runRoutedRead(at.rc, at.actor, name, args);
    },
    (shard, caller) => shard.routedRead(caller, at.actor, name, args),
    { guess: !SUBTREE_READS.has(name) },
  );
}

/**
 * A selection's archive planned where its libraries live (decision 051): the chosen files and folders are placed in
 * one statement, each library's share is planned where it lives — one call into each shard, side by side, as the
 * caller, with its files' variants (`zipPlan`) — and the plans are merged, names made unique across them
 * (`mergeZipPlans`). A share a shard leaves to the catalog's copy (a file listed in another library too), and the
 * share of libraries still in the catalog, are planned over the catalog.
 */
export async function planZipWhereItLives(at: Reader, selection: ZipSelection): Promise<ZipPlan> {
  const ids = [...selection.assetIds, ...selection.groupIds];
  if (noLibrarySwitched() || ids.length === 0) return runRoutedRead(at.rc, at.actor, "zipPlan", [ids, selection]);
  const copy = callerCopyOf(at.rc, at.rc.db, at.actor.id);
  copy.catch(() => undefined);
  const places = await placesOfIds(at.rc.db.$client, ids);
  const shares = sharesByPlace(new Set(ids), (id) => places.get(id)!);
  const several = shares.length > 1;
  const copies = shares.some(({ place }) => place.place === "shard") ? readCopies(at, copy, []) : null;
  const plans = await Promise.all(
    shares.map(async ({ place, items }) => {
      const mine = new Set(items);
      const part: ZipSelection = {
        assetIds: selection.assetIds.filter((id) => mine.has(id)),
        groupIds: selection.groupIds.filter((id) => mine.has(id)),
      };
      const args: RoutedReadArgs<"zipPlan"> = [[...mine], part];
      const there = place.place === "shard" ? ((await readShare(at, place, "zipPlan", args, copies!)) as ZipPlan | null) : null;
      if (there) return there;
      const here = await runRoutedRead(at.rc, at.actor, "zipPlan", args);
      // Merged with plans that carry their variants, this one carries its own (the archive then looks none up).
      return several ? withVariants(at.rc, here) : here;
    }),
  );
  return mergeZipPlans(plans, ZIP_REQUEST_MAX_FILES);
}

/** The lists read across libraries a page at a time (`pageWhereItLives`): their rows in one order in every library. */
type PagedRead = "trashedAssets" | "trashedGroups" | "taxonMembers" | "entitiesByField" | "foundGroups" | "rulesOfSubjects" | "topEntries";
type Paging = { skip: number; take: number };

/**
 * A page of a list across libraries (decision 051, step 2.3): the catalog lists its own libraries' entries and every
 * shared file's (its copy of the rest left out), each library in its shard the rest of its own, side by side
 * (`LibraryScope`: each entry listed by one) — each the first `skip + take` in the list's `order` — and the merged list
 * is cut to the page. A shard a change across holds leaves its share to the catalog's copy of that library. `argsOf`
 * makes the read's arguments for a window and a scope.
 */
export async function pageWhereItLives<K extends PagedRead>(
  at: Reader,
  name: K,
  argsOf: (window: Paging, scope: LibraryScope) => RoutedReadArgs<K>,
  paging: Paging,
  order: (a: RoutedReadValue<K>[number], b: RoutedReadValue<K>[number]) => number,
): Promise<RoutedReadValue<K>> {
  const own = (window: Paging, scope: LibraryScope = "own") => runRoutedRead(at.rc, at.actor, name, argsOf(window, scope));
  if (noLibrarySwitched()) return own(paging);
  // Each library lists the page's whole depth: past a bound, the catalog's copy answers alone, as before sharding (a
  // merge by key, each library resuming after the last entry shown, is what step 2.5 needs there).
  if (paging.skip + paging.take > PAGE_MERGE_DEPTH) return own(paging, "all");
  // Beside the directory, the caller's copy the shards' answers need (decision 030: no round trip of its own).
  const copy = callerCopyOf(at.rc, at.rc.db, at.actor.id);
  copy.catch(() => undefined);
  const libraries = await librariesInShards(at.rc.db.$client);
  if (libraries.length === 0) return own(paging);
  const window = { skip: 0, take: paging.skip + paging.take };
  const copies = readCopies(at, copy, []);
  const shares = await Promise.all([
    own(window),
    ...libraries.map(
      async (place) =>
        ((await readShare(at, place, name, argsOf(window, "shard"), copies)) as RoutedReadValue<K> | null) ??
        own(window, { library: place.library }),
    ),
  ]);
  const rows = (shares as RoutedReadValue<K>[number][][]).flat().sort(order);
  return rows.slice(paging.skip, paging.skip + paging.take) as RoutedReadValue<K>;
}

/** Entries of a list every library lists for one page, at most (`pageWhereItLives`). */
export const PAGE_MERGE_DEPTH = 2_000;

/** A page of the trash's files or folders across libraries, newest first, then by id (files descending, folders ascending). */
export function trashWhereItLives<K extends "trashedAssets" | "trashedGroups">(at: Reader, name: K, paging: Paging) {
  type Row = RoutedReadValue<"trashedAssets">[number] | RoutedReadValue<"trashedGroups">[number];
  const idOf = (row: Row) => ("asset_id" in row ? row.asset_id : row.group_id);
  const byId = name === "trashedAssets" ? -1 : 1;
  return pageWhereItLives(
    at,
    name,
    (window, scope) => [[], window, scope] as RoutedReadArgs<K>,
    paging,
    (a: Row, b: Row) => binaryOrder(b.deleted_at, a.deleted_at) || byId * binaryOrder(idOf(a), idOf(b)),
  );
}

/**
 * The roots of a caller whose root is not the top-level groups, read where each library lives: «Доступные Файлы» of
 * one listing the top-most folders and files he reads, each library's merged in the listing's order (folders first,
 * then files, each by name key, then id); a confined caller's roots, each asked of its library.
 */
export function rootsWhereTheyLive(at: Reader): RootReads {
  return {
    top: (query, paging) =>
      pageWhereItLives<"topEntries">(
        at,
        "topEntries",
        (window, scope) => [[], query, window, scope],
        paging,
        (a, b) => Number(!a.group) - Number(!b.group) || binaryOrder(a.sort, b.sort) || binaryOrder(a.id, b.id),
      ),
    confined: (roots) =>
      readEachRouted(
        at,
        "confinedRoots",
        roots,
        (id) => id,
        (ids, share) => [ids, share] as const,
      ),
  };
}

/**
 * The root's tree form (`GET /api/group/subtree/{root}`: the move dialog's folders, every tree an API client asks of
 * the root) read where each library lives (decision 051, step 2.3): the catalog's own libraries from the catalog, and
 * each library in its shard from there, side by side — the root's `subtreeText` there is the root with the shard's own
 * library below it, a reader's top-most folders hung on the root — merged (`mergeRootTrees`). A shard that leaves its
 * part to the catalog's copy (held by a change across, or listing a file shared with another library) has that
 * library's part read from the copy.
 */
export async function rootTreeWhereTheyLive(
  at: Reader,
  withAssets: boolean,
  fromCatalog: () => Promise<string | SubtreeBody>,
): Promise<string | SubtreeBody> {
  if (noLibrarySwitched()) return fromCatalog();
  const { copy, libraries } = shardsAhead(at);
  const own = rootTreePart(at.rc, at.actor, withAssets, "own");
  own.catch(() => undefined);
  const places = await libraries;
  if (places.length === 0) return fromCatalog();
  const copies = readCopies(at, copy, []);
  const parts = await Promise.all(
    places.map(async (place) => {
      const text = (await readShare(at, place, "subtreeText", [ROOT_GROUP_ID, withAssets], copies)) as string | null;
      return text === null ? rootTreePart(at.rc, at.actor, withAssets, { library: place.library }) : (JSON.parse(text) as GroupTreeNode);
    }),
  );
  return JSON.stringify(mergeRootTrees([await own, ...parts], withAssets ? TREE_ASSETS_CAPS : undefined));
}

/**
 * One read asked of every library that lives in its shard, as the caller, side by side (a held shard's answered by the
 * catalog's copy of that library): each library's share of a list across libraries (decision 051, step 2.3).
 * Undefined while this isolate knows no library is in a shard. The caller's copy and the libraries are asked at once,
 * beside the list's own query; the shares when the list has its arguments.
 */
function inEveryShard<K extends RoutedRead>(
  at: Reader,
  name: K,
): ((argsOf: (scope: LibraryScope) => RoutedReadArgs<K>) => Promise<RoutedReadValue<K>[]>) | undefined {
  if (noLibrarySwitched()) return undefined;
  const { copy, libraries } = shardsAhead(at);
  return async (argsOf) => {
    const places = await libraries;
    if (places.length === 0) return [];
    const copies = readCopies(at, copy, []);
    return Promise.all(
      places.map(
        async (place) =>
          ((await readShare(at, place, name, argsOf("shard"), copies)) as RoutedReadValue<K> | null) ??
          runRoutedRead(at.rc, at.actor, name, argsOf({ library: place.library })),
      ),
    );
  };
}

/** The caller's copy and the libraries in their shards, read once per request however many lists ask every shard. */
function shardsAhead(at: Reader): { copy: Promise<CallerCopy | null>; libraries: Promise<ShardPlace[]> } {
  let ahead = everyShardAhead.get(at.rc);
  if (!ahead) {
    ahead = { copy: callerCopyOf(at.rc, at.rc.db, at.actor.id), libraries: librariesInShards(at.rc.db.$client) };
    ahead.copy.catch(() => undefined);
    ahead.libraries.catch(() => undefined);
    everyShardAhead.set(at.rc, ahead);
  }
  return ahead;
}
const everyShardAhead = new WeakMap<object, ReturnType<typeof shardsAhead>>();

/**
 * Counts a list of global rows carries in libraries that live in their shards: tags' uses or taxa's members, each
 * library's counted in its shard (`inEveryShard`) and summed per row; the list adds them to the catalog's own
 * (`countedEverywhere`).
 */
export function countsInShards(at: Reader, name: "tagCounts" | "taxonCounts"): CountsElsewhere | undefined {
  const ask = inEveryShard(at, name);
  if (!ask) return undefined;
  return async (ids) => {
    const sums = new Map<string, number>();
    const shares = (await ask((scope) => [[], ids, scope])) as [string, number][][];
    for (const [id, n] of shares.flat()) sums.set(id, (sums.get(id) ?? 0) + n);
    return sums;
  };
}

/**
 * The tags a tag list's entity filter finds in libraries that live in their shards (`inEveryShard`), or null when one
 * of them carries more than a call brings back (`CARRIED_ELSEWHERE_MAX`): the catalog's copy then answers alone.
 */
export function carriedInShards(at: Reader): CarriedElsewhere | undefined {
  const ask = inEveryShard(at, "tagsCarried");
  if (!ask) return undefined;
  return async (filter) => {
    const shares = await ask((scope) => [[], filter, scope, CARRIED_ELSEWHERE_MAX + 1]);
    if (shares.some((share) => share.length > CARRIED_ELSEWHERE_MAX)) return null;
    return [...new Set(shares.flat())];
  };
}

/**
 * A read of a variant, where its file's library lives: the file the caller names (`a`, the id first), or for an older
 * client naming the variant alone, the file its catalog row names (`fileOfVariant`).
 */
export async function readOfVariant<K extends "playVariant" | "variantTechFields" | "variantTechProps" | "uploadStatus">(
  at: Reader,
  name: K,
  args: RoutedReadArgs<K>,
): Promise<RoutedReadValue<K>> {
  const [named, variantId, ...rest] = args;
  const file = named ?? (await fileOfVariant(at.rc, variantId as string));
  if (file === undefined) return runRoutedRead(at.rc, at.actor, name, args);
  return readRouted(at, name, [file, variantId, ...rest] as unknown as RoutedReadArgs<K>);
}

/**
 * The file of a variant named without it (an older client, a link signed before `a` existed), by the variant's
 * catalog row, as a comment, a link or a rule is placed (decision 051, «routing itself»). Undefined while this
 * isolate knows no library is in a shard (nothing to place: no round trip), and for a variant the catalog does not
 * know, whose read there answers.
 */
export async function fileOfVariant(rc: RequestContext, variantId: string): Promise<string | undefined> {
  if (noLibrarySwitched()) return undefined;
  return (await findVariant(rc.db, variantId))?.assetId;
}

/**
 * A read over several folders or files, each answered where its library lives (decision 051): their places asked
 * together, the catalog answering for those still in it and one call into each shard for its own, side by side, the
 * answers put back in the order asked. A shard that leaves its share to the catalog's copy (a file shared with another
 * library among them, or a change across holding it) has it read there. `argsOf` makes the read's arguments for some
 * of the items, their distinct ids first; the read answers one value per item. `people`: others whose levels it
 * answers, whose copies ride along into a shard.
 */
export async function readEachRouted<K extends RoutedRead, I>(
  at: Reader,
  name: K,
  items: readonly I[],
  idOf: (item: I) => string,
  argsOf: (ids: string[], items: I[]) => RoutedReadArgs<K>,
  people: readonly string[] = [],
  again = true,
): Promise<RoutedReadValue<K>> {
  const ids = items.map(idOf);
  const switched = !noLibrarySwitched();
  // Beside the places, the caller's copy a shard's answer needs (decision 030: no round trip of its own).
  const copy = switched ? callerCopyOf(at.rc, at.rc.db, at.actor.id) : null;
  copy?.catch(() => undefined);
  const remembered = new Set(ids.filter((id) => knownPlaceOfId(id)?.place === "shard"));
  const places = await placesOfIds(at.rc.db.$client, ids);
  const shares = sharesByPlace(ids.keys(), (index) => places.get(ids[index])!);
  const others = [...new Set(people)].filter((id) => id !== at.actor.id);
  const copies = shares.some(({ place }) => place.place === "shard") ? readCopies(at, copy, others) : null;
  const answers: unknown[] = new Array(items.length);
  try {
    await Promise.all(
      shares.map(async ({ place, items: indexes }) => {
        const share = indexes.map((index) => items[index]);
        const args = argsOf([...new Set(share.map(idOf))], share);
        const answer =
          (place.place === "shard" && (await readShare(at, place, name, args, copies!))) ||
          ((await runRoutedRead(at.rc, at.actor, name, args)) as unknown[]);
        answer.forEach((value, j) => (answers[indexes[j]] = value));
      }),
    );
  } catch (error) {
    // A place this isolate remembered may be out of date (moved since): asked afresh, once.
    if (!again || !(error instanceof AppError) || error.code !== "NOT_FOUND" || remembered.size === 0) throw error;
    forgetPlacesOf([...remembered]);
    return readEachRouted(at, name, items, idOf, argsOf, people, false);
  }
  return answers as RoutedReadValue<K>;
}

/** The levels of the caller (or of others, for a holder of `acl`) on folders and files, read where each lives. */
export function levelsWhereTheyLive(at: Reader, pairs: { entity: string; user?: string }[]) {
  const people = pairs.flatMap((pair) => (pair.user ? [pair.user] : []));
  return readEachRouted(
    at,
    "userAccess",
    pairs,
    (pair) => pair.entity,
    (ids, share) => [ids, share] as const,
    people,
  );
}

async function readCopies(at: Reader, copy: Promise<CallerCopy | null> | null, others: string[]) {
  const [caller, people] = await Promise.all([copy ?? callerCopyOf(at.rc, at.rc.db, at.actor.id), readCallerCopies(at.rc.db, others)]);
  if (!caller) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return { caller, people };
}

/** One shard's share of a read over several items: null when the catalog's copy is to answer it. */
async function readShare<K extends RoutedRead>(
  at: Reader,
  place: ShardPlace,
  name: K,
  args: RoutedReadArgs<K>,
  copies: ReturnType<typeof readCopies>,
): Promise<unknown[] | null> {
  const [shard, { caller, people }] = await Promise.all([openLibraryShard(at.rc.env, place), copies]);
  const answer = await callShard(
    place.name,
    () => (shard as unknown as Shard).routedRead(caller, at.actor, name, args, people),
    at.rc.dbSession.meter,
  );
  return answer as unknown[] | null;
}
