import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { Modal } from "../components/modal";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { ApiError } from "../lib/api-error";
import { formatBytes } from "../lib/media-kind";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.storages.tab} — ${ru.app.name}` }];

const t = ru.storages;

/** A storage as GET /api/storage/list answers it: credentials never come back, only whether they are set. */
interface Storage {
  storage_id: string;
  storage_name: string;
  storage_setup: { url: string | null; bucket: string | null; region: string | null };
  kind: "r2" | "s3";
  has_creds: boolean;
  is_default: boolean;
}

interface Usage {
  storage_id: string;
  bytes: number;
  variants: number;
  assets: number;
  folders: { id: string; name: string }[];
}

/** Folders named in a row before «и ещё N». */
const FOLDERS_IN_ROW = 3;

/**
 * /admin/storages: every storage with what it holds (files, bytes, the folders that send their files there), adding
 * and editing S3-compatible ones. Saving always checks the connection first (`verify`): nothing is saved when the
 * endpoint does not answer or refuses the keys, and the reason is shown in the form.
 */
export default function StoragesRoute() {
  const [storages, setStorages] = useState<Storage[] | null>(null);
  const [usage, setUsage] = useState<Record<string, Usage>>({});
  const [editing, setEditing] = useState<Storage | "new" | null>(null);

  const load = useCallback(async () => {
    const list = await apiRequest<Storage[]>("/api/storage/list");
    setStorages(list);
    const all = await Promise.all(list.map((s) => apiRequest<Usage>(`/api/storage/usage/${s.storage_id}`).catch(() => null)));
    setUsage(Object.fromEntries(all.flatMap((u) => (u ? [[u.storage_id, u]] : []))));
  }, []);
  useEffect(() => {
    load().catch(() => undefined);
  }, [load]);

  return (
    <section className="adm-section">
      <div className="adm-toolbar st-toolbar">
        <p className="muted st-hint">{t.hint}</p>
        <button type="button" className="btn btn-primary" onClick={() => setEditing("new")}>
          <Icon name="plus" size={16} />
          {t.add}
        </button>
      </div>
      <div className="panel st-panel">
        <table className="table adm-table st-table">
          <thead>
            <tr>
              <th>{t.columns.name}</th>
              <th>{t.columns.where}</th>
              <th>{t.columns.keys}</th>
              <th className="num">{t.columns.files}</th>
              <th className="num">{t.columns.size}</th>
              <th>{t.columns.folders}</th>
              <th aria-label={ru.admin.edit} />
            </tr>
          </thead>
          <tbody>
            {storages?.map((s) => {
              const u = usage[s.storage_id];
              return (
                <tr key={s.storage_id} data-testid="storage-row" data-storage={s.storage_name}>
                  <td>
                    <div className="st-name">
                      <Icon name="storage" size={16} />
                      <strong>{s.storage_name}</strong>
                    </div>
                    <div className="st-kind muted">
                      {s.kind === "r2" ? t.builtIn : t.s3}
                      {s.is_default && (
                        <span className="chip st-default" title={t.defaultHint}>
                          {t.isDefault}
                        </span>
                      )}
                    </div>
                  </td>
                  <td className="st-where">
                    {s.kind === "s3" ? (
                      <>
                        <span className="mono">{s.storage_setup.url}</span>
                        <span className="muted">
                          {" "}
                          / <span className="mono">{s.storage_setup.bucket}</span>
                          {s.storage_setup.region ? ` · ${s.storage_setup.region}` : ""}
                        </span>
                      </>
                    ) : (
                      <span className="muted">{t.builtInWhere}</span>
                    )}
                  </td>
                  <td className="st-keys">{s.kind === "s3" ? (s.has_creds ? t.keysSet : <span className="muted">{t.keysMissing}</span>) : ru.common.dash}</td>
                  <td className="num" data-testid="storage-files">
                    {u ? u.assets : ru.common.dash}
                  </td>
                  <td className="num adm-nowrap">{u ? formatBytes(u.bytes) : ru.common.dash}</td>
                  <td className="st-folders">
                    {u && u.folders.length === 0 && <span className="muted">{t.noFolders}</span>}
                    {u?.folders.slice(0, FOLDERS_IN_ROW).map((f, i) => (
                      <span key={f.id}>
                        {i > 0 && ", "}
                        <Link to={`/mam/${f.id}`}>{f.name}</Link>
                      </span>
                    ))}
                    {u && u.folders.length > FOLDERS_IN_ROW && <span className="muted"> {t.foldersMore(u.folders.length - FOLDERS_IN_ROW)}</span>}
                  </td>
                  <td className="adm-row-actions">
                    {!s.is_default && (
                      <button
                        type="button"
                        className="btn btn-ghost"
                        aria-label={t.makeDefaultOf(s.storage_name)}
                        title={t.defaultHint}
                        onClick={() =>
                          apiRequest(`/api/storage/update/${s.storage_id}`, { method: "PATCH", body: { default: true } }).then(
                            () => load(),
                            () => undefined,
                          )
                        }
                      >
                        {t.makeDefault}
                      </button>
                    )}
                    <button type="button" className="btn btn-ghost" aria-label={t.edit(s.storage_name)} onClick={() => setEditing(s)}>
                      <Icon name="edit" size={16} />
                      {ru.admin.edit}
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {editing && (
        <StorageDialog
          storage={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(name) => {
            setEditing(null);
            showToast({ kind: "info", title: t.savedTitle, message: t.saved(name) });
            load().catch(() => undefined);
          }}
        />
      )}
    </section>
  );
}

/** Add or edit a storage. Keys are never shown: an existing storage's fields say «••• задан» and stay empty. */
function StorageDialog({ storage, onClose, onSaved }: { storage: Storage | null; onClose: () => void; onSaved: (name: string) => void }) {
  const builtIn = storage?.kind === "r2";
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? "").trim();
    const name = value("name");
    const setup = { url: value("url"), bucket: value("bucket"), region: value("region") || null };
    const keys = { user: value("user"), passwd: String(form.get("passwd") ?? ""), token: value("token") || null };
    const keysGiven = keys.user !== "" || keys.passwd !== "" || keys.token !== null;
    if (!name || (!builtIn && (!setup.url || !setup.bucket)) || (!storage && (!keys.user || !keys.passwd))) {
      setError(t.required);
      return;
    }
    if (keysGiven && (!keys.user || !keys.passwd)) {
      setError(t.keysTogether);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      if (!storage) {
        await apiRequest("/api/storage/create", { method: "POST", body: { name, setup, creds: keys, verify: true }, toast: false });
      } else if (builtIn) {
        await apiRequest(`/api/storage/update/${storage.storage_id}`, { method: "PATCH", body: { name }, toast: false });
      } else {
        await apiRequest(`/api/storage/update/${storage.storage_id}`, {
          method: "PATCH",
          body: { name, setup, ...(keysGiven ? { creds: keys } : {}), verify: true },
          toast: false,
        });
      }
      onSaved(name);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  const field = (name: string, label: string, props: React.InputHTMLAttributes<HTMLInputElement> = {}, hint?: string) => (
    <div className="field">
      <label htmlFor={`st-${name}`}>{label}</label>
      <input id={`st-${name}`} className="input" name={name} autoComplete="off" onChange={() => error && setError(null)} {...props} />
      {hint && <div className="md-hint">{hint}</div>}
    </div>
  );

  return (
    <Modal title={storage ? t.editTitle(storage.storage_name) : t.addTitle} onClose={onClose} wide>
      <form onSubmit={submit} noValidate className="st-form" aria-busy={busy}>
        {field("name", t.name, { defaultValue: storage?.storage_name ?? "", maxLength: 100 })}
        {builtIn ? (
          <p className="muted">{t.builtInLocked}</p>
        ) : (
          <>
            {field("url", t.url, { defaultValue: storage?.storage_setup.url ?? "", type: "url", placeholder: "https://" }, t.urlHint)}
            <div className="st-pair">
              {field("bucket", t.bucket, { defaultValue: storage?.storage_setup.bucket ?? "" })}
              {field("region", t.region, { defaultValue: storage?.storage_setup.region ?? "", placeholder: "auto" }, t.regionHint)}
            </div>
            {field("user", t.accessKey, { placeholder: storage?.has_creds ? t.secretSet : "" })}
            {field("passwd", t.secretKey, { type: "password", autoComplete: "new-password", placeholder: storage?.has_creds ? t.secretSet : "" })}
            {field("token", t.sessionToken, { type: "password", autoComplete: "new-password" })}
          </>
        )}
        {error && (
          <div className="field-error st-error" role="alert">
            {error}
          </div>
        )}
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            {ru.common.cancel}
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? t.checking : builtIn ? ru.common.save : t.save}
          </button>
        </div>
      </form>
    </Modal>
  );
}
