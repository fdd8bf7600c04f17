import { useCallback, useEffect, useState } from "react";
import { ru } from "../i18n/ru";
import { apiCall } from "../lib/api-client";
import type { AuditEntry } from "./admin/admin-api";

const t = ru.fileHistory;
const PAGE = 20;

/** A history page, and how many entries match in all. */
export async function historyPage(entity: string, action: string | undefined, skip: number, take = PAGE) {
  const { data, headers } = await apiCall<AuditEntry[]>("/api/audit", { query: { entity, action, skip, take }, toast: false });
  return { items: data, total: Number(headers.get("x-total-count") ?? data.length) };
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** What happened, in words: the details that matter for each kind of event. */
function summary(e: AuditEntry): string[] {
  const d = e.details ?? {};
  const parts: string[] = [];
  const verb = e.action.split(".")[1];
  if (verb === "rename" && text(d.from)) parts.push(t.renamedFrom(text(d.from)!));
  if (verb === "move" && text(d.from) && text(d.to)) parts.push(t.moved(text(d.from)!, text(d.to)!));
  if (typeof d.version === "number") parts.push(t.version(d.version));
  if (d.trash === true) parts.push(t.fromTrash);
  if (Array.isArray(d.added)) parts.push(t.tagsAdded(d.added.join(", ")));
  if (Array.isArray(d.removed)) parts.push(t.tagsRemoved(d.removed.join(", ")));
  if (verb === "fields" && text(d.field)) parts.push(t.field(text(d.field)!, text(d.value)));
  if (verb === "share") parts.push(d.shortlink ? t.sharedLink : t.sharedRule);
  if (text(d.channel)) parts.push(t.channels[text(d.channel)!] ?? text(d.channel)!);
  if (e.ip) parts.push(t.from(e.ip));
  return parts;
}

/** The moment in the reader's own zone (the list is drawn in the browser only, so there is no hydration to match). */
function Moment({ iso }: { iso: string }) {
  const date = new Date(iso);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <time dateTime={iso} title={t.zone(zone)}>
      {date.toLocaleString("ru-RU", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" })}
    </time>
  );
}

/**
 * The audit entries of a file or folder (`entity`), newest first, 20 at a time with «Показать ещё». `showObject`
 * names the file or folder of each entry (a folder's history lists its files' events).
 */
export function HistoryList({ entity, action, showObject = false }: { entity: string; action?: string; showObject?: boolean }) {
  const [items, setItems] = useState<AuditEntry[] | null>(null);
  const [total, setTotal] = useState(0);
  const [failed, setFailed] = useState(false);

  const load = useCallback(
    (skip: number) =>
      historyPage(entity, action, skip).then(
        (page) => {
          setItems((before) => (skip === 0 ? page.items : [...(before ?? []), ...page.items]));
          setTotal(page.total);
        },
        () => setFailed(true),
      ),
    [entity, action],
  );
  useEffect(() => {
    setItems(null);
    setFailed(false);
    void load(0);
  }, [load]);

  if (failed) return <p className="muted">{t.failed}</p>;
  if (!items) return <p className="muted">{t.loading}</p>;
  if (items.length === 0) return <p className="muted">{t.empty}</p>;
  return (
    <>
      <ol className="history-list" data-testid="history-list">
        {items.map((e) => (
          <li key={e.id} className="history-item" data-action={e.action}>
            <div className="history-head">
              <span className="history-action">{t.actions[e.action] ?? ru.admin.actions[e.action] ?? e.action}</span>
              {showObject && e.object_name && <span className="history-object">{e.object_name}</span>}
            </div>
            <div className="history-meta muted">
              <Moment iso={e.ctime} /> · {e.actor_id ? (e.actor_name ?? e.actor_login ?? ru.audit.deleted) : e.action.endsWith(".download") ? t.visitor : t.system}
            </div>
            {summary(e).length > 0 && <div className="history-details">{summary(e).join(" · ")}</div>}
          </li>
        ))}
      </ol>
      {items.length < total && (
        <button type="button" className="btn btn-ghost history-more" onClick={() => void load(items.length)}>
          {t.more}
        </button>
      )}
    </>
  );
}
