import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import type { PickerEntry } from "../components/access/access-api";
import { SubjectSearch } from "../components/access/subject-search";
import * as api from "../components/admin/admin-api";
import { AuditDetails, entityHref } from "../components/admin/audit-details";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { instantOfLocal } from "../lib/local-input";

export const meta: MetaFunction = () => [{ title: `${ru.admin.audit} — ${ru.app.name}` }];

const t = ru.admin;
const f = t.auditFilters;
/** the action filter and labels: the log's own, with file and folder events */
const ACTIONS: Record<string, string> = { ...t.actions, ...ru.fileHistory.actions };

/** Day boundaries in the browser's zone (the times in the table are shown in it too). */
const dayStart = (d: string) => instantOfLocal(d, "00:00:00") ?? undefined;
const dayEnd = (d: string) => instantOfLocal(d, "23:59:59.999") ?? undefined;

/** /admin/audit: security-relevant actions, newest first, filtered by action, actor and dates, 25 per page. */
export default function AuditRoute() {
  const [action, setAction] = useState("");
  const [actor, setActor] = useState<PickerEntry | null>(null);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [skip, setSkip] = useState(0);
  const [page, setPage] = useState<api.Page<api.AuditEntry> | null>(null);

  useEffect(() => {
    api
      .listAudit({ action: action || undefined, actor: actor?.id, from: dayStart(from), to: dayEnd(to), skip })
      .then(setPage, () => undefined);
  }, [action, actor, from, to, skip]);

  const filter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setSkip(0);
    };

  return (
    <section className="adm-section">
      <div className="adm-filters panel">
        <label className="adm-filter">
          <span>{f.action}</span>
          <select className="input select" value={action} onChange={(e) => filter(setAction)(e.target.value)}>
            <option value="">{f.any}</option>
            {Object.entries(ACTIONS).map(([value, title]) => (
              <option key={value} value={value}>
                {title}
              </option>
            ))}
          </select>
        </label>
        <div className="adm-filter adm-filter-wide">
          <span>{f.actor}</span>
          {actor ? (
            <div className="md-chips">
              <span className="chip active adm-chip">
                {actor.name}
                <button type="button" aria-label={t.form.removeChip(actor.name)} onClick={() => filter(setActor)(null)}>
                  ×
                </button>
              </span>
            </div>
          ) : (
            <SubjectSearch types={["user"]} placeholder={f.anyone} label={f.actor} onPick={filter(setActor)} />
          )}
        </div>
        <label className="adm-filter">
          <span>{f.from}</span>
          <input className="input" type="date" value={from} onChange={(e) => filter(setFrom)(e.target.value)} />
        </label>
        <label className="adm-filter">
          <span>{f.to}</span>
          <input className="input" type="date" value={to} onChange={(e) => filter(setTo)(e.target.value)} />
        </label>
        <button
          type="button"
          className="btn btn-ghost adm-filter-reset"
          onClick={() => {
            setAction("");
            setActor(null);
            setFrom("");
            setTo("");
            setSkip(0);
          }}
        >
          {f.reset}
        </button>
      </div>
      {page && page.items.length === 0 ? (
        <div className="panel empty adm-empty-sm">
          <span className="empty-icon">
            <Icon name="docs" size={26} />
          </span>
          <div className="empty-title">{t.auditEmpty}</div>
          <div>{t.auditEmptyHint}</div>
        </div>
      ) : (
        <div className="panel">
          <table className="table adm-table adm-audit">
            <thead>
              <tr>
                <th>{t.columns.time}</th>
                <th>{t.columns.action}</th>
                <th>{t.columns.actor}</th>
                <th>{t.columns.object}</th>
                <th>{t.columns.details}</th>
                <th>{t.columns.ip}</th>
              </tr>
            </thead>
            <tbody>
              {page?.items.map((e) => (
                <tr key={e.id} data-action={e.action}>
                  <td className="num adm-nowrap"><LocalTime iso={e.ctime} /></td>
                  <td>
                    <span className={`adm-action adm-action-${e.action.split(".")[0]}${e.action.endsWith("failed") ? " failed" : ""}`}>
                      {ACTIONS[e.action] ?? e.action}
                    </span>
                  </td>
                  <td>
                    {e.actor_id ? (
                      <Link to={`/admin/user/${e.actor_id}/assets`}>{e.actor_name ?? e.actor_login ?? e.actor_id}</Link>
                    ) : (
                      <span className="muted">{t.system}</span>
                    )}
                  </td>
                  <td className="adm-sub-cell">
                    {e.object_type && <span className="adm-sub">{t.auditObjects[e.object_type] ?? e.object_type}</span>}
                    {e.object_id && <AuditObject entry={e} />}
                  </td>
                  <td className="adm-details">
                    <AuditDetails entry={e} />
                  </td>
                  <td className="mono">{e.ip ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page && <Pager skip={skip} take={api.PAGE_SIZE} count={page.items.length} total={page.total} onSkip={setSkip} />}
    </section>
  );
}

/** The entry's object by name with a link; «удалён» when it is gone; a short id for objects that have no name. */
function AuditObject({ entry }: { entry: api.AuditEntry }) {
  const id = entry.object_id as string;
  const named = entry.names[id];
  // a file event names the file as it was then; the link opens it as it is now
  if (named) return <Link to={entityHref(named.type, id)}>{entry.object_name ?? named.name}</Link>;
  if (entry.object_name) return <span>{entry.object_name} <span className="muted">({ru.audit.deleted})</span></span>;
  if (entry.object_type === "user" || entry.object_type === "group" || entry.object_type === "asset") {
    return <span className="muted">{ru.audit.deleted}</span>;
  }
  return <span className="mono adm-id">{id.slice(0, 12)}…</span>;
}
