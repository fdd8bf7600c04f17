import { ru } from "../../i18n/ru";

/** A task's SPEC §4 status as a coloured badge (the names are the tasks capability's). */
export function TaskStatusBadge({ status }: { status: string }) {
  return <span className={`job-status job-status-${status}`}>{ru.tasks.statuses[status] ?? status}</span>;
}
