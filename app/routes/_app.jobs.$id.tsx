import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useParams } from "@remix-run/react";
import { Fragment, useCallback, useEffect, useState } from "react";
import { FINISHED, fetchTask, fetchTaskResult, type TaskView } from "../components/jobs/jobs-api";
import { TaskControls } from "../components/jobs/task-controls";
import { TaskLog } from "../components/jobs/task-log";
import { TaskProgress } from "../components/jobs/task-progress";
import { TaskStatusBadge } from "../components/jobs/task-status-badge";
import { LIVE_POLL_MS } from "../components/jobs/use-live-tasks";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";

export const meta: MetaFunction = () => [{ title: `${ru.screens.jobs} — ${ru.app.name}` }];

/** /jobs/{id}: one task's details and its log, both following live until the task finishes. */
export default function JobScreen() {
  const { id = "" } = useParams();
  const [task, setTask] = useState<TaskView | null>(null);
  const [missing, setMissing] = useState(false);
  const [download, setDownload] = useState<string | null>(null);
  const finished = task ? FINISHED.has(task.status) : false;

  const load = useCallback(() => fetchTask(id).then(setTask, () => setMissing(true)), [id]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!task || finished) return;
    const timer = setInterval(() => void load(), LIVE_POLL_MS);
    return () => clearInterval(timer);
  }, [task, finished, load]);
  useEffect(() => {
    if (task?.operation_class === "export" && task.status === "done")
      fetchTaskResult(id).then(
        (r) => setDownload(r.download_url),
        () => undefined,
      );
  }, [task?.operation_class, task?.status, id]);

  const f = ru.jobs.fields;
  const crumbs = <Link to="/jobs">{ru.jobs.back}</Link>;
  if (missing) return <PageHeader title={ru.jobs.notFound} crumbs={crumbs} />;
  if (!task) return <PageHeader title={ru.common.loading} crumbs={crumbs} />;
  const rows: [string, React.ReactNode][] = [
    [f.num, task.job_num],
    [f.operation, task.operation_name],
    [f.template, task.template ?? ru.common.dash],
    [f.status, <TaskStatusBadge key="s" status={task.status} />],
    [f.progress, <TaskProgress key="p" progress={task.progress} status={task.status} info={task.progress_info} />],
    [f.priority, task.priority],
    [
      f.affected,
      task.affected.length === 0
        ? ru.common.dash
        : task.affected.map((e) =>
            e.type === "asset" ? (
              <Link key={e.id} to={`/asset/${e.id}`} className="mono job-entity">
                {e.id}
              </Link>
            ) : (
              <span key={e.id} className="mono job-entity">
                {e.id}
              </span>
            ),
          ),
    ],
    [f.created, <LocalTime key="c" iso={task.ctime} />],
    [f.scheduled, <LocalTime key="s" iso={task.schedule_time} />],
    [f.started, <LocalTime key="b" iso={task.start_time} />],
    [f.stopped, <LocalTime key="e" iso={task.stop_time} />],
    [f.worker, task.worker_info ?? ru.common.dash],
    [f.attempts, task.attempts],
  ];
  if (task.error)
    rows.push([
      f.error,
      <span key="e" className="job-error">
        {task.error}
      </span>,
    ]);

  return (
    <>
      <PageHeader title={task.name} crumbs={crumbs} actions={<TaskControls task={task} onChange={setTask} />} />
      <div className="job-detail">
        <section className="panel pad job-info" data-status={task.status}>
          <h2 className="job-section-title">{ru.jobs.details}</h2>
          <dl className="info-list">
            {rows.map(([k, v]) => (
              <Fragment key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </Fragment>
            ))}
          </dl>
          {download && (
            <a className="btn btn-primary" href={download}>
              {ru.jobs.download}
            </a>
          )}
        </section>
        <section className="panel pad">
          <h2 className="job-section-title">
            {ru.jobs.log}
            {!finished && <span className="job-live">{ru.jobs.following}</span>}
          </h2>
          <TaskLog taskId={task.job_id} live={!finished} />
        </section>
      </div>
    </>
  );
}
