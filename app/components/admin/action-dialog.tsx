import { useState } from "react";
import { ru } from "../../i18n/ru";
import { describeError } from "../../lib/api-error";
import { Modal } from "../modal";
import { ErrorBox } from "./error-box";

/**
 * Asks before an action and keeps the dialog open with the API's answer when it refuses (the last administrator,
 * a user who still owns files), so the refusal is read where it was caused rather than in a passing toast.
 */
export function ActionDialog({
  title,
  text,
  confirm,
  danger,
  children,
  onConfirm,
  onClose,
}: {
  title: string;
  text: string;
  confirm: string;
  danger?: boolean;
  children?: React.ReactNode;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Modal
      title={title}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="button" className={`btn ${danger ? "btn-danger" : "btn-primary"}`} disabled={busy} onClick={() => void run()}>
            {confirm}
          </button>
        </>
      }
    >
      <p className="muted">{text}</p>
      {children}
      <ErrorBox message={error} />
    </Modal>
  );
}
