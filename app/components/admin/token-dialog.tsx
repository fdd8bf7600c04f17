import { useState } from "react";
import { ru } from "../../i18n/ru";
import { describeError } from "../../lib/api-error";
import { Modal } from "../modal";
import * as api from "./admin-api";
import { ErrorBox } from "./error-box";
import { GroupChips } from "./group-chips";
import { useFieldErrors } from "../../lib/use-field-errors";
import { instantOfLocal } from "../../lib/local-input";

const t = ru.admin;

/** The end of the chosen day in UTC, so "valid until 31 December" includes that day. */
/** The end of the picked day in the administrator's own zone (the picker has no zone). */
const endOfDay = (date: string) => instantOfLocal(date, "23:59:59") ?? undefined;

/**
 * Creates a robot's API token (name, optional expiry and group scope), then shows the token once with a copy
 * button: only its hash is kept, so closing the dialog loses it.
 */
export function TokenDialog({ userId, onCreated, onClose }: { userId: string; onCreated: () => void; onClose: () => void }) {
  const [name, setName] = useState("");
  const [expiry, setExpiry] = useState("");
  const fields = useFieldErrors();
  const [scope, setScope] = useState<string[]>([]);
  const [token, setToken] = useState<string | null>(null);
  const [copied, setCopied] = useState<"copied" | "selected" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!fields.check(event.currentTarget)) return;
    setBusy(true);
    setError(null);
    try {
      const created = await api.createToken(userId, {
        name,
        ...(expiry ? { expires_at: endOfDay(expiry) } : {}),
        ...(scope.length ? { scope_groups: scope } : {}),
      });
      setToken(created.token);
      onCreated();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  async function copy() {
    if (!token) return;
    try {
      await navigator.clipboard.writeText(token);
      setCopied("copied");
    } catch {
      // Without clipboard permission the token is selected in the field for a manual copy.
      document.querySelector<HTMLInputElement>("#new-token")?.select();
      setCopied("selected");
    }
  }

  if (token) {
    return (
      <Modal
        title={t.tokenCreated}
        onClose={onClose}
        wide
        footer={
          <button type="button" className="btn btn-primary" onClick={onClose}>
            {t.done}
          </button>
        }
      >
        <p className="adm-once">{t.tokenOnce}</p>
        <div className="inline-form">
          <input
            id="new-token"
            className="input mono"
            readOnly
            value={token}
            aria-label={t.columns.token}
            onFocus={(e) => e.target.select()}
          />
          <button type="button" className="btn" onClick={() => void copy()}>
            {copied === "copied" ? t.copied : t.copy}
          </button>
        </div>
        {copied === "selected" && <p className="md-hint adm-copy-hint">{t.copyManually}</p>}
      </Modal>
    );
  }

  return (
    <Modal title={t.newToken} onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="token-name">{t.tokenName}</label>
          <input
            id="token-name"
            className="input"
            {...fields.props("token-name")}
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={100}
            required
            autoComplete="off"
          />
          {fields.error("token-name")}
        </div>
        <div className="field">
          <label htmlFor="token-expiry">{t.tokenExpiry}</label>
          <input id="token-expiry" className="input" type="date" value={expiry} onChange={(e) => setExpiry(e.target.value)} />
          <span className="md-hint">{t.tokenExpiryHint}</span>
        </div>
        <div className="field">
          <span className="adm-label">{t.tokenScope}</span>
          <GroupChips value={scope} onChange={setScope} label={t.tokenScope} />
          <span className="md-hint">{t.tokenScopeHint}</span>
        </div>
        <ErrorBox message={error} />
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {t.create}
          </button>
        </div>
      </form>
    </Modal>
  );
}
