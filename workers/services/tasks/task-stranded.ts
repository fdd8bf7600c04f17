import type { RequestContext } from "../access";
import { wakeUp } from "./task-create.service";

/** A running task whose run has not checked in for this long is taken over by the next wake-up. */
export const STALE_RUN_MS = 10 * 60_000;

/**
 * The periodic safety net (cron, every minute): a runnable task nobody is waking — its wake-up lost with a crashed
 * or reloaded runtime, or a run that died holding it — gets one wake-up. One D1 query when all is well.
 */
export async function wakeStrandedTasks(rc: RequestContext, now = Date.now()): Promise<boolean> {
  const row = await rc.dbSession.client.prepare(
    `select 1 as x from tasks where (status = 'inqueue' and schedule_time <= ?1 and mtime < ?2) or (status = 'running' and heartbeat < ?3) limit 1`,
  )
    .bind(now, now - 30_000, now - STALE_RUN_MS)
    .first<{ x: number }>();
  if (!row) return false;
  await wakeUp(rc.env, undefined);
  return true;
}
