import { handleTaskBatch } from "../queue/consumer";
import { withErrorTracking } from "../lib/sentry";

// The API Worker's DECODER binding (wrangler.toml `[[services]]`): the parses its requests need.
export { DecoderEntrypoint } from "./decoder-entrypoint";

/**
 * The media Worker (workers/media/wrangler.toml, `edge-mam-media`): the consumer of the TASKS queue and its
 * dead-letter queue, and the API Worker's DECODER entrypoint (decoder-entrypoint.ts), so every decoder (images,
 * PDF, office, audio, video demux) runs here, under its own CPU limit (`[limits] cpu_ms`), never in the Worker that
 * answers requests (docs/decisions/032-media-worker.md). A run the
 * platform ends for CPU is not acknowledged: the queue retries it, and after the last retry the dead-letter path
 * ends its task as error with the reason.
 */
export default withErrorTracking({
  // Nothing is routed here (workers_dev = false, no routes); the API Worker's binding calls DecoderEntrypoint, not this.
  fetch() {
    return Response.json({ statusCode: 404, message: "Не найдено", error: "Not Found" }, { status: 404 });
  },

  queue(batch, env) {
    return handleTaskBatch(batch, env);
  },

  // No cron triggers: housekeeping is queued by the API Worker's cron and runs here as queue messages.
  async scheduled() {},
} satisfies ExportedHandler<Env>);
