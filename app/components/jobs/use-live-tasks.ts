import { useEffect, useRef } from "react";
import { FINISHED, fetchTaskStatuses, type TaskView } from "./jobs-api";

/** How often unfinished tasks on screen are refreshed. */
export const LIVE_POLL_MS = 2_000;

/**
 * Keeps the unfinished tasks of a list live: every LIVE_POLL_MS their current state (progress, status, commands)
 * is read in one task-status call and merged in. Stops when nothing on screen is unfinished.
 */
export function useLiveTasks(tasks: TaskView[], update: (fresh: TaskView[]) => void): void {
  const updateRef = useRef(update);
  updateRef.current = update;
  const ids = tasks.filter((t) => !FINISHED.has(t.status)).map((t) => t.job_id);
  const key = ids.join(",");
  useEffect(() => {
    if (!key) return;
    let stopped = false;
    const timer = setInterval(() => {
      fetchTaskStatuses(key.split(",")).then(
        (fresh) => {
          if (!stopped) updateRef.current(fresh);
        },
        () => undefined,
      );
    }, LIVE_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
}
