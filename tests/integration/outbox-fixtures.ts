import { env } from "cloudflare:workers";
import { newId } from "../../workers/lib/ids";
import { rows } from "./catalog-fixtures";

/** An event as a change would have written it into the outbox (undelivered), without waking the dispatcher. */
export interface OutboxEventSpec {
  type: string;
  entityId: string;
  data?: Record<string, unknown>;
  cause?: { taskId: string; depth: number };
}

/** Writes undelivered asset events straight into `global_events`; returns their ids in order. */
export async function insertOutboxEvents(events: readonly OutboxEventSpec[]): Promise<string[]> {
  const now = Date.now();
  const ids = events.map(() => newId(now));
  await env.DB.batch(
    events.map((e, i) =>
      env.DB.prepare(
        `INSERT INTO global_events (event_id, ctime, type, entity_type, entity_id, owner_id, actor_id, data, delivered_at, cause_task_id, cause_depth)
         VALUES (?, ?, ?, 'asset', ?, NULL, NULL, ?, NULL, ?, ?)`,
      ).bind(ids[i], now, e.type, e.entityId, JSON.stringify(e.data ?? {}), e.cause?.taskId ?? null, e.cause?.depth ?? null),
    ),
  );
  return ids;
}

/** The deliveries recorded for these events, oldest event first. */
export async function deliveriesOf(eventIds: readonly string[]) {
  return rows<{ event_id: string; workflow_id: string; task_id: string | null; handed_at: number | null }>(
    `SELECT d.event_id, d.workflow_id, d.task_id, d.handed_at FROM event_deliveries d JOIN global_events e ON e.event_id = d.event_id
     WHERE d.event_id IN (SELECT value FROM json_each(?)) ORDER BY e.seq, d.workflow_id`,
    JSON.stringify(eventIds),
  );
}
