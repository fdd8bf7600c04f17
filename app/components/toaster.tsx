import { useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { dismissToast, subscribeToasts, TOAST_WIDTH, type Toast } from "../lib/toast";

/** Renders the toast stack; any module may call `showToast`. */
export function Toaster() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  useEffect(() => subscribeToasts(setToasts), []);
  return (
    <div className="toasts" role="region" aria-live="assertive">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role="alert" style={{ width: TOAST_WIDTH }}>
          <div className="toast-title">{t.title}</div>
          <div className="toast-message">{t.message}</div>
          <button type="button" className="toast-close" aria-label={ru.common.close} onClick={() => dismissToast(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
