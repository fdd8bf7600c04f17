import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { LocalTime } from "../components/local-time";
import { ConfirmDialog } from "../components/modal";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { formatBytes } from "../lib/media-kind";
import { showToast } from "../lib/toast";
import type { LibraryShardPlan, LibraryShardPlanEntry } from "../../workers/services/library";

export const meta: MetaFunction = () => [{ title: `${ru.libraries.tab} — ${ru.app.name}` }];

const t = ru.libraries;

/** A `library-move` task as GET /api/tasklist/current lists it: what the screen shows of a move under way. */
interface MoveTask {
  job_id: string;
  src_entity: string | null;
  progress: number;
  progress_info: string | null;
  status: string;
}

/** How often moves under way are read again (their tasks, not the plan: it is limited to 10 reads a minute). */
const POLL_MS = 2_000;
const ACTIVE = "inqueue,running,paused";

const percentOfLimit = (bytes: number, limit: number) =>
  `${new Intl.NumberFormat("ru-RU", { maximumFractionDigits: bytes / limit < 0.01 ? 2 : 0 }).format((bytes / limit) * 100)} %`;

/**
 * /admin/libraries: every library (a top-level folder with its subtree) — what it holds, what it would take in a
 * database beside the 10 GB one may hold — and where it lives: the shared catalog, moving, or a shard of its own
 * (decision 043). «Перенести» starts the `library-move` task (decision 044); its progress shows here while it runs.
 */
export default function AdminLibrariesRoute() {
  const [plan, setPlan] = useState<LibraryShardPlan | null>(null);
  const [tasks, setTasks] = useState<Record<string, MoveTask>>({});
  const [confirming, setConfirming] = useState<{ library: LibraryShardPlanEntry; abandon: boolean } | null>(null);

  const loadPlan = useCallback(() => apiRequest<LibraryShardPlan>("/api/library-shards/plan").then(setPlan, () => undefined), []);
  const loadTasks = useCallback(async () => {
    const list = await apiRequest<MoveTask[]>("/api/tasklist/current", { query: { op: "library-move", status: ACTIVE, take: 200 } });
    const next = Object.fromEntries(list.flatMap((task) => (task.src_entity ? [[task.src_entity, task]] : [])));
    setTasks((prev) => {
      // A move that ended since the last read: the plan says where the library lives now.
      if (Object.keys(prev).some((id) => !next[id])) loadPlan();
      return next;
    });
  }, [loadPlan]);

  useEffect(() => {
    loadPlan();
    loadTasks().catch(() => undefined);
  }, [loadPlan, loadTasks]);

  const moving = Object.keys(tasks).length > 0;
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(() => loadTasks().catch(() => undefined), POLL_MS);
    return () => clearInterval(timer);
  }, [moving, loadTasks]);

  /** Starts (or resumes) a library's move, or — `abandon` — gives up one that has not switched (decision 045). */
  const start = async (library: LibraryShardPlanEntry, abandon: boolean) => {
    const { job_id } = await apiRequest<{ job_id: string }>("/api/tasklist/enqueue-task/library-move", {
      method: "POST",
      body: { entities: [{ type: "group", id: library.id }], ...(abandon ? { options: { abandon: true } } : {}) },
    });
    setTasks((prev) => ({
      ...prev,
      [library.id]: { job_id, src_entity: library.id, progress: 0, progress_info: null, status: "inqueue" },
    }));
    showToast({
      title: abandon ? t.abandonTitle : t.confirmTitle,
      message: (abandon ? t.abandonQueued : t.queued)(library.name),
      kind: "info",
    });
  };

  return (
    <section className="adm-section" data-testid="admin-libraries">
      <div className="adm-toolbar lib-toolbar">
        <p className="muted lib-hint">{t.hint}</p>
        {plan && (
          <p className="lib-catalog" data-testid="catalog-size">
            <Icon name="storage" size={16} />
            {t.catalog(formatBytes(plan.catalog_bytes))}
            {plan.assets_unplaced > 0 && <span className="muted"> · {t.unplaced(plan.assets_unplaced)}</span>}
          </p>
        )}
      </div>
      {plan && plan.libraries.length === 0 ? (
        <div className="panel empty adm-empty-sm">
          <span className="empty-icon">
            <Icon name="folder" size={26} />
          </span>
          <div className="empty-title">{t.none}</div>
        </div>
      ) : (
        <div className="panel st-panel">
          <table className="table adm-table lib-table">
            <thead>
              <tr>
                <th>{t.columns.name}</th>
                <th className="num">{t.columns.folders}</th>
                <th className="num">{t.columns.files}</th>
                <th className="num">{t.columns.fileBytes}</th>
                <th>{t.columns.estimate}</th>
                <th>{t.columns.where}</th>
                <th aria-label={t.move} />
              </tr>
            </thead>
            <tbody>
              {plan?.libraries.map((library) => (
                <LibraryRow
                  key={library.id}
                  library={library}
                  limit={plan.shard_limit_bytes}
                  task={tasks[library.id]}
                  onMove={() => setConfirming({ library, abandon: false })}
                  onAbandon={() => setConfirming({ library, abandon: true })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={confirming.abandon ? t.abandonTitle : t.confirmTitle}
          text={(confirming.abandon ? t.abandonText : t.confirmText)(confirming.library.name)}
          confirm={confirming.abandon ? t.abandon : t.move}
          onConfirm={() => start(confirming.library, confirming.abandon)}
          onClose={() => setConfirming(null)}
        />
      )}
    </section>
  );
}

function LibraryRow(props: {
  library: LibraryShardPlanEntry;
  limit: number;
  task: MoveTask | undefined;
  onMove: () => void;
  onAbandon: () => void;
}) {
  const { library, limit, task } = props;
  const share = Math.min(1, library.bytes_estimate / limit);
  const lives = library.move?.state === "shard";
  return (
    <tr data-testid="library-row" data-library={library.name}>
      <td>
        <Link to={`/mam/${library.id}`} className="lib-name">
          <Icon name="folder" size={16} />
          <strong>{library.name}</strong>
        </Link>
      </td>
      <td className="num">{library.folders}</td>
      <td className="num">
        {library.assets}
        {library.assets_shared > 0 && <div className="muted lib-sub">{t.shared(library.assets_shared)}</div>}
      </td>
      <td className="num adm-nowrap">{formatBytes(library.file_bytes)}</td>
      <td className="lib-estimate">
        <span className="adm-nowrap">{formatBytes(library.bytes_estimate)}</span>
        <div
          className={`progress lib-share${share > 0.8 ? " lib-share-high" : ""}`}
          title={t.ofLimit(percentOfLimit(library.bytes_estimate, limit))}
        >
          <span style={{ width: `${Math.max(share * 100, library.bytes_estimate > 0 ? 1 : 0)}%` }} />
        </div>
        <div className="muted lib-sub">{t.ofLimit(percentOfLimit(library.bytes_estimate, limit))}</div>
      </td>
      <td className="lib-where" data-testid="library-where">
        <Where library={library} task={task} />
      </td>
      <td className="adm-row-actions">
        <div className="lib-actions">
          {!lives && !task && (
            <button type="button" className="btn" aria-label={t.moveOf(library.name)} onClick={props.onMove}>
              <Icon name="move" size={16} />
              <span className="lib-move-label">{library.move ? t.resume : t.move}</span>
            </button>
          )}
          {library.move && !lives && !task && (
            <button type="button" className="btn btn-danger-outline" aria-label={t.abandonOf(library.name)} onClick={props.onAbandon}>
              <Icon name="restore" size={16} />
              <span className="lib-move-label">{t.abandonShort}</span>
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

/** Where a library lives, or how far its move has come. */
function Where({ library, task }: { library: LibraryShardPlanEntry; task: MoveTask | undefined }) {
  const move = library.move;
  if (move?.state === "shard") {
    return (
      <>
        <span className="adm-badge lib-badge-shard">{t.inShard(move.shard)}</span>
        <div className="muted lib-sub">
          {t.since} <LocalTime iso={move.switched_at} />
        </div>
      </>
    );
  }
  if (task) {
    return (
      <>
        <div className="job-progress">
          <div className="progress">
            <span style={{ width: `${task.progress}%` }} />
          </div>
          <span className="job-progress-value">{Math.round(task.progress)}%</span>
        </div>
        <div className="muted lib-sub">
          {t.copying(task.progress_info ?? ru.tasks.statuses[task.status])} · <Link to={`/jobs/${task.job_id}`}>{t.task}</Link>
        </div>
      </>
    );
  }
  if (move) {
    return (
      <>
        <span>{move.state === "moving" ? t.paused : t.copying(ru.tasks.moveSteps[move.step])}</span>
        {move.error && <div className="muted lib-sub">{t.restarted}</div>}
      </>
    );
  }
  return <span className="muted">{t.inCatalog}</span>;
}
