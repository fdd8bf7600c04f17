import { useCallback, useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { REVIEW_STATUSES, type ReviewStatus } from "../../../shared/review-status";
import { canDo } from "../../lib/abilities";
import { showToast } from "../../lib/toast";
import { useCurrentUser } from "../../lib/use-current-user";
import { LocalMoment } from "../local-moment";
import { ReviewBadge } from "./review-badge";
import { ReviewRequestDialog } from "./review-request-dialog";
import { getReview, setReview, type ReviewState } from "./reviews-api";

/**
 * The viewer's «Согласование» section: the latest version's status, a form to decide (for people with update on
 * the file and for those asked to review this version; the server decides again), the trail of every decision and
 * the requests, and «Запросить согласование».
 */
export function ReviewPanel({
  assetId,
  version,
  levels,
  onChanged,
}: {
  assetId: string;
  /** the latest version (0 while the file has none) */
  version: number;
  levels: string[] | null;
  onChanged?: () => void;
}) {
  const me = useCurrentUser();
  const [state, setState] = useState<ReviewState | null>(null);
  const [status, setStatus] = useState<ReviewStatus>("approved");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);

  const load = useCallback(() => {
    getReview(assetId).then(setState, () => setState(null));
  }, [assetId]);
  useEffect(load, [load]);

  const mayUpdate = canDo(levels, "rename");
  const asked = Boolean(me && state?.requests.some((r) => r.reviewer_id === me.id && r.version === version));
  const mayDecide = version > 0 && (mayUpdate || asked);

  const save = async () => {
    setBusy(true);
    try {
      setState(await setReview(assetId, { status, version, note: note.trim() || null }));
      setNote("");
      showToast({ kind: "info", title: ru.reviewsUi.title, message: ru.reviewsUi.saved });
      onChanged?.();
    } catch {
      // the API client showed the error toast
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="review-panel" aria-label={ru.reviewsUi.title} data-testid="review-panel">
      <h3>{ru.reviewsUi.title}</h3>
      <div className="review-current">
        {state?.current ? (
          <ReviewBadge status={state.current.status} />
        ) : (
          <span className="muted" data-testid="review-none">
            {ru.reviewsUi.noStatus}
          </span>
        )}
        {version > 0 && <span className="muted">{ru.reviewsUi.forVersion(version)}</span>}
      </div>
      {mayDecide ? (
        <div className="review-form">
          <label className="field">
            <span>{ru.reviewsUi.setStatus}</span>
            <select className="input" value={status} onChange={(e) => setStatus(e.target.value as ReviewStatus)} data-testid="review-status">
              {REVIEW_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {ru.reviews.statuses[s]}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{ru.reviewsUi.note}</span>
            <textarea
              className="input"
              rows={2}
              maxLength={2000}
              placeholder={ru.reviewsUi.notePlaceholder}
              value={note}
              onChange={(e) => setNote(e.target.value)}
              data-testid="review-note"
            />
          </label>
          <div className="review-actions">
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void save()} data-testid="review-save">
              {ru.reviewsUi.save}
            </button>
            {mayUpdate && (
              <button type="button" className="btn" onClick={() => setAsking(true)} data-testid="review-request">
                {ru.reviewsUi.request}
              </button>
            )}
          </div>
        </div>
      ) : (
        version > 0 && <p className="muted review-cannot">{ru.reviewsUi.cannotSet}</p>
      )}
      {state && state.requests.length > 0 && (
        <>
          <h4>{ru.reviewsUi.requests}</h4>
          <ul className="plain-list review-history">
            {state.requests.map((r) => (
              <li key={r.request_id}>
                <span>{ru.reviewsUi.requestEntry(r.requester_name ?? ru.common.dash, r.reviewer_name ?? ru.common.dash)}</span>{" "}
                <span className="muted">{ru.reviewsUi.forVersion(r.version)}</span>
                {r.due && (
                  <span className="muted">
                    {" · "}
                    {ru.reviewsUi.dueShort} <LocalMoment iso={r.due} fallback={r.due} />
                  </span>
                )}
                {r.note && <div className="review-note-text">{r.note}</div>}
              </li>
            ))}
          </ul>
        </>
      )}
      <h4>{ru.reviewsUi.history}</h4>
      {state && state.history.length > 0 ? (
        <ul className="plain-list review-history" data-testid="review-history">
          {state.history.map((d, i) => (
            <li key={`${d.at}-${i}`}>
              <ReviewBadge status={d.status} /> <span>{ru.reviewsUi.entry(d.by_name ?? ru.common.dash, d.version)}</span>
              <div className="muted">
                <LocalMoment iso={d.at} fallback={d.at} />
              </div>
              {d.note && <div className="review-note-text">{d.note}</div>}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{ru.reviewsUi.noHistory}</p>
      )}
      {asking && (
        <ReviewRequestDialog
          assetId={assetId}
          version={version}
          onClose={() => setAsking(false)}
          onDone={(name) => {
            setAsking(false);
            showToast({ kind: "info", title: ru.reviewsUi.title, message: ru.reviewsUi.sent(name) });
            load();
          }}
        />
      )}
    </section>
  );
}
