import { newId } from "../lib/ids";
import { createRequestContext, type RequestContext } from "../services/access";

/** Drizzle over a fresh D1 session of its own, for an operation that needs nothing else of a request context. */
export function backgroundDb(env: Env, op: string) {
  return createRequestContext(env, () => {}, `${op}-${newId()}`).db;
}

/**
 * Runs an operation with the same context services get for a request (database, config with the secret that opens
 * storage credentials, per-run storage backends), so background work reaches external storages exactly as requests
 * do. Work handed to `waitUntil` is awaited before the operation reports back.
 */
export async function withTaskContext(env: Env, op: string, run: (rc: RequestContext) => Promise<string>): Promise<string> {
  const pending: Promise<unknown>[] = [];
  const rc = createRequestContext(env, (p) => void pending.push(p), `${op}-${newId()}`);
  try {
    return await run(rc);
  } finally {
    await Promise.allSettled(pending);
  }
}
