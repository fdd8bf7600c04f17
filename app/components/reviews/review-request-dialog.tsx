import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { searchSubjects, type PickerEntry } from "../access/access-api";
import { Modal } from "../modal";
import { ApiError } from "../../lib/api-error";
import { requestReview } from "./reviews-api";

/**
 * «Запросить согласование»: pick a person by name or login, a due date in the visitor's own time (sent with its
 * offset, so the server stores the moment meant) and a message. The server checks the person may read the file.
 */
export function ReviewRequestDialog({ assetId, version, onDone, onClose }: { assetId: string; version: number; onDone: (name: string) => void; onClose: () => void }) {
  const [text, setText] = useState("");
  const [found, setFound] = useState<PickerEntry[]>([]);
  const [picked, setPicked] = useState<PickerEntry | null>(null);
  const [due, setDue] = useState("");
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (picked || text.trim().length < 2) return setFound([]);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchSubjects(text.trim(), controller.signal).then(
        (rows) => setFound(rows.filter((r) => r.type === "user" && !r.is_robot).slice(0, 8)),
        () => undefined,
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text, picked]);

  const submit = async () => {
    if (!picked) return setError(ru.reviewsUi.pickReviewer);
    setBusy(true);
    setError(null);
    try {
      // A datetime-local value is the visitor's wall time; Date reads it as local and ISO adds the offset (UTC).
      await requestReview(assetId, { reviewer: picked.id, version, due: due ? new Date(due).toISOString() : null, note: note.trim() || null });
      onDone(picked.name);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : ru.errors.unknown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title={ru.reviewsUi.requestTitle}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void submit()} data-testid="review-request-send">
            {ru.reviewsUi.send}
          </button>
        </>
      }
    >
      <div className="review-request-form">
        <label className="field">
          <span>{ru.reviewsUi.reviewer}</span>
          <input
            className="input"
            value={picked ? `${picked.name}${picked.login ? ` (${picked.login})` : ""}` : text}
            placeholder={ru.reviewsUi.reviewerPlaceholder}
            onChange={(e) => {
              setPicked(null);
              setText(e.target.value);
            }}
            data-testid="review-reviewer"
          />
        </label>
        {found.length > 0 && (
          <ul className="review-picker" role="listbox" aria-label={ru.reviewsUi.reviewer}>
            {found.map((u) => (
              <li key={u.id}>
                <button type="button" className="btn btn-ghost" role="option" aria-selected={false} onClick={() => setPicked(u)}>
                  {u.name} {u.login && <span className="muted">{u.login}</span>}
                </button>
              </li>
            ))}
          </ul>
        )}
        <label className="field">
          <span>{ru.reviewsUi.dueLabel}</span>
          <input className="input" type="datetime-local" value={due} onChange={(e) => setDue(e.target.value)} data-testid="review-due" />
        </label>
        <label className="field">
          <span>{ru.reviewsUi.requestNote}</span>
          <textarea className="input" rows={3} maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} />
        </label>
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </Modal>
  );
}
