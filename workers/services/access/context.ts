import { type Config, getConfig } from "../../lib/config";
import type { Database } from "../../db/client";
import type { SearchShards } from "../../db/repositories/search-index.repository";
import { searchShardBindings } from "../../db/search-shards";
import { DbSession, benchDelayOf } from "../../db/session";

/** Who is calling: resolved from a bearer token or the session cookie. */
export interface Actor {
  id: string;
  name: string;
  login: string;
  isAdmin: boolean;
  isRobot: boolean;
  /** session family of the credential; null for credentials that are not sessions */
  sessionFamily: string | null;
  /**
   * Set for a robot token confined to groups: the actor may reach only entities inside these groups (and their
   * subtrees), whatever its rules say. Absent or null: no confinement beyond the user's own.
   */
  scopeGroups?: string[] | null;
  /** the robot API token the request came with (robots only): what a WOPI token minted by the robot is bound to */
  robotTokenId?: string | null;
}

/**
 * Everything a service needs for one request, built once per request by the API middleware and by the Remix
 * request handler: no module-level state holds bindings.
 */
export interface RequestContext {
  env: Env;
  config: Config;
  /** Drizzle over this request's own D1 session (`dbSession.db`) */
  db: Database;
  /** the request's D1 session: its bookmark, its round-trip meter, and the raw D1 API for the few raw statements */
  dbSession: DbSession;
  /** Drizzle over each shard of the search index (SEARCH, SEARCH_1, …: decisions 040, 042), counted by the same meter */
  search: SearchShards;
  requestId: string;
  waitUntil: (promise: Promise<unknown>) => void;
  /**
   * Set by the page's session lookup once the signed-in viewer is known to be an administrator: only then does a page
   * answer's Server-Timing carry the database detail (workers/lib/server-timing.ts).
   */
  viewerIsAdmin?: boolean;
  /**
   * Set when `db` is a library's shard (decision 043, «Uploads»): the library it holds. What only the catalog knows
   * across libraries (another library's file sharing stored bytes) is asked of the global database.
   */
  library?: string;
  /**
   * Where the request came from, for the audit log's file events: set by the API middleware; absent for background
   * runs (queues, crons), whose entries then carry no address.
   */
  client?: ClientInfo;
  /**
   * Set by a change across libraries (decision 048): long work that writes nothing — a request's body received, stored
   * bytes hashed — done with the libraries it holds let go, so it never keeps their writes refused. `outsideHold` is
   * how work calls it.
   */
  outsideHold?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Long work that writes nothing, done where no library is held for it meanwhile (decision 048). */
export function outsideHold<T>(rc: RequestContext, work: () => Promise<T>): Promise<T> {
  return rc.outsideHold ? rc.outsideHold(work) : work();
}

/** The caller's address and program as the audit log records them. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  /** `app` for the web app (a same-origin browser request), `wopi` for an office editor, `api` for every other program */
  channel: "app" | "api" | "wopi";
}

/** Where the D1 session starts (workers/lib/d1-bookmark.ts for requests); background runs start at the primary. */
export interface SessionStartOptions {
  bookmark?: string | null;
  constraint: D1SessionConstraint;
}

/** Whether `rc.db` is a library's shard (read in its object, or over it from the Worker) rather than the catalog's session. */
export const onShard = (rc: Pick<RequestContext, "db" | "dbSession">): boolean => rc.db !== rc.dbSession.db;

/**
 * The one place a D1 session is opened (decision 030): API requests, pages, queue consumers, workflows and crons all
 * come through here, so every query runs in `env.DB.withSession(…)` and is counted. Background work has no bookmark
 * to carry and writes, so it starts `first-primary`.
 */
export function createRequestContext(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  requestId: string,
  start: SessionStartOptions = { constraint: "first-primary" },
): RequestContext {
  const delay = benchDelayOf(env);
  const dbSession = new DbSession(env.DB, { ...start, delay });
  // The client's bookmark is the catalog's; the index's session starts as the catalog's would without one.
  const search = searchShardBindings(env).map((d1) => new DbSession(d1, { constraint: start.constraint, delay }, dbSession.meter).db);
  return { env, config: getConfig(env), db: dbSession.db, dbSession, search, requestId, waitUntil };
}
