import { createDb, type Database } from "../../db/client";
import { anyPending, indexSlice, indexState, type IndexState } from "../../db/repositories/search-feed.repository";
import type { SearchShards } from "../../db/repositories/search-index.repository";
import { searchShardBindings } from "../../db/search-shards";
import type { RequestContext } from "../access";

/**
 * The search index's feed (decision 040): a change only marks its documents pending (migration 0056); they are read
 * from the catalog and written to the SEARCH databases here (each document to its shard, decision 042), slice by slice, by whoever gets there first — the
 * changing request once it has answered, a search that finds the index behind, the minute cron. A slice takes the
 * lowest pending documents and drops a mark only if nothing marked the document again meanwhile; SEARCH keeps the
 * newest mark each row was written from. So feeds running at once, or one stopped anywhere, lose and double nothing.
 */

/** Documents per slice: three short calls that keep neither (single-threaded) database busy for long. */
const FEED_SLICE = 200;
/** How long a search may spend catching the index up before it answers from what is indexed (visibility then by SQL). */
const CATCH_UP_MS = 250;
/** How long a changing request's `waitUntil` feeds; the cron takes what is left. */
const AFTER_CHANGE_MS = 5_000;
/** The minute cron's share. */
const CRON_MS = 15_000;

export interface FeedSummary {
  indexed: number;
  behind: boolean;
  ms: number;
}

/**
 * Indexes pending documents until none is left or `deadline` (ms since the epoch) has passed; at least one slice.
 * @example await feedIndex(createDb(env.DB), searchShardBindings(env).map(createDb), { deadline: Date.now() + 1000 })
 */
export async function feedIndex(
  db: Database,
  search: SearchShards,
  o: { deadline: number; slice?: number },
): Promise<FeedSummary & IndexState> {
  const started = Date.now();
  let indexed = 0;
  for (;;) {
    const state = await indexSlice(db, search, o.slice ?? FEED_SLICE);
    indexed += state.indexed;
    if (!state.behind || Date.now() >= o.deadline) return { ...state, indexed, ms: Date.now() - started };
  }
}

/** The index state for this request: a read started earlier (with authentication), or one now. */
export function readIndexState(rc: RequestContext): Promise<IndexState> {
  return indexState(rc.db);
}

/**
 * The index as a search should read it: when documents are pending, slices are indexed first for up to CATCH_UP_MS,
 * so what a caller has just changed is found. `behind` then says whether some are still pending (a large move or
 * switch): the caller's visibility must not be decided by the index for those.
 */
export async function caughtUp(rc: RequestContext, read?: Promise<IndexState>): Promise<IndexState> {
  const state = await (read ?? readIndexState(rc));
  if (!state.behind) return state;
  try {
    const fed = await feedIndex(rc.db, rc.search, { deadline: Date.now() + CATCH_UP_MS });
    return { epoch: fed.epoch, behind: fed.behind };
  } catch (error) {
    // A shard that cannot be written (decision 042): the search answers from what is indexed, or names the shard.
    console.error(JSON.stringify({ level: "error", op: "search-feed", message: String(error) }));
    return state;
  }
}

/** Database handles of their own, so the request's round trips and bookmark are untouched. */
const ownHandles = (env: Env) => [createDb(env.DB), searchShardBindings(env).map((d1) => createDb(d1))] as const;

/** After a request that may have changed something: once it has answered, the index takes up what it marked. */
export function feedAfterChange(rc: RequestContext): void {
  const [db, search] = ownHandles(rc.env);
  rc.waitUntil(
    (async () => {
      if (await anyPending(db)) await feedIndex(db, search, { deadline: Date.now() + AFTER_CHANGE_MS });
    })().catch((error: unknown) => console.error(JSON.stringify({ level: "error", op: "search-feed", message: String(error) }))),
  );
}

/** The minute cron's feed: the sweeper for changes made outside a request (queue, workflows) or left over. */
export function runIndexFeed(env: Env): Promise<FeedSummary> {
  const [db, search] = ownHandles(env);
  return feedIndex(db, search, { deadline: Date.now() + CRON_MS });
}
