import { useEffect, useRef, useState } from "react";
import { ru } from "../../i18n/ru";
import { fetchLog, type LogLine } from "./jobs-api";

/** How often the log of an unfinished task is read for new lines. */
export const LOG_POLL_MS = 1_500;

// Lines are read by the browser after the page is up (no server HTML to match): its own zone.
const time = new Intl.DateTimeFormat("ru-RU", { timeStyle: "medium" });

/**
 * The log of a task, following new lines while `live`: each poll asks only for lines after the last one seen, and
 * the view stays scrolled to the end unless the reader scrolled up.
 */
export function TaskLog({ taskId, live }: { taskId: string; live: boolean }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const last = useRef(0);
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        for (;;) {
          const page = await fetchLog(taskId, last.current);
          if (stopped || page.lines.length === 0) break;
          last.current = page.lines[page.lines.length - 1].seq;
          setLines((old) => [...old, ...page.lines]);
          if (page.lines.length < 500) break;
        }
      } catch {
        // A failed read is retried at the next poll.
      }
      if (!stopped && live) timer = setTimeout(read, LOG_POLL_MS);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [taskId, live]);

  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div
      className="job-log"
      ref={box}
      data-live={live}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {lines.length === 0 ? (
        <div className="muted job-log-empty">{ru.jobs.logEmpty}</div>
      ) : (
        lines.map((l) => (
          <div key={l.seq} className={`job-log-line job-log-${l.level}`}>
            <span className="job-log-time">{time.format(new Date(l.time))}</span>
            <span className="job-log-message">{l.message}</span>
          </div>
        ))
      )}
    </div>
  );
}
