import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";

/** The queries of the event outbox (decision 024): undelivered events, delivery records and their hand-overs. */

/** An undelivered event as the dispatcher reads it. */
export interface OutboxRow {
  event_id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  data: string;
  cause_task_id: string | null;
  cause_depth: number | null;
}

/** A recorded delivery whose hand-over is not done yet. */
export interface PendingDeliveryRow {
  event_id: string;
  workflow_id: string;
  task_id: string | null;
  handover: string;
}

/** The oldest undelivered events (the partial index `global_events_undelivered_idx` serves this). */
export function undeliveredEvents(db: Database, limit: number): Promise<OutboxRow[]> {
  return db.all<OutboxRow>(
    sql`select event_id, type, entity_type, entity_id, data, cause_task_id, cause_depth from global_events
        where delivered_at is null order by seq limit ${limit}`,
  );
}

/** Deliveries whose hand-over has not been done, oldest first, or only those of one event. */
export function pendingDeliveries(db: Database, opts: { limit: number; eventId?: string }): Promise<PendingDeliveryRow[]> {
  const ofEvent = opts.eventId === undefined ? sql`` : sql` and event_id = ${opts.eventId}`;
  return db.all<PendingDeliveryRow>(
    sql`select event_id, workflow_id, task_id, handover from event_deliveries where handed_at is null${ofEvent}
        order by ctime limit ${opts.limit}`,
  );
}

/** The guard of a pair's statements: true while no delivery of the event to the workflow is recorded. */
export function notDelivered(eventId: string, workflowId: string): SQL {
  return sql`not exists (select 1 from event_deliveries where event_id = ${eventId} and workflow_id = ${workflowId})`;
}

/** Counts a run on its automation, only while the pair is undelivered (same batch as the delivery row). */
export function countRunStatement(workflowId: string, eventId: string, now: number): SQL {
  return sql`update automations set runs = runs + 1, last_run_at = ${now} where id = ${workflowId} and ${notDelivered(
    eventId,
    workflowId,
  )}`;
}

/** Records a pair as delivered; a second record of the same pair changes nothing (the primary key). */
export function insertDeliveryStatement(d: {
  eventId: string;
  workflowId: string;
  taskId: string | null;
  handover: unknown;
  now: number;
}): SQL {
  return sql`insert into event_deliveries (event_id, workflow_id, task_id, handover, ctime)
    values (${d.eventId}, ${d.workflowId}, ${d.taskId}, ${JSON.stringify(d.handover)}, ${d.now})
    on conflict (event_id, workflow_id) do nothing`;
}

/** Marks a delivery's hand-over done. */
export async function markHandedOver(db: Database, eventId: string, workflowId: string, now: number): Promise<void> {
  await db.run(
    sql`update event_deliveries set handed_at = ${now} where event_id = ${eventId} and workflow_id = ${workflowId} and handed_at is null`,
  );
}

/** Takes an event out of the outbox, unless one of its deliveries still waits for its hand-over. */
export async function markEventDelivered(db: Database, eventId: string, now: number): Promise<void> {
  await db.run(
    sql`update global_events set delivered_at = ${now} where event_id = ${eventId}
        and not exists (select 1 from event_deliveries where event_id = ${eventId} and handed_at is null)`,
  );
}
