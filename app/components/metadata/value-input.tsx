import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import type { FieldSetup } from "../../../workers/services/metadata/pure";
import { validateFieldValue } from "../../../workers/services/metadata/pure";
import * as api from "./api";
import { instantOfLocal, localInputOf } from "../../lib/local-input";

const t = ru.metadataAdmin;

/** List records by list id, fetched once per page view (forms show many fields of the same list). */
const recordCache = new Map<string, Promise<api.ListRecord[]>>();
function useListRecords(listId: string | undefined) {
  const [records, setRecords] = useState<api.ListRecord[]>([]);
  useEffect(() => {
    if (!listId) return;
    let cached = recordCache.get(listId);
    if (!cached) recordCache.set(listId, (cached = api.records(listId).catch(() => [])));
    let alive = true;
    void cached.then((r) => alive && setRecords(r));
    return () => {
      alive = false;
    };
  }, [listId]);
  return records;
}

/** A value as people read it: dates in Russian, booleans as Да/Нет, regions as percentages. */
export function formatFieldValue(template: api.FieldTemplateInfo, data: unknown): string {
  if (data === null || data === undefined) return t.notSet;
  switch (template.field_type) {
    case "bool":
      return data ? t.yes : t.no;
    case "date": {
      const value = String(data);
      const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
      if (Number.isNaN(date.getTime())) return value;
      return value.length === 10
        ? date.toLocaleDateString("ru-RU", { timeZone: "UTC", day: "numeric", month: "long", year: "numeric" })
        : date.toLocaleString("ru-RU", { day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit" });
    }
    case "number":
      return `${Number(data).toLocaleString("ru-RU")}${template.field_setup.unit ? ` ${template.field_setup.unit}` : ""}`;
    case "region": {
      const r = data as { x: number; y: number; w: number; h: number };
      const pct = (n: number) => `${Math.round(n * 100)}%`;
      return `${pct(r.x)}, ${pct(r.y)} · ${pct(r.w)} × ${pct(r.h)}`;
    }
    case "struct": {
      const members = template.field_setup.members ?? [];
      const obj = data as Record<string, unknown>;
      return members
        .filter((m) => obj[m.key] !== undefined)
        .map((m) => `${m.name}: ${m.type === "bool" ? (obj[m.key] ? t.yes : t.no) : String(obj[m.key])}`)
        .join("; ");
    }
    case "external": {
      const e = data as { id: string; label?: string };
      return e.label ? `${e.label} (${e.id})` : e.id;
    }
    default:
      return String(data);
  }
}

/** The client-side twin of the server's check: the same module, so the messages are the same. */
export function draftError(template: api.FieldTemplateInfo, draft: unknown): string | null {
  const checked = validateFieldValue(template.field_type, template.field_setup as FieldSetup, draft);
  return checked.ok ? null : checked.message;
}

/** Turns the text of a number input into the JSON value (text stays text, so validation can say what is wrong). */
const numberOrText = (text: string): unknown => (text.trim() === "" ? undefined : Number.isFinite(Number(text)) ? Number(text) : text);

interface Props {
  template: api.FieldTemplateInfo;
  value: unknown;
  onChange: (value: unknown) => void;
  id?: string;
  invalid?: boolean;
}

/** An editor for one value that adapts to the template's type and setup. */
export function ValueInput({ template, value, onChange, id, invalid }: Props) {
  const setup = template.field_setup as FieldSetup;
  const records = useListRecords(setup.list_id);
  const cls = `input${invalid ? " input-invalid" : ""}`;
  const label = template.field_def_name;
  switch (template.field_type) {
    case "text":
      if (setup.options || setup.list_id) {
        const choices =
          setup.options?.map((o) => ({ value: o, label: o })) ??
          records.map((r) => ({ value: r.rec_id, label: String(r.rec_data.label ?? r.rec_id) }));
        return (
          <select
            id={id}
            aria-label={label}
            className={`${cls} select`}
            value={typeof value === "string" ? value : ""}
            onChange={(e) => onChange(e.target.value || undefined)}
          >
            <option value="">{t.notSet}</option>
            {choices.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        );
      }
      return setup.format === "multiline" ? (
        <textarea
          id={id}
          aria-label={label}
          className={`${cls} textarea`}
          rows={3}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
      ) : (
        <input
          id={id}
          aria-label={label}
          className={cls}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
      );
    case "number":
      return (
        <input
          id={id}
          aria-label={label}
          className={cls}
          inputMode="decimal"
          value={value === undefined ? "" : String(value)}
          onChange={(e) => onChange(numberOrText(e.target.value))}
        />
      );
    case "date":
      return setup.format === "datetime" ? (
        <input
          id={id}
          aria-label={label}
          type="datetime-local"
          className={cls}
          value={typeof value === "string" && value.length > 10 ? localInputOf(value) : ""}
          onChange={(e) => onChange(instantOfLocal(e.target.value) ?? undefined)}
        />
      ) : (
        <input
          id={id}
          aria-label={label}
          type="date"
          className={cls}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
      );
    case "time":
      return (
        <input
          id={id}
          aria-label={label}
          type="time"
          step={1}
          className={cls}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
      );
    case "bool":
      return (
        <select
          id={id}
          aria-label={label}
          className={`${cls} select`}
          value={value === true ? "true" : value === false ? "false" : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value === "true")}
        >
          <option value="">{t.notSet}</option>
          <option value="true">{t.yes}</option>
          <option value="false">{t.no}</option>
        </select>
      );
    case "region": {
      const r = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      return (
        <div className="md-region" title={t.regionHint}>
          {(["x", "y", "w", "h"] as const).map((k) => (
            <input
              key={k}
              aria-label={`${label}: ${t[k]}`}
              placeholder={t[k]}
              className={cls}
              inputMode="decimal"
              value={r[k] === undefined ? "" : String(r[k])}
              onChange={(e) => onChange({ ...r, [k]: numberOrText(e.target.value) })}
            />
          ))}
        </div>
      );
    }
    case "struct": {
      const obj = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      return (
        <div className="md-struct">
          {(setup.members ?? []).map((m) => {
            const set = (v: unknown) => {
              const next = { ...obj, [m.key]: v };
              if (v === undefined) delete next[m.key];
              onChange(next);
            };
            return (
              <label key={m.key} className="md-struct-row">
                <span>
                  {m.name}
                  {m.required ? " *" : ""}
                </span>
                {m.type === "bool" ? (
                  <input type="checkbox" checked={obj[m.key] === true} onChange={(e) => set(e.target.checked)} />
                ) : (
                  <input
                    className={cls}
                    type={m.type === "date" ? "date" : m.type === "time" ? "time" : "text"}
                    value={obj[m.key] === undefined ? "" : String(obj[m.key])}
                    onChange={(e) => set(m.type === "number" ? numberOrText(e.target.value) : e.target.value || undefined)}
                  />
                )}
              </label>
            );
          })}
        </div>
      );
    }
    case "external": {
      const e = (typeof value === "object" && value !== null ? value : {}) as { id?: string; label?: string };
      const set = (next: { id?: string; label?: string }) =>
        onChange(
          next.id || next.label ? { ...(next.id ? { id: next.id } : { id: "" }), ...(next.label ? { label: next.label } : {}) } : undefined,
        );
      return (
        <div className="md-pair">
          <input
            aria-label={`${label}: ${t.externalId}`}
            placeholder={t.externalId}
            className={cls}
            value={e.id ?? ""}
            onChange={(ev) => set({ ...e, id: ev.target.value })}
          />
          <input
            aria-label={`${label}: ${t.externalLabel}`}
            placeholder={t.externalLabel}
            className={cls}
            value={e.label ?? ""}
            onChange={(ev) => set({ ...e, label: ev.target.value })}
          />
        </div>
      );
    }
    case "url":
      return (
        <input
          id={id}
          aria-label={label}
          type="url"
          className={cls}
          placeholder="https://"
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value || undefined)}
        />
      );
    default:
      return (
        <input
          id={id}
          aria-label={label}
          className={`${cls} mono`}
          placeholder={t.idPlaceholder}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value.trim() || undefined)}
        />
      );
  }
}
