import { useEffect, useRef, useState } from "react";
import type { CsvReport } from "../../../workers/services/metadata";
import { ru } from "../../i18n/ru";
import { apiCall, apiRequest } from "../../lib/api-client";
import { ApiError } from "../../lib/api-error";
import { Icon } from "../icons";
import { Modal } from "../modal";

const t = ru.metadataCsvUi;

/** What an export covers: a folder (with subfolders), a search, or a collection (its items the caller may read). */
export type CsvSource = { group_id: string } | { q: string } | { collection_id: string };

/** Errors shown in the dialog's table; the full count is in the summary. */
const SHOWN_ERRORS = 200;

/** Downloads the CSV of a source: fetched with the bearer, saved through an object URL with a BOM for Excel. */
async function downloadCsv(source: CsvSource, name: string) {
  const { data } = await apiCall<string>("/api/metadata/csv", { query: source });
  const url = URL.createObjectURL(new Blob([`\uFEFF${data}`], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `${name}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * One «CSV» button for a folder or a search result (reusable for collections), so the page's action row stays short:
 * it opens a dialog that downloads the field values of every file the caller may read («Скачать CSV») and imports a
 * file — checked first (a dry run whose table lists rows, changes and errors), applied only on «Применить», with the
 * task's progress.
 */
export function MetadataCsvActions({ source, name }: { source: CsvSource; name: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn-ghost" data-testid="csv-open" title={t.openHint} onClick={() => setOpen(true)}>
        <Icon name="download" size={16} />
        {t.open}
      </button>
      {open && <CsvDialog source={source} name={name} onClose={() => setOpen(false)} />}
    </>
  );
}

/** «Скачать CSV»: busy while the file is made. */
function ExportButton({ source, name }: { source: CsvSource; name: string }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="btn"
      data-testid="csv-export"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        downloadCsv(source, name)
          .catch(() => undefined)
          .finally(() => setBusy(false));
      }}
    >
      <Icon name="download" size={16} />
      {busy ? t.exporting : t.export}
    </button>
  );
}

type Phase =
  | { kind: "pick" }
  | { kind: "checking" }
  | { kind: "checked"; file: Blob; report: CsvReport }
  | { kind: "applying"; jobId: string; progress: number; status: string }
  | { kind: "failed"; message: string };

interface TaskJson {
  status: string;
  progress: number;
  error?: string | null;
}

/** The dialog: download the CSV; or pick a file, read the dry run's table, then «Применить» and watch the task. */
function CsvDialog({ source, name, onClose }: { source: CsvSource; name: string; onClose: () => void }) {
  const [phase, setPhase] = useState<Phase>({ kind: "pick" });
  const timer = useRef<ReturnType<typeof setInterval> | null>(null);
  useEffect(() => () => void (timer.current && clearInterval(timer.current)), []);

  async function check(picked: File) {
    // The body goes as text/csv whatever type the system gave the file (Excel files come as application/vnd.ms-excel).
    const file = new Blob([picked], { type: "text/csv" });
    setPhase({ kind: "checking" });
    try {
      const report = await apiRequest<CsvReport>("/api/metadata/csv", { method: "POST", query: { dry_run: 1 }, body: file, toast: false });
      setPhase({ kind: "checked", file, report });
    } catch (error) {
      setPhase({ kind: "failed", message: error instanceof ApiError ? error.message : String(error) });
    }
  }

  async function apply(file: Blob) {
    try {
      const { job_id } = await apiRequest<{ job_id: string }>("/api/metadata/csv", { method: "POST", body: file, toast: false });
      setPhase({ kind: "applying", jobId: job_id, progress: 0, status: "inqueue" });
      timer.current = setInterval(() => {
        apiRequest<TaskJson>(`/api/tasklist/task/${job_id}`, { toast: false }).then(
          (task) => {
            setPhase({ kind: "applying", jobId: job_id, progress: task.progress, status: task.status });
            if (["done", "error", "canceled"].includes(task.status) && timer.current) clearInterval(timer.current);
          },
          () => undefined,
        );
      }, 1000);
    } catch (error) {
      setPhase({ kind: "failed", message: error instanceof ApiError ? error.message : String(error) });
    }
  }

  const headerBroken = phase.kind === "checked" && phase.report.errors.some((e) => e.row === 1);
  const footer = (
    <>
      <button type="button" className="btn btn-ghost" onClick={onClose}>
        {phase.kind === "applying" ? ru.common.close : t.cancel}
      </button>
      {phase.kind === "checked" && (
        <button
          type="button"
          className="btn btn-primary"
          data-testid="csv-apply"
          disabled={headerBroken || phase.report.changes === 0}
          onClick={() => void apply(phase.file)}
        >
          {t.apply}
        </button>
      )}
    </>
  );
  return (
    <Modal title={t.dialogTitle} onClose={onClose} footer={footer} wide>
      <div className="csv-import" data-testid="csv-import-dialog">
        <section className="csv-section">
          <h3>{t.exportTitle}</h3>
          <p className="muted">{t.exportHint}</p>
          <div>
            <ExportButton source={source} name={name} />
          </div>
        </section>
        <h3>{t.importTitle}</h3>
        {(phase.kind === "pick" || phase.kind === "failed" || phase.kind === "checked") && (
          <label className="csv-import-pick">
            <span>{t.pickFile}</span>
            <input
              type="file"
              accept=".csv,text/csv"
              data-testid="csv-file"
              onChange={(e) => {
                const picked = e.target.files?.[0];
                if (picked) void check(picked);
              }}
            />
            <span className="muted">{t.pickHint}</span>
          </label>
        )}
        {phase.kind === "checking" && <p className="muted">{t.checking}</p>}
        {phase.kind === "failed" && (
          <p className="md-error" role="alert">
            {phase.message}
          </p>
        )}
        {phase.kind === "checked" && (
          <>
            <table className="csv-summary" data-testid="csv-summary">
              <tbody>
                <tr>
                  <th scope="row">{t.rows}</th>
                  <td>{phase.report.rows}</td>
                </tr>
                <tr>
                  <th scope="row">{t.changes}</th>
                  <td>{t.changesValue(phase.report.changes, phase.report.changed_rows)}</td>
                </tr>
                <tr>
                  <th scope="row">{t.errors}</th>
                  <td>{phase.report.error_rows}</td>
                </tr>
              </tbody>
            </table>
            {phase.report.encoding === "windows-1251" && <p className="muted">{t.cp1251}</p>}
            {headerBroken && <p className="md-error">{t.headerBroken}</p>}
            {phase.report.errors.length > 0 && (
              <div className="csv-errors-wrap">
                <table className="csv-errors" data-testid="csv-errors">
                  <thead>
                    <tr>
                      <th scope="col">{t.row}</th>
                      <th scope="col">{t.message}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {phase.report.errors.slice(0, SHOWN_ERRORS).map((e, i) => (
                      <tr key={`${e.row}-${i}`}>
                        <td>{e.row}</td>
                        <td>{e.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <p className="muted">{phase.report.changes === 0 ? t.nothingToApply : t.applyHint}</p>
          </>
        )}
        {phase.kind === "applying" && (
          <div className="csv-progress" data-testid="csv-progress">
            <p>{phase.status === "done" ? t.done : phase.status === "error" ? t.taskFailed : t.applying}</p>
            <div className="progress" role="progressbar" aria-valuenow={phase.progress} aria-valuemin={0} aria-valuemax={100}>
              <span style={{ width: `${phase.progress}%` }} />
            </div>
            <a href={`/jobs/${phase.jobId}`}>{t.openTask}</a>
          </div>
        )}
      </div>
    </Modal>
  );
}
