import { TaskMessageSchema } from "./messages";
import { runOperation } from "./operations";

/** Delay before the n-th retry: 10 s, 20 s, 40 s … capped at 10 minutes. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(10 * 2 ** Math.max(0, attempts - 1), 600);
}

/**
 * The TASKS queue consumer: each message is parsed, run, and acknowledged; failures retry with backoff and end in
 * the dead-letter queue after `max_retries`. A malformed message is acknowledged and logged, never retried.
 */
export async function handleTaskBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    const parsed = TaskMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.warn(JSON.stringify({ level: "warn", queue: batch.queue, id: message.id, message: "malformed task message dropped" }));
      message.ack();
      continue;
    }
    try {
      const summary = await runOperation(env, parsed.data);
      console.log(JSON.stringify({ level: "info", queue: batch.queue, op: parsed.data.op, summary }));
      message.ack();
    } catch (error) {
      console.warn(
        JSON.stringify({ level: "warn", queue: batch.queue, op: parsed.data.op, attempts: message.attempts, error: String(error) }),
      );
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
