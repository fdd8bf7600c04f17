import { withTaskContext } from "./task-context";

// The two dispatchers the API Worker's minute cron runs as well as the media Worker's queue: kept apart from
// operations.ts, whose task runner links the decoders (decision 032).

/** The outbox dispatcher, for a `deliver-events` wake-up (all of a batch's wake-ups are one run) and the minute cron. */
export function runDeliverEvents(env: Env): Promise<string> {
  return withTaskContext(env, "deliver-events", async (rc) => {
    // Automations reach most services: evaluated when a wake-up needs them, not when the Worker starts.
    const r = await (await import("../services/automations")).deliverEvents(rc);
    return `delivered ${r.events} events: ${r.recorded} deliveries recorded, ${r.handedOver} handed over`;
  });
}

/** The notification dispatcher (decision 035), for a `deliver-notifications` wake-up and the minute cron; digests ride along. */
export function runDeliverNotifications(env: Env): Promise<string> {
  return withTaskContext(env, "deliver-notifications", async (rc) => {
    const { deliverNotifications, sendDueDigests } = await import("../services/comments");
    const r = await deliverNotifications(rc);
    const mailed = await sendDueDigests(rc, Date.now());
    return `notifications: ${r.events} events read, ${r.created} made; ${mailed} digests`;
  });
}
