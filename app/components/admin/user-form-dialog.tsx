import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { describeError } from "../../lib/api-error";
import { Modal } from "../modal";
import * as api from "./admin-api";
import { ErrorBox } from "./error-box";
import { GroupChips } from "./group-chips";
import { useFieldErrors } from "../../lib/use-field-errors";

const t = ru.admin;

/** Robots sign in with tokens only, but the API stores a password for every account: a long random one nobody knows. */
function randomPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Creates (no `user`) or edits a user or robot: name, login, password, active, administrator, robot, chroot
 * groups and default storage. The API's refusals (a taken login, the last administrator) stay in the dialog.
 */
export function UserFormDialog({
  user,
  robot = false,
  onSaved,
  onClose,
}: {
  user?: api.User;
  /** create a robot (the robot box starts checked) */
  robot?: boolean;
  onSaved: (user: api.User) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(user?.user_name ?? "");
  const [login, setLogin] = useState(user?.login ?? "");
  const [password, setPassword] = useState("");
  const [enabled, setEnabled] = useState(user?.enabled ?? true);
  const [admin, setAdmin] = useState(user?.is_admin ?? false);
  const [isRobot, setIsRobot] = useState(user?.is_robot ?? robot);
  const [chroot, setChroot] = useState<string[]>(user?.chroot_groups ?? []);
  const [storage, setStorage] = useState<string>(user?.default_storage ?? "");
  const [storages, setStorages] = useState<{ storage_id: string; storage_name: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = useFieldErrors();

  useEffect(() => {
    api.listStorages().then(setStorages, () => undefined);
  }, []);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!fields.check(event.currentTarget)) return;
    setBusy(true);
    setError(null);
    const common = { user_name: name, user_login: login, enabled, is_admin: admin, is_robot: isRobot, chroot_groups: chroot };
    try {
      const saved = user
        ? await api.patchUser(user.user_id, {
            ...common,
            default_storage: storage || null,
            ...(password ? { user_passwd: password } : {}),
          })
        : await api.createUser({
            ...common,
            user_passwd: isRobot && !password ? randomPassword() : password,
            ...(storage ? { default_storage: storage } : {}),
          });
      onSaved(saved);
      onClose();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  }

  const title = user ? t.editUser : isRobot ? t.newRobot : t.newUser;
  const passwordNeeded = !user && !isRobot;
  return (
    <Modal title={title} onClose={onClose} wide>
      <form onSubmit={submit} className="adm-form" noValidate>
        <div className="adm-form-grid">
          <div className="field">
            <label htmlFor="user-name">{t.form.name}</label>
            <input
              id="user-name"
              className="input"
              {...fields.props("user-name")}
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={200}
              required
              autoComplete="off"
            />
            {fields.error("user-name")}
          </div>
          <div className="field">
            <label htmlFor="user-login">{t.form.login}</label>
            <input
              id="user-login"
              className="input"
              {...fields.props("user-login")}
              value={login}
              onChange={(e) => setLogin(e.target.value)}
              maxLength={100}
              required
              autoComplete="off"
            />
            {fields.error("user-login")}
          </div>
        </div>
        {(!isRobot || user) && (
          <div className="field">
            <label htmlFor="user-password">{user ? t.form.newPassword : t.form.password}</label>
            <input
              id="user-password"
              className="input"
              {...fields.props("user-password")}
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              minLength={8}
              maxLength={1024}
              required={passwordNeeded}
              autoComplete="new-password"
            />
            {fields.error("user-password")}
            <span className="md-hint">{user ? t.form.newPasswordHint : t.form.passwordHint}</span>
          </div>
        )}
        {isRobot && !user && <p className="md-hint adm-note">{t.form.robotPasswordHint}</p>}
        <div className="adm-checks">
          <label className="md-check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
            {t.form.enabled}
          </label>
          <label className="md-check">
            <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} />
            {t.form.admin}
          </label>
          <label className="md-check">
            <input type="checkbox" checked={isRobot} onChange={(e) => setIsRobot(e.target.checked)} />
            {t.form.robot}
          </label>
        </div>
        <div className="field">
          <span className="adm-label">{t.form.chroot}</span>
          <GroupChips value={chroot} onChange={setChroot} label={t.form.chroot} />
          <span className="md-hint">{t.form.chrootHint}</span>
        </div>
        <div className="field">
          <label htmlFor="user-storage">{t.form.storage}</label>
          <select id="user-storage" className="input select" value={storage} onChange={(e) => setStorage(e.target.value)}>
            <option value="">{t.form.storageDefault}</option>
            {storages.map((s) => (
              <option key={s.storage_id} value={s.storage_id}>
                {s.storage_name}
              </option>
            ))}
          </select>
        </div>
        <ErrorBox message={error} />
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {user ? ru.common.save : t.create}
          </button>
        </div>
      </form>
    </Modal>
  );
}
