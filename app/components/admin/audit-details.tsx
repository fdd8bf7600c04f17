import { Link } from "@remix-run/react";
import { Fragment, type ReactNode } from "react";
import { ru } from "../../i18n/ru";
import { LocalTime } from "../local-time";
import type { AuditEntry } from "./admin-api";

const t = ru.audit;

/** Where a named user, folder or file opens. */
export function entityHref(type: "user" | "group" | "asset", id: string): string {
  if (type === "user") return `/admin/user/${id}/assets`;
  if (type === "group") return `/mam/${id}`;
  return `/asset/${id}`;
}

/** An id as its name with a link, or «удалён» when it no longer exists. */
function Named({ id, names }: { id: string; names: AuditEntry["names"] }) {
  const n = names[id];
  if (!n) return <span className="muted">{t.deleted}</span>;
  return <Link to={entityHref(n.type, id)}>{n.name}</Link>;
}

const ID_KEYS = new Set(["subj_id", "users", "items", "new_owner", "scope_groups"]);
const LEVEL_KEYS = new Set(["acl", "from", "to"]);
const TIME_KEYS = new Set(["not_before", "not_after", "expires_at"]);

function time(v: unknown): ReactNode {
  if (v == null) return t.never;
  return <LocalTime iso={typeof v === "number" ? new Date(v).toISOString() : String(v)} />;
}

function value(key: string, v: unknown, names: AuditEntry["names"]): ReactNode {
  if (ID_KEYS.has(key)) {
    const ids = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
    return ids.map((id, i) => (
      <Fragment key={id}>
        {i > 0 && ", "}
        <Named id={id} names={names} />
      </Fragment>
    ));
  }
  if (LEVEL_KEYS.has(key) && Array.isArray(v)) return v.map((l) => t.levels[String(l)] ?? String(l)).join(", ");
  if (TIME_KEYS.has(key)) return time(v);
  if (key === "fields" && Array.isArray(v)) return v.map((f) => t.fieldNames[String(f)] ?? String(f)).join(", ");
  if (key === "status" && typeof v === "string") return ru.shop.statuses[v as keyof typeof ru.shop.statuses] ?? v;
  if (key === "channel" && typeof v === "string") return ru.fileHistory.channels[v] ?? v;
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.join(", ");
  if (typeof v === "boolean") return v ? t.yes : t.no;
  if (v === null || v === undefined) return ru.common.dash;
  return typeof v === "string" || typeof v === "number" ? String(v) : JSON.stringify(v);
}

/**
 * An audit entry's details in Russian: «Вход по паролю», «Права: чтение», «Администратор: нет», ids as names with
 * links. Technical ids (sessions, rule and token ids) are left out: they mean nothing to a reader, and the full
 * entry is in the API.
 */
export function AuditDetails({ entry }: { entry: AuditEntry }) {
  const details = entry.details ?? {};
  const parts: ReactNode[] = [];
  if (typeof details.method === "string") parts.push(t.methods[details.method] ?? details.method);
  if (typeof details.via === "string") parts.push(t.via[details.via] ?? details.via);
  for (const [key, v] of Object.entries(details)) {
    // a file event's name is its object (shown beside it); its other details have labels of their own
    if (key === "name" && entry.object_name) continue;
    const label = t.keys[key] ?? ru.fileHistory.keys[key];
    if (!label) continue;
    parts.push(
      <>
        {label}: {value(key, v, entry.names)}
      </>,
    );
  }
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <span className="muted"> · </span>}
          {p}
        </Fragment>
      ))}
    </>
  );
}
