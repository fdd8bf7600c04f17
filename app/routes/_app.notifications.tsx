import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { INBOX_CHANGED } from "../components/comments/notification-bell";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { getSettings, inbox, markRead, notificationHref, putSettings, type NotificationItem } from "../lib/comments-api";
import { formatDateTime } from "../lib/format";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.commentsUi.inboxTitle} — ${ru.app.name}` }];

const PAGE = 50;

/** The inbox: newest first, each item leading to the exact comment, moment or page; read state and the e-mail digest. */
export default function NotificationsRoute() {
  const [items, setItems] = useState<NotificationItem[] | null>(null);
  const [unread, setUnread] = useState(0);
  const [onlyUnread, setOnlyUnread] = useState(false);
  const [more, setMore] = useState(false);
  const load = useCallback(
    (skip = 0) =>
      void inbox({ unread: onlyUnread, skip, take: PAGE }).then((r) => {
        setUnread(r.unread);
        setItems((old) => (skip === 0 ? r.items : [...(old ?? []), ...r.items]));
        setMore(r.items.length === PAGE);
      }, () => setItems((old) => old ?? [])),
    [onlyUnread],
  );
  useEffect(() => load(0), [load]);
  useEffect(() => {
    const onChange = () => load(0);
    window.addEventListener(INBOX_CHANGED, onChange);
    return () => window.removeEventListener(INBOX_CHANGED, onChange);
  }, [load]);

  const read = async (body: { ids: string[] } | { all: true }) => {
    const r = await markRead(body);
    setUnread(r.unread);
    setItems((old) => old?.map((n) => ("all" in body || body.ids.includes(n.id) ? { ...n, read: true } : n)) ?? null);
    window.dispatchEvent(new Event(INBOX_CHANGED));
  };

  return (
    <>
      <PageHeader
        title={ru.commentsUi.inboxTitle}
        subtitle={ru.commentsUi.inboxSubtitle}
        actions={
          <div className="toolbar">
            <label className="check-label">
              <input type="checkbox" checked={onlyUnread} onChange={(e) => setOnlyUnread(e.target.checked)} /> {ru.commentsUi.onlyUnread}
            </label>
            <button type="button" className="btn" disabled={unread === 0} onClick={() => void read({ all: true })}>
              {ru.commentsUi.markAllRead}
            </button>
          </div>
        }
      />
      {items === null ? (
        <div className="muted">{ru.common.loading}</div>
      ) : items.length === 0 ? (
        <div className="panel pad muted">{ru.commentsUi.inboxEmpty}</div>
      ) : (
        <ul className="panel inbox-list" data-testid="inbox">
          {items.map((n) => (
            <li key={n.id} className={n.read ? "inbox-item" : "inbox-item unread"}>
              <Link to={notificationHref(n)} className="inbox-link" onClick={() => !n.read && void read({ ids: [n.id] })}>
                <span className="inbox-head">
                  <strong>{n.by_name ?? ru.commentsUi.someone}</strong> {(ru.commentsUi.kinds as Record<string, string>)[n.kind] ?? n.kind}
                  {" — "}
                  {n.asset_name ?? (n.link.collection_id ? `${ru.commentsUi.collection} «${n.text}»` : ru.commentsUi.unknownFile)}
                </span>
                {n.asset_id && n.text && <span className="inbox-text">{n.text}</span>}
                <span className="muted inbox-time">{formatDateTime(n.ctime)}</span>
              </Link>
              {!n.read && (
                <button type="button" className="btn btn-ghost" onClick={() => void read({ ids: [n.id] })}>
                  {ru.commentsUi.markRead}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" className="btn" onClick={() => load(items?.length ?? 0)}>
          {ru.commentsUi.more}
        </button>
      )}
      <DigestSettings />
    </>
  );
}

function DigestSettings() {
  const [email, setEmail] = useState("");
  const [digest, setDigest] = useState(false);
  useEffect(() => {
    getSettings().then((s) => {
      setEmail(s.email ?? "");
      setDigest(s.digest);
    }, () => undefined);
  }, []);
  return (
    <form
      className="panel pad inbox-settings"
      onSubmit={(e) => {
        e.preventDefault();
        void putSettings({ email: email.trim() || null, digest }).then(() => showToast({ title: ru.commentsUi.settingsSaved, message: email.trim() || ru.common.dash, kind: "info" }), () => undefined);
      }}
    >
      <h2>{ru.commentsUi.digestTitle}</h2>
      <label className="check-label">
        <input type="checkbox" checked={digest} onChange={(e) => setDigest(e.target.checked)} /> {ru.commentsUi.digestLabel}
      </label>
      <label>
        {ru.commentsUi.emailLabel}{" "}
        <input className="input" type="email" value={email} onChange={(e) => setEmail(e.target.value)} maxLength={254} />
      </label>
      <button type="submit" className="btn">
        {ru.commentsUi.saveSettings}
      </button>
    </form>
  );
}
