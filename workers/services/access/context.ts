import { type Config, getConfig } from "../../lib/config";
import { createDb, type Database } from "../../db/client";

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
  db: Database;
  requestId: string;
  waitUntil: (promise: Promise<unknown>) => void;
}

export function createRequestContext(env: Env, waitUntil: (p: Promise<unknown>) => void, requestId: string): RequestContext {
  return { env, config: getConfig(env), db: createDb(env.DB), requestId, waitUntil };
}
