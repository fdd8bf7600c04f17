import { newId } from "../lib/ids";
import { createRequestContext } from "../services/access";
import { retryDelaySeconds } from "../services/tasks/pure";
import { TaskMessageSchema, type ProcessVariantMessage } from "./messages";
import { runDeliverEvents, runDeliverNotifications } from "./deliver";
import { runOperation, runProcessVariants } from "./operations";

export { retryDelaySeconds };

/** The dead-letter queue of TASKS (wrangler.toml): messages that failed every retry end up there. */
export const DEAD_LETTER_QUEUE = "edge-mam-tasks-dlq";

/**
 * The TASKS queue consumer: each message is parsed, run, and acknowledged; failures retry with backoff and end in
 * the dead-letter queue after `max_retries`. A malformed message is acknowledged and logged, never retried.
 * Task wake-ups handle their own failures at the task level (retry with backoff, then error); what reaches the
 * message level is the infrastructure failing (D1, the Durable Object), retried here like any other message.
 */
export async function handleTaskBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  if (batch.queue === DEAD_LETTER_QUEUE) return handleDeadLetters(batch, env);
  const uploads: { message: Message<unknown>; body: ProcessVariantMessage }[] = [];
  const deliveries: Message<unknown>[] = [];
  const inboxWakeups: Message<unknown>[] = [];
  for (const message of batch.messages) {
    const parsed = TaskMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.warn(JSON.stringify({ level: "warn", queue: batch.queue, id: message.id, message: "malformed task message dropped" }));
      message.ack();
    } else if (parsed.data.op === "process-variant") uploads.push({ message, body: parsed.data });
    else if (parsed.data.op === "deliver-events") deliveries.push(message);
    else if (parsed.data.op === "deliver-notifications") inboxWakeups.push(message);
    else await settle(batch.queue, [message], parsed.data.op, () => runOperation(env, parsed.data));
  }
  // Outbox wake-ups name nothing: one dispatch delivers what all of them were sent for.
  if (deliveries.length > 0) await settle(batch.queue, deliveries, "deliver-events", () => runDeliverEvents(env));
  // Notification wake-ups name nothing either (decision 035): one dispatch for all of them.
  if (inboxWakeups.length > 0) await settle(batch.queue, inboxWakeups, "deliver-notifications", () => runDeliverNotifications(env));
  // The uploads of a batch make their background tasks together (a burst of small files is one tech-fields task).
  if (uploads.length > 0) {
    await settle(batch.queue, uploads.map((u) => u.message), "process-variant", () => runProcessVariants(env, uploads.map((u) => u.body)));
  }
}

/** Runs one operation for `messages` and acknowledges them, or asks for their retry with backoff when it throws. */
async function settle(queue: string, messages: readonly Message<unknown>[], op: string, run: () => Promise<string>): Promise<void> {
  try {
    const summary = await run();
    console.log(JSON.stringify({ level: "info", queue, op, summary }));
    for (const message of messages) message.ack();
  } catch (error) {
    for (const message of messages) {
      console.warn(JSON.stringify({ level: "warn", queue, op, attempts: message.attempts, error: String(error) }));
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}

/**
 * Messages that failed every retry: a task wake-up ends its task as error (with a log line), so no task waits
 * forever for a message that will not come; anything else is logged as an error for the operator.
 */
async function handleDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const rc = createRequestContext(env, () => {}, `dlq-${newId()}`);
  for (const message of batch.messages) {
    const parsed = TaskMessageSchema.safeParse(message.body);
    try {
      if (parsed.success && parsed.data.op === "task-wakeup") {
        const { failDeadLetter } = await import("../services/tasks/runner");
        console.warn(JSON.stringify({ level: "warn", queue: batch.queue, summary: await failDeadLetter(rc, parsed.data.taskId) }));
      } else {
        console.warn(
          JSON.stringify({
            level: "warn",
            queue: batch.queue,
            id: message.id,
            message: "message given up after every retry",
            body: message.body,
          }),
        );
      }
      message.ack();
    } catch (error) {
      console.warn(JSON.stringify({ level: "warn", queue: batch.queue, id: message.id, error: String(error) }));
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
