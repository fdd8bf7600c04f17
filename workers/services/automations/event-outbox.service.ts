import {
  markEventDelivered,
  markHandedOver,
  pendingDeliveries,
  undeliveredEvents,
  type PendingDeliveryRow,
} from "../../db/repositories/event-outbox.repository";
import { runBatch } from "../../db/repositories/group.repository";
import { deliveryStatements, handOverDelivery, planEventRuns, type AutomationEvent, type Handover } from "./automation-runs.service";
import type { RequestContext } from "../access";

/**
 * The outbox dispatcher (decision 024): hands every undelivered `global_events` row to automations, exactly once
 * per workflow. The queue consumer runs it when a request's events have committed (`deliver-events`), and the
 * minute cron runs it as a sweeper for wake-ups that were lost.
 *
 * Each step is safe to die after:
 * 1. the delivery rows are written in one batch with the runs' tasks (guarded by the rows' primary key), so a pair
 *    is recorded once and its task exists exactly when its record does;
 * 2. the hand-over (log lines, the Workflow instance named by the task id) is marked done on its row; a row still
 *    pending is handed over again by the next dispatch, and creating an instance that exists changes nothing;
 * 3. the event is marked delivered only after every one of its rows is handed over.
 */

/** Called after each statement and side effect; tests throw from it to kill the dispatch at that point. */
export type StepHook = (step: string) => void | Promise<void>;

export interface DeliveryReport {
  /** events taken out of the outbox */
  events: number;
  /** (event, workflow) pairs recorded by this dispatch */
  recorded: number;
  /** hand-overs finished (including ones an earlier, interrupted dispatch had recorded) */
  handedOver: number;
}

/** Events and pending hand-overs read per round; a dispatch goes on for `rounds` while the outbox has more. */
const PAGE = 50;

const noStep: StepHook = () => {};

/** Delivers what the outbox holds: hand-overs left pending first, then undelivered events, oldest first. */
export async function deliverEvents(rc: RequestContext, opts: { rounds?: number; afterStep?: StepHook } = {}): Promise<DeliveryReport> {
  const step = opts.afterStep ?? noStep;
  const report: DeliveryReport = { events: 0, recorded: 0, handedOver: 0 };
  const pending = await pendingDeliveries(rc.db, { limit: PAGE });
  await step("read pending hand-overs");
  for (const row of pending) report.handedOver += await handOver(rc, row, true, step);

  for (let round = 0; round < (opts.rounds ?? 4); round++) {
    const rows = await undeliveredEvents(rc.db, PAGE);
    await step("read undelivered events");
    if (rows.length === 0) break;
    const events: AutomationEvent[] = rows.map((r) => ({
      eventId: r.event_id,
      type: r.type,
      entityType: r.entity_type,
      entityId: r.entity_id,
      data: JSON.parse(r.data) as Record<string, unknown>,
      cause: r.cause_task_id ? { taskId: r.cause_task_id, depth: r.cause_depth ?? 0 } : null,
    }));
    const planned = await planEventRuns(rc, events);
    for (const event of events) {
      const mine = planned.filter((p) => p.eventId === event.eventId);
      if (mine.length > 0) {
        const now = Date.now();
        await runBatch(
          rc.db,
          mine.flatMap((d) => deliveryStatements(d, now)),
        );
        report.recorded += mine.length;
        await step("record deliveries");
        // Read back rather than trust the plan: a delivery recorded by an earlier attempt keeps its own task.
        const recorded = await pendingDeliveries(rc.db, { limit: PAGE, eventId: event.eventId });
        await step("read recorded deliveries");
        const fresh = new Set(mine.map((d) => d.taskId));
        for (const row of recorded) report.handedOver += await handOver(rc, row, !fresh.has(row.task_id), step);
      }
      await markEventDelivered(rc.db, event.eventId, Date.now());
      report.events += 1;
      await step("mark event delivered");
    }
    if (rows.length < PAGE) break;
  }
  return report;
}

async function handOver(rc: RequestContext, row: PendingDeliveryRow, resumed: boolean, step: StepHook): Promise<number> {
  await handOverDelivery(rc, row.task_id, JSON.parse(row.handover) as Handover, resumed, step);
  await markHandedOver(rc.db, row.event_id, row.workflow_id, Date.now());
  await step("mark handed over");
  return 1;
}
