import { useCallback, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiRequest } from "../lib/api-client";
import { useDateTimeFormat } from "./local-time";
import { instantOfLocal } from "../lib/local-input";
import { ROOT_GROUP_ID } from "../lib/root-group";
import type { ShareAcl } from "../../workers/services/sharing/pure";
import type { ShortlinkView } from "../../workers/services/sharing";
import { Icon } from "./icons";
import { Modal } from "./modal";

const t = ru.sharing;

/** The caller's levels on an item (the dialog offers download rights only to those who may download). */
async function levelsOf(id: string): Promise<string[]> {
  const answer = await apiRequest<{ acl: string[] }>(`/api/auth/entity-access/${id}`, { toast: false });
  return answer.acl;
}

const has = (levels: readonly string[], level: string) => levels.includes(level) || levels.includes("superuser");

/** Whether these levels let the caller share the item: read and acl (decision 012). */
export function canShare(levels: readonly string[] | null): boolean {
  return levels != null && has(levels, "read") && has(levels, "acl");
}

/** The caller's levels on an item, loaded once per id (null while loading, for the virtual root, or when `id` is null). */
export function useLevels(id: string | null): string[] | null {
  const [levels, setLevels] = useState<string[] | null>(null);
  useEffect(() => {
    setLevels(null);
    if (!id || id === ROOT_GROUP_ID) return;
    let alive = true;
    levelsOf(id).then(
      (l) => alive && setLevels(l),
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [id]);
  return levels;
}

/**
 * 'Поделиться' for a file or a folder: shown only to those who may share it (read and acl, decision 012); the
 * dialog offers download rights when the caller also may download. `levels` skips the lookup when the page has them.
 */
export function ShareButton({
  entityId,
  name,
  className = "btn",
  iconOnly,
  levels: known,
}: {
  entityId: string;
  name?: string;
  className?: string;
  iconOnly?: boolean;
  levels?: string[] | null;
}) {
  const fetched = useLevels(known === undefined ? entityId : null);
  const levels = known === undefined ? fetched : known;
  const [open, setOpen] = useState(false);
  if (!canShare(levels)) return null;
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)} title={t.share} aria-label={iconOnly ? `${t.share}: ${name ?? ""}` : undefined}>
        <Icon name="share" size={16} />
        {!iconOnly && t.share}
      </button>
      {open && <ShareDialog entityId={entityId} name={name ?? ""} onClose={() => setOpen(false)} />}
    </>
  );
}


function aclOf(right: "view" | "download" | "proxy"): ShareAcl[] {
  return right === "download" ? ["read", "download"] : right === "proxy" ? ["read", "download_proxy"] : ["read"];
}

/**
 * The share dialog: rights, optional password, date range and emails; the created link; the item's links.
 * `mayDownload` skips the levels lookup where the page knows it (a collection has no access levels of its own).
 */
export function ShareDialog({ entityId, name, onClose, mayDownload: knownDownload }: { entityId: string; name: string; onClose: () => void; mayDownload?: boolean }) {
  const [mayDownload, setMayDownload] = useState(knownDownload ?? false);
  const [right, setRight] = useState<"view" | "download" | "proxy">("view");
  const [password, setPassword] = useState("");
  const [from, setFrom] = useState("");
  const [until, setUntil] = useState("");
  const [emails, setEmails] = useState("");
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ url: string; emailed: number } | null>(null);
  /** the link last copied to the clipboard */
  const [copied, setCopied] = useState<string | null>(null);
  const [links, setLinks] = useState<ShortlinkView[]>([]);
  const formatTime = useDateTimeFormat();

  const reload = useCallback(() => {
    apiRequest<ShortlinkView[]>(`/api/sl/for-entity/${entityId}`).then(setLinks, () => undefined);
  }, [entityId]);
  useEffect(reload, [reload]);
  useEffect(() => {
    if (knownDownload !== undefined) return;
    levelsOf(entityId).then((l) => setMayDownload(has(l, "download")), () => undefined);
  }, [entityId, knownDownload]);

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setCopied(null);
    try {
      const email = emails
        .split(/[\s,;]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      const url = await apiRequest<string>(`/api/sl/create/${entityId}`, {
        method: "POST",
        body: { time_range: [instantOfLocal(from), instantOfLocal(until)], password: password || null, acl: aclOf(right), email },
      });
      setCreated({ url, emailed: new Set(email).size });
      setPassword("");
      setEmails("");
      reload();
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  /** Copies a link; when the clipboard refuses, the created link's field is selected for a manual copy. */
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(url);
    } catch {
      if (url === created?.url) document.querySelector<HTMLInputElement>("#share-created")?.select();
    }
  };

  const revoke = (id: string) =>
    apiRequest(`/api/sl/${id}`, { method: "DELETE" }).then(() => {
      if (created?.url.endsWith(`/sl/${id}`)) setCreated(null);
      reload();
    }, () => undefined);

  return (
    <Modal title={t.dialogTitle(name)} onClose={onClose} wide>
      <form className="share-form" onSubmit={create} data-testid="share-form">
        <div className="share-row">
          <div className="field">
            <label htmlFor="share-right">{t.rights}</label>
            <select id="share-right" className="input select" value={right} onChange={(e) => setRight(e.target.value as typeof right)}>
              <option value="view">{t.rightView}</option>
              {mayDownload && <option value="download">{t.rightDownload}</option>}
              {mayDownload && <option value="proxy">{t.rightProxy}</option>}
            </select>
          </div>
          <div className="field">
            <label htmlFor="share-password">{t.password}</label>
            <input id="share-password" className="input" type="password" autoComplete="new-password" maxLength={256} value={password} onChange={(e) => setPassword(e.target.value)} />
          </div>
        </div>
        <div className="share-row">
          <div className="field">
            <label htmlFor="share-from">{t.from}</label>
            <input id="share-from" className="input" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="share-until">{t.until}</label>
            <input id="share-until" className="input" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
          </div>
        </div>
        <div className="field">
          <label htmlFor="share-emails">{t.emails}</label>
          <input id="share-emails" className="input" type="text" inputMode="email" value={emails} onChange={(e) => setEmails(e.target.value)} placeholder="name@example.com" />
        </div>
        <div className="share-submit">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            <Icon name="share" size={16} />
            {t.create}
          </button>
        </div>
        {created && (
          <div className="share-created-box">
            <label htmlFor="share-created">{t.created}</label>
            <div className="share-created">
              <input id="share-created" className="input" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
              <button type="button" className="btn" onClick={() => void copy(created.url)}>
                <Icon name="copy" size={16} />
                {copied === created.url ? t.copied : t.copy}
              </button>
            </div>
            {created.emailed > 0 && <p className="muted">{t.emailed(created.emailed)}</p>}
          </div>
        )}
      </form>
      <div className="share-links">
        <h3>{t.existing}</h3>
        {links.length === 0 && <p className="muted">{t.noLinks}</p>}
        {links.map((l) => (
          <div key={l.id} className="share-link" data-testid="share-link">
            <div className="share-link-main">
              <div className="share-link-url">
                <code title={l.url}>{l.url}</code>
                <button type="button" className="icon-btn" title={t.copy} aria-label={`${t.copy}: ${l.url}`} onClick={() => void copy(l.url)}>
                  <Icon name="copy" size={14} />
                </button>
                {copied === l.url && <span className="share-copied">{t.copied}</span>}
              </div>
              <div className="share-chips">
                <span className="share-chip">{l.acl.includes("download") ? t.rightDownload : l.acl.includes("download_proxy") ? t.rightProxy : t.rightView}</span>
                {l.has_password && (
                  <span className="share-chip">
                    <Icon name="lock" size={12} />
                    {t.withPassword}
                  </span>
                )}
                <span className="share-chip">
                  <Icon name="clock" size={12} />
                  {l.time_range[0] || l.time_range[1] ? t.range(l.time_range[0] && formatTime(l.time_range[0]), l.time_range[1] && formatTime(l.time_range[1])) : t.always}
                </span>
              </div>
              <div className="muted share-link-meta">
                {[l.creator_name, formatTime(l.created), t.views(l.views), t.downloads(l.downloads), l.last_opened ? t.lastOpened(formatTime(l.last_opened)) : null]
                  .filter(Boolean)
                  .join(" · ")}
              </div>
            </div>
            <button type="button" className="btn btn-danger-outline" onClick={() => void revoke(l.id)}>
              {t.revoke}
            </button>
          </div>
        ))}
      </div>
    </Modal>
  );
}
