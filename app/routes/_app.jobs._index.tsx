import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useSearchParams } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { EMPTY_FILTERS, JobFilters } from "../components/jobs/job-filters";
import { fetchTasks, type TaskFilters, type TaskView } from "../components/jobs/jobs-api";
import { TaskControls } from "../components/jobs/task-controls";
import { TaskProgress } from "../components/jobs/task-progress";
import { TaskStatusBadge } from "../components/jobs/task-status-badge";
import { useLiveTasks } from "../components/jobs/use-live-tasks";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";

export const meta: MetaFunction = () => [{ title: `${ru.screens.jobs} — ${ru.app.name}` }];

const PAGE = 25;
/** How often the first page is read again for new tasks. */
const LIST_REFRESH_MS = 10_000;

function filtersOf(params: URLSearchParams): TaskFilters {
  return {
    name: params.get("name") ?? "",
    status: params.get("status") ?? "",
    op: params.get("op") ?? "",
    asset: params.get("asset") ?? "",
  };
}

/** /jobs: every task the caller sees, newest first, filtered and paged in the URL, unfinished ones live. */
export default function JobsScreen() {
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const skip = Math.max(0, Number(params.get("skip")) || 0);
  const [page, setPage] = useState<{ items: TaskView[]; total: number } | null>(null);
  const key = `${params}`;

  const load = useCallback(() => {
    const current = filtersOf(new URLSearchParams(key));
    const handle = setTimeout(() => void fetchTasks(current, skip, PAGE).then(setPage, () => undefined), 250);
    return () => clearTimeout(handle);
  }, [key, skip]);
  useEffect(load, [load]);
  // The first page also picks up new tasks while it is open; later pages stay put while someone reads them.
  useEffect(() => {
    if (skip !== 0) return;
    const timer = setInterval(
      () => void fetchTasks(filtersOf(new URLSearchParams(key)), 0, PAGE).then(setPage, () => undefined),
      LIST_REFRESH_MS,
    );
    return () => clearInterval(timer);
  }, [key, skip]);

  const merge = useCallback((fresh: TaskView[]) => {
    const byId = new Map(fresh.map((t) => [t.job_id, t]));
    setPage((p) => (p ? { ...p, items: p.items.map((t) => byId.get(t.job_id) ?? t) } : p));
  }, []);
  useLiveTasks(page?.items ?? [], merge);

  const setFilters = (f: TaskFilters) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries(f)) if (v) next.set(k, v);
    setParams(next, { replace: true });
  };
  const go = (to: number) => {
    const next = new URLSearchParams(params);
    next.set("skip", String(to));
    setParams(next);
  };
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY_FILTERS);

  return (
    <>
      <PageHeader title={ru.screens.jobs} subtitle={ru.jobs.subtitle} />
      <JobFilters value={filters} onChange={setFilters} />
      {page && page.items.length === 0 ? (
        <section className="panel empty">
          <span className="empty-icon">
            <Icon name="jobs" size={26} />
          </span>
          <div className="empty-title">{filtered ? ru.jobs.emptyFiltered : ru.jobs.empty}</div>
        </section>
      ) : (
        <section className="panel">
          <table className="table jobs-table">
            <thead>
              <tr>
                {Object.entries(ru.jobs.columns).map(([k, v]) => (
                  <th key={k}>{v}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page?.items.map((t) => (
                <tr key={t.job_id} data-task={t.job_id} data-status={t.status}>
                  <td className="num">{t.job_num}</td>
                  <td className="name-cell">
                    <Link to={`/jobs/${t.job_id}`}>{t.name}</Link>
                  </td>
                  <td className="job-operation">{t.operation_name}</td>
                  <td className="job-status-cell">
                    <TaskStatusBadge status={t.status} />
                  </td>
                  <td className="job-progress-cell">
                    <TaskProgress progress={t.progress} status={t.status} info={t.progress_info} />
                  </td>
                  <td className="num job-priority-cell">{t.priority}</td>
                  <td className="job-date"><LocalTime iso={t.ctime} /></td>
                  <td className="job-controls-cell">
                    <TaskControls task={t} onChange={(fresh) => merge([fresh])} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {page && page.total > PAGE && (
            <div className="job-pager">
              <span className="muted">{ru.jobs.page(skip + 1, Math.min(skip + PAGE, page.total), page.total)}</span>
              <button type="button" className="btn btn-ghost" disabled={skip === 0} onClick={() => go(Math.max(0, skip - PAGE))}>
                {ru.jobs.prev}
              </button>
              <button type="button" className="btn btn-ghost" disabled={skip + PAGE >= page.total} onClick={() => go(skip + PAGE)}>
                {ru.jobs.next}
              </button>
            </div>
          )}
        </section>
      )}
    </>
  );
}
