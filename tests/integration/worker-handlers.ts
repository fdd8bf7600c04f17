import app from "../../workers/app";
import media from "../../workers/media/media-worker";

/**
 * The deployed handlers, called the way the runtime calls them (with an execution context): the queue belongs to the
 * media Worker (workers/media/media-worker.ts, decision 032), the cron triggers to the API Worker (workers/app.ts).
 */
export const worker = {
  queue: (media as Required<Pick<ExportedHandler<Env>, "queue">>).queue,
  scheduled: (app as Required<Pick<ExportedHandler<Env>, "scheduled">>).scheduled,
};
