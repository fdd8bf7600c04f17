import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { ApiError } from "../../lib/api-error";
import {
  FIELD_TYPES,
  type FieldType,
  STRUCT_MEMBER_TYPES,
  type FieldSetup,
  type StructMemberType,
} from "../../../workers/services/metadata/pure";
import * as api from "./api";
import { useFieldErrors } from "../../lib/use-field-errors";

type FieldErrors = ReturnType<typeof useFieldErrors>;

const t = ru.metadataAdmin;

type Member = { key: string; name: string; type: StructMemberType; required?: boolean };

/** Draft of the form: strings for the inputs, converted to the API's setup on submit. */
interface Draft {
  name: string;
  type: FieldType;
  priority: string;
  extsys: string;
  extsysKey: string;
  required: boolean;
  multiple: boolean;
  hint: string;
  format: string;
  minLength: string;
  maxLength: string;
  options: string;
  listId: string;
  min: string;
  max: string;
  integer: boolean;
  unit: string;
  members: Member[];
  urlTemplate: string;
}

function toDraft(tpl: api.FieldTemplateInfo | null): Draft {
  const s = (tpl?.field_setup ?? {}) as FieldSetup;
  const str = (v: unknown) => (v === undefined || v === null ? "" : String(v));
  return {
    name: tpl?.field_def_name ?? "",
    type: tpl?.field_type ?? "text",
    priority: str(tpl?.field_priority ?? 0),
    extsys: tpl?.field_def_extsys ?? "",
    extsysKey: tpl?.field_def_extsys_key ?? "",
    required: s.required ?? false,
    multiple: s.multiple ?? false,
    hint: s.hint ?? "",
    format: s.format ?? "",
    minLength: str(s.min_length),
    maxLength: str(s.max_length),
    options: (s.options ?? []).join("\n"),
    listId: s.list_id ?? "",
    min: str(s.min),
    max: str(s.max),
    integer: s.integer ?? false,
    unit: s.unit ?? "",
    members: s.members ?? [],
    urlTemplate: s.url_template ?? "",
  };
}

/** The setup of the draft's type: only the settings that type knows, empty inputs left out. */
function toSetup(d: Draft): Record<string, unknown> {
  const setup: Record<string, unknown> = {};
  const num = (v: string) => (v.trim() === "" ? undefined : Number(v));
  if (d.required) setup.required = true;
  if (d.multiple) setup.multiple = true;
  if (d.hint.trim()) setup.hint = d.hint.trim();
  const put = (key: string, value: unknown) => value !== undefined && value !== "" && (setup[key] = value);
  switch (d.type) {
    case "text": {
      put("format", d.format || undefined);
      put("min_length", num(d.minLength));
      put("max_length", num(d.maxLength));
      const options = d.options
        .split("\n")
        .map((o) => o.trim())
        .filter(Boolean);
      if (options.length) setup.options = options;
      put("list_id", d.listId || undefined);
      break;
    }
    case "number":
      put("min", num(d.min));
      put("max", num(d.max));
      if (d.integer) setup.integer = true;
      put("unit", d.unit.trim() || undefined);
      break;
    case "date":
      put("format", d.format || undefined);
      put("min", d.min || undefined);
      put("max", d.max || undefined);
      break;
    case "struct":
      setup.members = d.members.map((m) => ({
        key: m.key.trim(),
        name: m.name.trim(),
        type: m.type,
        ...(m.required ? { required: true } : {}),
      }));
      break;
    case "external":
      put("url_template", d.urlTemplate.trim() || undefined);
      break;
  }
  return setup;
}

function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="md-check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      {label}
    </label>
  );
}

function Text({
  label,
  value,
  onChange,
  hint,
  type = "text",
  wide,
  fields,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  hint?: string;
  type?: string;
  wide?: boolean;
  fields: FieldErrors;
}) {
  const id = `tf-${label}`;
  return (
    <div className={`field${wide ? " md-wide" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        type={type}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...fields.props(id)}
      />
      {fields.error(id)}
      {hint && <span className="md-hint">{hint}</span>}
    </div>
  );
}

/** Create or edit a field template; the settings adapt to the chosen type. */
export function TemplateForm({
  template,
  onSaved,
  onDelete,
}: {
  template: api.FieldTemplateInfo | null;
  onSaved: (t: api.FieldTemplateInfo) => void;
  onDelete?: () => void;
}) {
  const [d, setD] = useState<Draft>(() => toDraft(template));
  const [lists, setLists] = useState<api.ListInfo[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = useFieldErrors();
  useEffect(() => void api.lists().then(setLists, () => undefined), []);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setD((prev) => ({ ...prev, [key]: value }));

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!fields.check(event.currentTarget)) return;
    setBusy(true);
    setError(null);
    const input: api.TemplateInput = {
      field_def_name: d.name,
      field_type: d.type,
      field_priority: Number(d.priority) || 0,
      field_def_extsys: d.extsys.trim() || null,
      field_def_extsys_key: d.extsysKey.trim() || null,
      field_setup: toSetup(d),
    };
    try {
      onSaved(template ? await api.changeTemplate(template.field_def_id, input) : await api.createTemplate(input));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="panel md-form" onSubmit={submit} noValidate aria-label={template ? t.editTemplate : t.newTemplate}>
      <div className="md-form-grid">
        <Text fields={fields} label={t.name} value={d.name} onChange={(v) => set("name", v)} wide />
        <div className="field">
          <label htmlFor="tf-type">{t.type}</label>
          <select id="tf-type" className="input select" value={d.type} onChange={(e) => set("type", e.target.value as FieldType)}>
            {FIELD_TYPES.map((type) => (
              <option key={type} value={type}>
                {t.types[type]}
              </option>
            ))}
          </select>
        </div>
        <Text fields={fields} label={t.priority} value={d.priority} onChange={(v) => set("priority", v)} type="number" hint={t.priorityHint} />
        <Text fields={fields} label={t.extsys} value={d.extsys} onChange={(v) => set("extsys", v)} />
        <Text fields={fields} label={t.extsysKey} value={d.extsysKey} onChange={(v) => set("extsysKey", v)} hint={t.extsysKeyHint} />
      </div>

      <h3 className="md-subhead">{t.flags}</h3>
      <div className="md-checks">
        <Check label={t.required} checked={d.required} onChange={(v) => set("required", v)} />
        <Check label={t.multiple} checked={d.multiple} onChange={(v) => set("multiple", v)} />
      </div>
      <Text fields={fields} label={t.hint} value={d.hint} onChange={(v) => set("hint", v)} wide />

      <h3 className="md-subhead">{t.types[d.type]}</h3>
      {d.type === "text" && (
        <div className="md-form-grid">
          <div className="field">
            <label htmlFor="tf-format">{t.format}</label>
            <select id="tf-format" className="input select" value={d.format} onChange={(e) => set("format", e.target.value)}>
              <option value="">{t.formatLine}</option>
              <option value="multiline">{t.formatMultiline}</option>
            </select>
          </div>
          <Text fields={fields} label={t.minLength} value={d.minLength} onChange={(v) => set("minLength", v)} type="number" />
          <Text fields={fields} label={t.maxLength} value={d.maxLength} onChange={(v) => set("maxLength", v)} type="number" />
          <div className="field">
            <label htmlFor="tf-list">{t.listSource}</label>
            <select id="tf-list" className="input select" value={d.listId} onChange={(e) => set("listId", e.target.value)}>
              <option value="">{t.noList}</option>
              {lists.map((l) => (
                <option key={l.list_id} value={l.list_id}>
                  {l.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field md-wide">
            <label htmlFor="tf-options">{t.options}</label>
            <textarea
              id="tf-options"
              className="input textarea"
              rows={4}
              value={d.options}
              onChange={(e) => set("options", e.target.value)}
            />
            <span className="md-hint">{t.optionsHint}</span>
          </div>
        </div>
      )}
      {d.type === "number" && (
        <div className="md-form-grid">
          <Text fields={fields} label={t.min} value={d.min} onChange={(v) => set("min", v)} type="number" />
          <Text fields={fields} label={t.max} value={d.max} onChange={(v) => set("max", v)} type="number" />
          <Text fields={fields} label={t.unit} value={d.unit} onChange={(v) => set("unit", v)} />
          <div className="field md-check-field">
            <Check label={t.integer} checked={d.integer} onChange={(v) => set("integer", v)} />
          </div>
        </div>
      )}
      {d.type === "date" && (
        <div className="md-form-grid">
          <div className="field">
            <label htmlFor="tf-dformat">{t.format}</label>
            <select id="tf-dformat" className="input select" value={d.format} onChange={(e) => set("format", e.target.value)}>
              <option value="">{t.formatDate}</option>
              <option value="datetime">{t.formatDateTime}</option>
            </select>
          </div>
          <Text fields={fields} label={t.min} value={d.min} onChange={(v) => set("min", v)} type="date" />
          <Text fields={fields} label={t.max} value={d.max} onChange={(v) => set("max", v)} type="date" />
        </div>
      )}
      {d.type === "struct" && (
        <div className="md-members">
          {d.members.map((m, i) => {
            const update = (patch: Partial<Member>) =>
              set(
                "members",
                d.members.map((x, j) => (j === i ? { ...x, ...patch } : x)),
              );
            return (
              <div key={i} className="md-member-row">
                <input
                  className="input mono"
                  aria-label={t.memberKey}
                  placeholder={t.memberKey}
                  value={m.key}
                  onChange={(e) => update({ key: e.target.value })}
                />
                <input
                  className="input"
                  aria-label={t.memberName}
                  placeholder={t.memberName}
                  value={m.name}
                  onChange={(e) => update({ name: e.target.value })}
                />
                <select
                  className="input select"
                  aria-label={t.memberType}
                  value={m.type}
                  onChange={(e) => update({ type: e.target.value as StructMemberType })}
                >
                  {STRUCT_MEMBER_TYPES.map((type) => (
                    <option key={type} value={type}>
                      {t.types[type]}
                    </option>
                  ))}
                </select>
                <Check label={t.required} checked={m.required ?? false} onChange={(v) => update({ required: v })} />
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={t.delete}
                  onClick={() =>
                    set(
                      "members",
                      d.members.filter((_, j) => j !== i),
                    )
                  }
                >
                  ×
                </button>
              </div>
            );
          })}
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => set("members", [...d.members, { key: "", name: "", type: "text" }])}
          >
            + {t.addMember}
          </button>
        </div>
      )}
      {d.type === "external" && (
        <Text fields={fields} label={t.urlTemplate} value={d.urlTemplate} onChange={(v) => set("urlTemplate", v)} hint={t.urlTemplateHint} wide />
      )}
      {!["text", "number", "date", "struct", "external"].includes(d.type) && <p className="muted">{t.noSettings}</p>}

      {error && (
        <p className="md-error" role="alert">
          {error}
        </p>
      )}
      <div className="md-form-actions">
        {onDelete && (
          <button type="button" className="btn btn-danger-outline" onClick={onDelete}>
            {t.delete}
          </button>
        )}
        <span className="md-spacer" />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {template ? t.save : t.create}
        </button>
      </div>
    </form>
  );
}
