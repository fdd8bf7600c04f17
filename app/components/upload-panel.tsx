import { memo, useCallback, useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { formatBytes, mediaKind } from "../lib/media-kind";
import { uploadController, useUploads, type UploadView } from "../lib/upload-engine/index";
import { mimeOfName } from "../lib/upload-engine/landed-member";
import { usePersistentState } from "../lib/use-persistent-state";
import { Icon, type IconName } from "./icons";

/** Small glyphs of the panel's buttons. */
const GLYPHS = {
  x: "M6 6l12 12M18 6L6 18",
  retry: "M4 12a8 8 0 0113.7-5.6L20 8.7M20 4v4.7h-4.7M20 12a8 8 0 01-13.7 5.6L4 15.3M4 20v-4.7h4.7",
  check: "M5 12.5l4.5 4.5L19 7.5",
  chevron: "M6 9l6 6 6-6",
  alert: "M12 8v5M12 16.5v.01M10.3 4.3L2.6 18a2 2 0 001.7 3h15.4a2 2 0 001.7-3L13.7 4.3a2 2 0 00-3.4 0z",
  file: "M12 16V4m0 0l-4 4m4-4l4 4M4 16v3h16v-3",
};

function Glyph({ name, size = 16 }: { name: keyof typeof GLYPHS; size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d={GLYPHS[name]} />
    </svg>
  );
}

/** The item's icon, guessed from its file name (the queue keeps no MIME type). */
const fileIcon = (name: string): IconName => mediaKind(mimeOfName(name));

const speedText = (speed: number | null) => (speed ? ru.uploads.perSecond(formatBytes(speed)) : null);

/** A row re-renders only when its own view changed: a batch of hundreds of files changes one or two rows at a time. */
const UploadRow = memo(UploadRowView, (a, b) => a.onPick === b.onPick && a.hidden === b.hidden && sameView(a.view, b.view));

function sameView(a: UploadView, b: UploadView): boolean {
  return (Object.keys(a) as (keyof UploadView)[]).every((key) => a[key] === b[key]);
}

function UploadRowView({ view, onPick, hidden }: { view: UploadView; onPick: (id: string) => void; hidden?: boolean }) {
  const { item } = view;
  const controller = uploadController();
  const sent = Math.round((item.size * view.progress) / 100);
  const status = item.status;
  // Interrupted by a reload: nothing moves until the file is picked again.
  const stalled = view.needsFile;
  const numbers =
    status === "uploading"
      ? [ru.uploads.sizeOf(formatBytes(sent), formatBytes(item.size)), stalled ? null : speedText(view.speed), `${Math.floor(view.progress)}%`]
      : [formatBytes(item.size)];
  const label = view.cancelling ? ru.uploads.cancelling : stalled && status !== "waiting" ? ru.uploads.interrupted : ru.uploads.statuses[status];
  const canCancel = status !== "completed" && !view.cancelling;
  const dismissable = status === "completed" || status === "error";

  return (
    <li
      className={`upload-row is-${status}${stalled ? " is-stalled" : ""}`}
      data-upload-id={item.id}
      data-status={status}
      data-needs-file={stalled || undefined}
      aria-label={item.fileName}
      hidden={hidden}
    >
      <span className="upload-kind" aria-hidden="true">
        <Icon name={fileIcon(item.fileName)} size={18} />
      </span>
      <div className="upload-main">
        <div className="upload-line">
          <span className="upload-name" title={item.fileName}>
            {item.fileName}
          </span>
          <span className={`upload-status status-${stalled ? "stalled" : status}`}>{label}</span>
        </div>
        <div className="upload-bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(view.progress)}>
          <span style={{ transform: `scaleX(${(status === "waiting" ? 0 : view.progress) / 100})` }} />
        </div>
        <div className="upload-meta">
          <span className="upload-folder" title={view.groupName ?? undefined}>
            {view.groupName ? ru.uploads.toFolder(view.groupName) : null}
          </span>
          <span className="upload-numbers">{numbers.filter(Boolean).join(" · ")}</span>
        </div>
        {status === "error" && item.error && (
          <div className="upload-error">
            <Glyph name="alert" size={14} />
            {item.error}
          </div>
        )}
        {(stalled || (status === "error" && !view.hasFile)) && (
          <div className="upload-pick">
            <span>{stalled ? ru.uploads.pickAgainHint : ru.uploads.pickToRetry}</span>
            <button type="button" className="btn btn-sm" onClick={() => onPick(item.id)}>
              <Glyph name="file" size={14} />
              {ru.uploads.pickAgain}
            </button>
          </div>
        )}
        {view.drivenElsewhere && <div className="upload-note">{ru.uploads.otherTab}</div>}
        {view.resumedFrom !== null && status === "uploading" && (
          <div className="upload-note">{ru.uploads.resumed(formatBytes(view.resumedFrom))}</div>
        )}
      </div>
      <div className="upload-actions">
        {status === "error" && view.hasFile && (
          <button type="button" className="icon-btn" title={ru.uploads.retry} aria-label={`${ru.uploads.retry}: ${item.fileName}`} onClick={() => void controller.retry(item.id)}>
            <Glyph name="retry" />
          </button>
        )}
        {dismissable ? (
          <button type="button" className="icon-btn" title={ru.uploads.remove} aria-label={`${ru.uploads.remove}: ${item.fileName}`} onClick={() => void controller.dismiss(item.id)}>
            <Glyph name="x" />
          </button>
        ) : (
          canCancel && (
            <button type="button" className="icon-btn danger" title={ru.uploads.cancel} aria-label={`${ru.uploads.cancel}: ${item.fileName}`} onClick={() => void controller.cancel(item.id)}>
              <Glyph name="x" />
            </button>
          )
        )}
      </div>
    </li>
  );
}

/** How long the pill of a finished batch stays before it fades, and how long the fade takes (app.css `.upload-pill`). */
const PILL_MS = 8_000;
const FADE_MS = 600;

/** Where toolbars fold and the panel becomes a bottom bar (app.css phone rules). */
const PHONE_QUERY = "(max-width: 720px)";

function usePhone(): boolean {
  const [phone, setPhone] = useState(false);
  useEffect(() => {
    const query = window.matchMedia(PHONE_QUERY);
    const update = () => setPhone(query.matches);
    update();
    query.addEventListener("change", update);
    return () => query.removeEventListener("change", update);
  }, []);
  return phone;
}

/**
 * What the panel shows once its batch has finished (issue 28):
 * - `panel`: the panel itself (while uploading; after the batch only the failures stay listed);
 * - `pill`: «Загружено 34 из 34», which reopens the list; without failures it fades away after a few seconds;
 * - `open`: the whole list reopened from the pill;
 * - `fading`, `gone`: on the way out; the finished items then leave the queue, so nothing comes back on the next page
 *   or after signing in again.
 */
type Phase = "panel" | "pill" | "open" | "fading" | "gone";

/**
 * The upload status panel (SPEC §2 shell, §4): every item of the user's queue with its folder, progress, speed and
 * status, cancel and retry, a summary line, collapsible. It shows the server's queue, so every tab shows the same.
 * It steps aside when a batch is done (`Phase`) and is a compact bar at the bottom of a phone.
 */
export function UploadPanel() {
  const { views, summary } = useUploads();
  const [collapsed, setCollapsed] = usePersistentState<"0" | "1">("uploadPanelCollapsed", "0");
  const picker = useRef<HTMLInputElement>(null);
  const [pickFor, setPickFor] = useState<string | null>(null);
  const needsFile = views.some((v) => v.needsFile);
  const phone = usePhone();
  const [phoneOpen, setPhoneOpen] = useState(false);
  const [phase, setPhase] = useState<Phase>("panel");
  /** this page saw the queue at work: a batch that is already finished when the page opens is old news */
  const sawWork = useRef(false);
  const finished = views.length > 0 && summary.finished;
  const errors = summary.errors;

  // A reload left uploads waiting for their files: open the panel so the user sees what to do.
  useEffect(() => {
    if (needsFile) {
      setCollapsed("0");
      setPhoneOpen(true);
    }
  }, [needsFile, setCollapsed]);

  /** failures of the previous render: the last one dismissed leaves a finished batch, which steps aside too */
  const hadErrors = useRef(0);
  useEffect(() => {
    const cleared = hadErrors.current > 0 && errors === 0;
    hadErrors.current = errors;
    if (views.length === 0) return;
    if (!summary.finished) {
      sawWork.current = true;
      setPhase("panel");
      return;
    }
    setPhase((now) => {
      if (cleared) return "pill";
      if (now === "open" || now === "fading" || now === "gone") return now;
      if (errors > 0) return sawWork.current ? (now === "pill" ? now : "panel") : "pill";
      return sawWork.current ? "pill" : "gone";
    });
  }, [views.length, summary.finished, errors]);

  // The pill of a batch without failures fades away; then the finished items leave the queue («Убрать готовые»).
  useEffect(() => {
    if (!finished || errors > 0) return;
    if (phase === "pill") {
      const timer = setTimeout(() => setPhase("fading"), PILL_MS);
      return () => clearTimeout(timer);
    }
    if (phase === "fading") {
      const timer = setTimeout(() => setPhase("gone"), FADE_MS);
      return () => clearTimeout(timer);
    }
    if (phase === "gone") void uploadController().clearCompleted().catch(() => undefined);
  }, [phase, finished, errors]);

  const pick = useCallback((id: string) => {
    setPickFor(id);
    picker.current?.click();
  }, []);

  if (views.length === 0) return null;
  const done = summary.completed;
  const overall = summary.bytes > 0 ? (summary.sentBytes / summary.bytes) * 100 : 0;
  const speed = summary.active > 0 ? speedText(summary.speed) : null;
  const line = [ru.uploads.summary(done, summary.total), errors > 0 ? ru.uploads.errorsCount(errors) : null, speed].filter(Boolean).join(" · ");
  const shown: Phase = finished ? phase : "panel";
  const asPill = shown === "pill" || shown === "fading";
  if (shown === "gone") return null;
  // After the batch only the failures stay listed, unless the list was reopened from the pill.
  const onlyErrors = finished && shown === "panel";
  const isCollapsed = phone ? !phoneOpen : collapsed === "1";
  const toggle = () => {
    if (shown === "open") setPhase("pill");
    else if (phone) setPhoneOpen(!phoneOpen);
    else setCollapsed(isCollapsed ? "0" : "1");
  };
  const statusIcon = (
    <span className={`upload-panel-icon${summary.finished ? (errors ? " has-errors" : " done") : " busy"}`} aria-hidden="true">
      <Glyph name={summary.finished ? (errors ? "alert" : "check") : "file"} size={16} />
    </span>
  );

  return (
    <>
      {asPill && (
        <button
          type="button"
          className={`upload-pill${shown === "fading" ? " fading" : ""}`}
          data-testid="upload-pill"
          title={ru.uploads.showFinished}
          aria-label={`${ru.uploads.showFinished}: ${line}`}
          onClick={() => setPhase("open")}
        >
          {statusIcon}
          <span data-testid="upload-summary">{line}</span>
        </button>
      )}
      <section
        className={`upload-panel${isCollapsed && shown !== "open" ? " collapsed" : ""}${summary.finished ? " finished" : ""}`}
        aria-label={ru.uploads.title}
        data-testid={asPill ? undefined : "upload-panel"}
        data-phase={shown}
        // The pill stands for it; the rows stay in the page (hidden) for the tab's own bookkeeping.
        hidden={asPill}
      >
        <header className="upload-panel-head">
          {statusIcon}
          <div className="upload-panel-title">
            <strong>{ru.uploads.title}</strong>
            <span className="upload-summary" data-testid={asPill ? undefined : "upload-summary"}>
              {line}
            </span>
          </div>
          {onlyErrors && summary.completed > 0 && (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setPhase("open")}>
              {ru.uploads.showAll}
            </button>
          )}
          {summary.completed > 0 && !isCollapsed && !onlyErrors && (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => void uploadController().clearCompleted()}>
              {ru.uploads.clear}
            </button>
          )}
          <button
            type="button"
            className="icon-btn"
            aria-expanded={!isCollapsed || shown === "open"}
            title={isCollapsed && shown !== "open" ? ru.uploads.expand : ru.uploads.collapse}
            aria-label={isCollapsed && shown !== "open" ? ru.uploads.expand : ru.uploads.collapse}
            onClick={toggle}
          >
            <span className="upload-chevron">
              <Glyph name="chevron" />
            </span>
          </button>
        </header>
        {!summary.finished && (
          <div className="upload-panel-total" aria-hidden="true">
            <span style={{ transform: `scaleX(${overall / 100})` }} />
          </div>
        )}
        {(!isCollapsed || shown === "open" || onlyErrors) && (
          <ul className="upload-list">
            {views.map((view) => (
              <UploadRow key={view.item.id} view={view} onPick={pick} hidden={onlyErrors && view.item.status !== "error"} />
            ))}
          </ul>
        )}
      </section>
      <input
        ref={picker}
        type="file"
        hidden
        multiple
        data-testid="upload-repick-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = "";
          const id = pickFor;
          setPickFor(null);
          // One file for the row it was picked for; several are matched to the waiting items by name and size.
          for (const file of files) void uploadController().provideFile(file, files.length === 1 && id ? id : undefined);
        }}
      />
    </>
  );
}
