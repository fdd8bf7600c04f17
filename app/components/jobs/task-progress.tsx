import { ru } from "../../i18n/ru";

/** A progress bar with its percentage; `info` (what the task is doing) shows under it. */
export function TaskProgress({ progress, status, info }: { progress: number; status: string; info?: string | null }) {
  const value = Math.max(0, Math.min(100, Math.round(progress)));
  return (
    <div className={`job-progress job-progress-${status}`} title={info ?? undefined}>
      <div className="progress" role="progressbar" aria-label={ru.jobs.columns.progress} aria-valuenow={value} aria-valuemin={0} aria-valuemax={100}>
        <span style={{ width: `${value}%` }} />
      </div>
      <span className="job-progress-value">{value}%</span>
    </div>
  );
}
