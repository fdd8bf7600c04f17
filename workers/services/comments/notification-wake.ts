import type { TaskMessageInput } from "../../queue/messages";
import type { RequestContext } from "../access";

/**
 * Wakes the notification dispatcher through the TASKS queue once a batch holding a notifying event has committed
 * (the caller awaits its batch first). Losing the wake-up only delays delivery to the minute cron's sweep.
 */
export function wakeNotifications(rc: RequestContext): void {
  rc.waitUntil(
    rc.env.TASKS.send({ op: "deliver-notifications" } satisfies TaskMessageInput).catch((error: unknown) =>
      console.warn(JSON.stringify({ level: "warn", requestId: rc.requestId, message: "notification wake-up failed", error: String(error) })),
    ),
  );
}
