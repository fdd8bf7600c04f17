import { useEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";

/**
 * A centred dialog; Escape and the backdrop close it. It focuses its first field, or with `focusDialog` the dialog
 * itself (for a dialog that opens unasked, where focusing a choice would look like a choice made).
 */
export function Modal({
  title,
  onClose,
  children,
  footer,
  wide,
  focusDialog,
}: {
  title: string;
  onClose: () => void;
  children: React.ReactNode;
  footer?: React.ReactNode;
  wide?: boolean;
  focusDialog?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    if (focusDialog) ref.current?.focus({ preventScroll: true });
    // No scrolling into view: a phone's dialog slides up from below the screen as it opens.
    else ref.current?.querySelector<HTMLElement>("input, select, button:not(.modal-x)")?.focus({ preventScroll: true });
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose, focusDialog]);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className={`modal${wide ? " modal-wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        ref={ref}
        tabIndex={focusDialog ? -1 : undefined}
      >
        <div className="modal-head">
          <h2>{title}</h2>
          <button type="button" className="modal-x" aria-label={ru.common.close} onClick={onClose}>
            ×
          </button>
        </div>
        <div className="modal-body">{children}</div>
        {footer && <div className="modal-actions">{footer}</div>}
      </div>
    </div>
  );
}

/** A one-field form in a dialog (create a folder, rename). */
export function NameDialog({
  title,
  label,
  initial = "",
  submit,
  onSubmit,
  onClose,
}: {
  title: string;
  label: string;
  initial?: string;
  submit: string;
  onSubmit: (name: string) => Promise<unknown>;
  onClose: () => void;
}) {
  // The app's own Russian message instead of the browser's validation bubble (the form is noValidate).
  const [error, setError] = useState<string | null>(null);
  async function handle(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name") ?? "").trim();
    if (!name) {
      setError(ru.common.nameRequired);
      return;
    }
    setError(null);
    try {
      await onSubmit(name);
      onClose();
    } catch {
      // the API client showed the error toast; keep the dialog open for a correction
    }
  }
  return (
    <Modal title={title} onClose={onClose}>
      <form onSubmit={handle} noValidate>
        <div className="field">
          <label htmlFor="name-dialog-input">{label}</label>
          <input
            id="name-dialog-input"
            className="input"
            name="name"
            defaultValue={initial}
            maxLength={255}
            required
            autoComplete="off"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "name-dialog-error" : undefined}
            onChange={() => error && setError(null)}
          />
          {error && (
            <div id="name-dialog-error" className="field-error" role="alert">
              {error}
            </div>
          )}
        </div>
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="submit" className="btn btn-primary">
            {submit}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** Asks before a destructive action. */
export function ConfirmDialog({
  title,
  text,
  confirm,
  onConfirm,
  onClose,
}: {
  title: string;
  text: string;
  confirm: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button
            type="button"
            className="btn btn-danger"
            onClick={() =>
              onConfirm()
                .then(onClose)
                .catch(() => undefined)
            }
          >
            {confirm}
          </button>
        </>
      }
    >
      <p className="muted">{text}</p>
    </Modal>
  );
}
