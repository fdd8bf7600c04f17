import { sql, type SQL } from "drizzle-orm";
import { newId } from "../../lib/ids";
import type { TaskMessageInput } from "../../queue/messages";
import type { Actor, RequestContext } from "../access";
import { logsDb, mergeWindow, shadowedKeys } from "../logs";
import { causeOf } from "./cause";
import { canTrigger } from "./event-triggers";

/** Entity types events are about. */
export type EventEntityType = "asset" | "group" | "tag" | "field" | "user" | "collection";

/**
 * A change to record. Types are dotted names: asset.created, asset.uploaded (data.group_id: where it landed,
 * variant_id, mime_type), asset.updated, asset.trashed, asset.restored, asset.moved, group.created, group.updated,
 * group.moved, group.trashed, group.restored, group.purged, tag.attached / tag.detached (about the asset or group; data.tag_id), tag.created,
 * tag.renamed, tag.deleted, field.changed (data.def_id, value).
 */
export interface GlobalEventInput {
  type: string;
  entityType: EventEntityType;
  entityId: string;
  /** owner of the entity: who besides administrators may read the event */
  ownerId: string | null;
  /** who made the change; null for the system */
  actorId?: string | null;
  data?: Record<string, unknown>;
}

/** An event as automations and the list see it. */
export interface GlobalEvent {
  seq: number;
  time: string;
  type: string;
  entity_type: string;
  entity_id: string;
  owner: string | null;
  actor: string | null;
  data: Record<string, unknown>;
}

/**
 * Requests whose batches hold events an automation may react to, with those events' ids: once one of them is seen
 * committed, the outbox dispatcher is woken through the queue.
 */
const pending = new WeakMap<RequestContext, Set<string>>();

/** Waits before looking for the events of a batch in D1: the batch is usually done by the first. */
const COMMIT_WAITS_MS = [20, 100, 400, 1500];

function rowsOf(rc: RequestContext, events: readonly GlobalEventInput[], now: number) {
  const cause = causeOf(rc);
  return events.map((e) => ({
    eventId: newId(now),
    ctime: now,
    type: e.type,
    entityType: e.entityType,
    entityId: e.entityId,
    ownerId: e.ownerId,
    actorId: e.actorId ?? null,
    data: e.data ?? {},
    // An event no automation can react to is written delivered: the outbox only ever holds the ones that matter.
    deliveredAt: canTrigger(e.entityType, e.type) ? null : now,
    causeTaskId: cause?.taskId ?? null,
    causeDepth: cause?.depth ?? null,
  }));
}

function remember(rc: RequestContext, rows: ReturnType<typeof rowsOf>): void {
  const ids = rows.filter((r) => r.deliveredAt === null).map((r) => r.eventId);
  if (ids.length === 0) return;
  let entry = pending.get(rc);
  const first = !entry;
  entry ??= new Set();
  pending.set(rc, entry);
  for (const id of ids) entry.add(id);
  if (first) {
    rc.waitUntil(
      wakeDispatcherAfterCommit(rc).catch((error) =>
        console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "outbox wake-up failed", error: String(error) })),
      ),
    );
  }
}

/**
 * The statement that appends events, to put into the batch that makes the change (the repositories' `runBatch`
 * take it), so an event exists exactly when its change does. The rows travel as one JSON parameter, so any number
 * of events stays within D1's limit of bound parameters. The row is the outbox of automations (decision 024): once
 * the batch has committed, a queue message wakes the dispatcher (event-outbox.service.ts), and the minute cron
 * sweeps up whatever a lost wake-up left. The run that caused the change (read from the context) is stored with
 * the event, so chains of runs stop at the depth limit wherever they are delivered.
 * @example await runBatch(rc.db, [updateAssetStatement(…), eventStatement(rc, { type: "asset.updated", entityType: "asset", entityId, ownerId, actorId })])
 */
export function eventStatement(rc: RequestContext, events: GlobalEventInput | readonly GlobalEventInput[]): SQL {
  const list = Array.isArray(events) ? (events as readonly GlobalEventInput[]) : [events as GlobalEventInput];
  const rows = rowsOf(rc, list, Date.now());
  remember(rc, rows);
  const payload = rows.map((r) => ({
    i: r.eventId,
    c: r.ctime,
    t: r.type,
    et: r.entityType,
    e: r.entityId,
    o: r.ownerId,
    a: r.actorId,
    d: r.data,
    dl: r.deliveredAt,
    ct: r.causeTaskId,
    cd: r.causeDepth,
  }));
  return sql`insert into global_events (event_id, ctime, type, entity_type, entity_id, owner_id, actor_id, data, delivered_at,
      cause_task_id, cause_depth)
    select json_extract(value, '$.i'), json_extract(value, '$.c'), json_extract(value, '$.t'), json_extract(value, '$.et'),
      json_extract(value, '$.e'), json_extract(value, '$.o'), json_extract(value, '$.a'), json_extract(value, '$.d'),
      json_extract(value, '$.dl'), json_extract(value, '$.ct'), json_extract(value, '$.cd')
    from json_each(${JSON.stringify(payload)})`;
}

/** The same statement, by the name the `SQL`-batch callers use. */
export const eventSql = eventStatement;

/**
 * The `field.changed` event of a custom field value (the metadata capability puts it into the batch that changes
 * the value).
 * @example statements.push(fieldChangedEvent(rc, { entityId: assetId, entityType: "asset", ownerId, actorId: actor.id, defId, value }))
 */
export function fieldChangedEvent(
  rc: RequestContext,
  f: { entityId: string; entityType: "asset" | "group"; ownerId: string | null; actorId: string | null; defId: string; value: unknown },
) {
  return eventStatement(rc, {
    type: "field.changed",
    entityType: f.entityType,
    entityId: f.entityId,
    ownerId: f.ownerId,
    actorId: f.actorId,
    data: { def_id: f.defId, value: f.value ?? null },
  });
}

/** Appends events on their own (for a change that is a single statement already run). */
export async function appendEvents(rc: RequestContext, events: readonly GlobalEventInput[]): Promise<void> {
  if (events.length > 0) await eventStatement(rc, events);
}

/**
 * Waits for a batch holding the request's triggering events to commit (looked up by event id, a few short waits),
 * then sends one `deliver-events` message. Events of a batch that failed never appear, and nothing is sent for
 * them. Losing this wake-up (the Worker dies first) delays delivery to the next minute's sweep, never loses it.
 */
async function wakeDispatcherAfterCommit(rc: RequestContext): Promise<void> {
  for (const wait of COMMIT_WAITS_MS) {
    await scheduler.wait(wait);
    const ids = pending.get(rc);
    if (!ids || ids.size === 0) break;
    const found = await rc.db.all<{ event_id: string }>(
      sql`select event_id from global_events where event_id in (select value from json_each(${JSON.stringify([...ids])}))`,
    );
    if (found.length > 0) {
      // A later batch of the same request may still be on its way: its events get their own wake-up.
      for (const row of found) ids.delete(row.event_id);
      await rc.env.TASKS.send({ op: "deliver-events" } satisfies TaskMessageInput);
    }
  }
  pending.delete(rc);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading

/**
 * GET /api/global-events/list: events after `after` (seq), oldest first, optionally of some types (a type ending in
 * `.*` matches its prefix). Administrators read every event; others the events about entities they own.
 */
export async function listEvents(rc: RequestContext, actor: Actor, q: { after: number; take: number; types?: string[] }) {
  const parts: SQL[] = [sql`seq > ${q.after}`];
  if (!actor.isAdmin) parts.push(sql`owner_id = ${actor.id}`);
  if (q.types?.length) {
    const exact = q.types.filter((t) => !t.endsWith(".*"));
    const prefixes = q.types.filter((t) => t.endsWith(".*")).map((t) => t.slice(0, -1));
    const any: SQL[] = [];
    if (exact.length) any.push(sql`type in (select value from json_each(${JSON.stringify(exact)}))`);
    for (const p of prefixes) any.push(sql`substr(type, 1, ${p.length}) = ${p}`);
    parts.push(sql`(${sql.join(any, sql` or `)})`);
  }
  type Row = { seq: number; ctime: number; type: string; entity_type: string; entity_id: string; owner_id: string | null; actor_id: string | null; data: string };
  const where = sql.join(parts, sql` and `);
  const page = sql`select seq, ctime, type, entity_type, entity_id, owner_id, actor_id, data from global_events
         where ${where} order by seq limit ${q.take}`;
  // Delivered events older than 30 days live in LOGS (decision 038): the feed reads both, ordered by seq.
  const logs = logsDb(rc.env);
  const [hotRows, logsRows, shadowed] = await Promise.all([rc.db.all<Row>(page), logs.all<Row>(page), shadowedKeys(rc.db, logs, "global_events", where)]);
  const rows = mergeWindow(hotRows, logsRows, (r) => String(r.seq), (a, b) => a.seq - b.seq, shadowed, 0, q.take);
  const events: GlobalEvent[] = rows.map((r) => ({
    seq: r.seq,
    time: new Date(r.ctime).toISOString(),
    type: r.type,
    entity_type: r.entity_type,
    entity_id: r.entity_id,
    owner: r.owner_id,
    actor: r.actor_id,
    data: JSON.parse(r.data) as Record<string, unknown>,
  }));
  return { events, next_after: events.length > 0 ? events[events.length - 1].seq : q.after };
}
