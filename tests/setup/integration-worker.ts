import app from "../../workers/app";
import media from "../../workers/media/media-worker";

// The integration tier's Worker under test (vitest.config.ts `main`): the API Worker's handlers, Durable Objects and
// workflow, plus the media Worker's queue handler, so what a test sends to TASKS is consumed in-process as the media
// Worker consumes it when deployed (decision 032). The product itself runs them as two Workers.
export * from "../../workers/app";
// The media Worker's RPC entrypoint: vitest.config.ts binds DECODER to it on this same Worker, so a route's decoding
// crosses a real service binding, as it does between the two deployed Workers.
export { DecoderEntrypoint } from "../../workers/media/media-worker";

export default {
  ...app,
  queue: (media as Required<Pick<ExportedHandler<Env>, "queue">>).queue,
} satisfies ExportedHandler<Env>;
