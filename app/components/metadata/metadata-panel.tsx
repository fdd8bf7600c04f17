import { useState } from "react";
import { DEFAULT_CLASS_ID } from "../../../workers/services/metadata/pure";
import { ru } from "../../i18n/ru";
import { ApiError } from "../../lib/api-error";
import { GuardedButton } from "../guarded-button";
import { Icon } from "../icons";
import * as api from "./api";
import { draftError, formatFieldValue, ValueInput } from "./value-input";

const t = ru.metadataAdmin;

/** One editable value of a field: an existing one (field_id) or a new one. */
interface DraftValue {
  field_id?: string;
  value: unknown;
  key: string;
}

type Drafts = Record<string, DraftValue[]>;

let draftKey = 0;
const nextKey = () => `d${++draftKey}`;

interface Props {
  assetId: string;
  classId: string | null;
  classes: api.AssetClassInfo[];
  templates: Map<string, api.FieldTemplateInfo>;
  /** the untimed values of the asset */
  values: api.FieldValueInfo[];
  onSaved: () => void;
  /** why the caller may not edit (no `update`): «Изменить» stays visible, disabled, with the reason */
  editRefused?: string | null;
}

/** Fields shown for a class: the class's templates in their order, then templates that only have values. */
function fieldsFor(cls: api.AssetClassInfo | undefined, templates: Map<string, api.FieldTemplateInfo>, values: api.FieldValueInfo[]) {
  const classDefs = (cls?.def_fields ?? []).map((id) => templates.get(id)).filter((x): x is api.FieldTemplateInfo => !!x);
  const inClass = new Set(classDefs.map((d) => d.field_def_id));
  const others = [...new Set(values.map((v) => v.def_id))]
    .filter((id) => !inClass.has(id))
    .map((id) => templates.get(id))
    .filter((x): x is api.FieldTemplateInfo => !!x);
  return { classDefs, others };
}

/**
 * The asset's metadata grouped by the fields of its class, with inline editing: the class can be changed (the form
 * then shows the new class's fields), each value is checked as it is typed with the server's own validator, and
 * 'Сохранить' applies class and values in one call, so required fields are enforced the same way as in the API.
 */
export function MetadataPanel({ assetId, classId, classes, templates, values, onSaved, editRefused = null }: Props) {
  const [editing, setEditing] = useState(false);
  const [draftClass, setDraftClass] = useState<string | null>(classId);
  const [drafts, setDrafts] = useState<Drafts>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const shownClass = classes.find((c) => c.id === (editing ? draftClass : classId));
  // A file without a class shows the default class's fields (the seeded descriptive set) while that class exists.
  const { classDefs, others } = fieldsFor(shownClass ?? classes.find((c) => c.id === DEFAULT_CLASS_ID), templates, values);
  const byDef = (defId: string) => values.filter((v) => v.def_id === defId);

  function startEditing() {
    const initial: Drafts = {};
    for (const v of values) (initial[v.def_id] ??= []).push({ field_id: v.field_id, value: v.field_data, key: nextKey() });
    setDrafts(initial);
    setDraftClass(classId);
    setServerError(null);
    setEditing(true);
  }

  const draftsOf = (defId: string): DraftValue[] => (drafts[defId]?.length ? drafts[defId] : [{ value: undefined, key: `empty-${defId}` }]);
  const setDraft = (defId: string, index: number, value: unknown) =>
    setDrafts((prev) => {
      const list = [...draftsOf(defId)];
      list[index] = { ...list[index], value };
      return { ...prev, [defId]: list };
    });

  /** Messages per draft key: client-side checks, plus 'required' for an empty required field. */
  function problems(defs: api.FieldTemplateInfo[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const tpl of defs) {
      const list = draftsOf(tpl.field_def_id);
      const filled = list.filter((d) => d.value !== undefined);
      if (shownClass && tpl.field_setup.required && filled.length === 0) out.set(list[0].key, t.requiredMissing);
      for (const d of filled) {
        const message = draftError(tpl, d.value);
        if (message) out.set(d.key, message);
      }
    }
    return out;
  }

  async function save(defs: api.FieldTemplateInfo[]) {
    if (problems(defs).size > 0) return setServerError(t.invalid);
    const keep = new Set<string>();
    const changes: { field_id?: string; def_id: string; data: unknown }[] = [];
    for (const tpl of defs) {
      for (const d of draftsOf(tpl.field_def_id)) {
        if (d.value === undefined) continue;
        if (d.field_id) keep.add(d.field_id);
        const before = d.field_id ? values.find((v) => v.field_id === d.field_id)?.field_data : undefined;
        if (!d.field_id || JSON.stringify(before) !== JSON.stringify(d.value))
          changes.push({ field_id: d.field_id, def_id: tpl.field_def_id, data: d.value });
      }
    }
    const shownDefs = new Set(defs.map((d) => d.field_def_id));
    const remove = values.filter((v) => shownDefs.has(v.def_id) && !keep.has(v.field_id)).map((v) => v.field_id);
    setBusy(true);
    setServerError(null);
    try {
      await api.applyFields(assetId, { ...(draftClass !== classId ? { asset_class: draftClass } : {}), values: changes, remove });
      setEditing(false);
      onSaved();
    } catch (error) {
      setServerError(error instanceof ApiError ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  }

  const allDefs = [...classDefs, ...others];
  const issues = editing ? problems(allDefs) : new Map<string, string>();

  const renderField = (tpl: api.FieldTemplateInfo) => {
    const required = !!shownClass && tpl.field_setup.required && classDefs.includes(tpl);
    const current = byDef(tpl.field_def_id);
    const inputId = `md-${tpl.field_def_id}`;
    return (
      <div key={tpl.field_def_id} className="md-field" data-field={tpl.field_def_name}>
        <label className="md-field-label" htmlFor={editing ? inputId : undefined}>
          {tpl.field_def_name}
          {required && (
            <span className="md-required" title={t.required}>
              {" "}
              *
            </span>
          )}
        </label>
        {!editing ? (
          <div className="md-field-value">
            {current.length === 0 ? (
              <span className={required ? "md-missing" : "md-empty"}>{required ? t.requiredMissing : t.empty}</span>
            ) : (
              current.map((v) => (
                <span key={v.field_id} className="md-value">
                  {tpl.field_type === "url" ? (
                    <a href={String(v.field_data)} target="_blank" rel="noopener noreferrer">
                      {String(v.field_data)}
                    </a>
                  ) : (
                    formatFieldValue(tpl, v.field_data)
                  )}
                </span>
              ))
            )}
          </div>
        ) : (
          <div className="md-field-edit">
            {draftsOf(tpl.field_def_id).map((d, i) => (
              <div key={d.key} className="md-edit-row">
                <ValueInput
                  id={i === 0 ? inputId : undefined}
                  template={tpl}
                  value={d.value}
                  invalid={issues.has(d.key)}
                  onChange={(value) => setDraft(tpl.field_def_id, i, value)}
                />
                {issues.has(d.key) && <span className="md-field-error">{issues.get(d.key)}</span>}
              </div>
            ))}
            {tpl.field_setup.multiple && (
              <button
                type="button"
                className="btn btn-ghost md-add-value"
                onClick={() =>
                  setDrafts((prev) => ({
                    ...prev,
                    [tpl.field_def_id]: [...draftsOf(tpl.field_def_id), { value: undefined, key: nextKey() }],
                  }))
                }
              >
                + {t.addValue}
              </button>
            )}
            {tpl.field_setup.hint && <span className="md-hint">{tpl.field_setup.hint}</span>}
          </div>
        )}
      </div>
    );
  };

  return (
    <section className="panel viewer-section md-panel" aria-label={t.panelTitle}>
      <div className="md-panel-head">
        <h2>{t.panelTitle}</h2>
        {!editing && (
          <GuardedButton className="btn btn-ghost" reason={editRefused} onClick={startEditing} data-testid="md-edit">
            <Icon name="edit" size={16} />
            {t.editFields}
          </GuardedButton>
        )}
      </div>
      <div className="md-field">
        <label className="md-field-label" htmlFor="md-class">
          {t.assetClass}
        </label>
        {editing ? (
          <select id="md-class" className="input select" value={draftClass ?? ""} onChange={(e) => setDraftClass(e.target.value || null)}>
            <option value="">{t.noClass}</option>
            {classes.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        ) : (
          <div className="md-field-value">
            {shownClass ? <span className="chip active">{shownClass.name}</span> : <span className="md-empty">{t.noClass}</span>}
          </div>
        )}
      </div>
      {!shownClass && classDefs.length === 0 && others.length === 0 && <p className="muted md-hint">{t.noClassHint}</p>}
      {classDefs.map(renderField)}
      {others.length > 0 && <h3 className="md-subhead">{t.otherFields}</h3>}
      {others.map(renderField)}
      {editing && (
        <>
          {serverError && (
            <p className="md-error" role="alert">
              {serverError}
            </p>
          )}
          <div className="md-form-actions">
            <span className="md-spacer" />
            <button type="button" className="btn btn-ghost" onClick={() => setEditing(false)}>
              {t.cancel}
            </button>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void save(allDefs)}>
              {t.applyChanges}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
