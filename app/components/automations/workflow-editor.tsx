import { useState } from "react";
import { describeIssues } from "../../../workers/api/validation";
import { WorkflowCreateSchema } from "../../../workers/services/automations/pure";
import { ru } from "../../i18n/ru";
import type { ActionEntry, Draft, Item, TriggerForm } from "./automations-api";
import { blankItem } from "./automations-api";
import { ItemEditor } from "./item-editor";

/** Validation messages by field path (`actions.0.url`), from the shared setup contract or from the server's 400. */
export type FieldErrors = Record<string, string>;

/** Checks a draft with the same contract the API uses; answers the message of each invalid field. */
export function validateDraft(draft: Draft): FieldErrors {
  const result = WorkflowCreateSchema.safeParse(draft);
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const path = issue.path.map(String).join(".");
    errors[path] ??= issue.message;
  }
  errors[""] = describeIssues(result.error);
  return errors;
}

function move<T>(list: T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
}

/** The editor of an automation: name, trigger, conditions and actions, each built from the catalogue's forms. */
export function WorkflowEditor({
  draft,
  onChange,
  catalogue,
  errors,
}: {
  draft: Draft;
  onChange: (d: Draft) => void;
  catalogue: { actions: ActionEntry[]; form: TriggerForm };
  errors: FieldErrors;
}) {
  const a = ru.automations;
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  const [firstAction] = catalogue.actions;
  const [firstCondition] = catalogue.form.conditions;
  const itemTools = (list: Item[], index: number, apply: (l: Item[]) => void) => (
    <div className="wf-item-tools">
      <button type="button" className="btn btn-ghost" disabled={index === 0} onClick={() => apply(move(list, index, index - 1))}>
        {a.moveUp}
      </button>
      <button
        type="button"
        className="btn btn-ghost"
        disabled={index === list.length - 1}
        onClick={() => apply(move(list, index, index + 1))}
      >
        {a.moveDown}
      </button>
      <button type="button" className="btn btn-danger-outline" onClick={() => apply(list.filter((_, i) => i !== index))}>
        {a.removeItem}
      </button>
    </div>
  );
  return (
    <div className="wf-editor">
      <section className="panel pad wf-section">
        <div className="wf-form-grid">
          <div className={`wf-field${errors.name ? " wf-field-invalid" : ""}`}>
            <label htmlFor="wf-name">{a.name}</label>
            <input
              id="wf-name"
              name="name"
              className="input"
              value={draft.name}
              maxLength={200}
              onChange={(e) => set({ name: e.target.value })}
            />
            {errors.name && <div className="wf-error">{errors.name}</div>}
          </div>
          <div className="wf-field wf-enabled">
            <label htmlFor="wf-enabled">{a.enabledLabel}</label>
            <input
              id="wf-enabled"
              type="checkbox"
              className="wf-check"
              checked={draft.enabled}
              onChange={(e) => set({ enabled: e.target.checked })}
            />
          </div>
        </div>
        <div className="wf-field">
          <label htmlFor="wf-description">{a.description}</label>
          <textarea
            id="wf-description"
            className="input textarea"
            rows={2}
            value={draft.description}
            maxLength={2000}
            onChange={(e) => set({ description: e.target.value })}
          />
        </div>
      </section>

      <section className="panel pad wf-section" data-section="trigger">
        <h2 className="wf-section-title">{a.trigger}</h2>
        <ItemEditor
          kinds={catalogue.form.triggers}
          discriminator="type"
          item={draft.trigger}
          path="trigger"
          errors={errors}
          onChange={(trigger) => set({ trigger })}
        />
      </section>

      <section className="panel pad wf-section" data-section="conditions">
        <h2 className="wf-section-title">{a.conditions}</h2>
        {draft.conditions.length === 0 && <div className="muted">{a.noConditions}</div>}
        {draft.conditions.map((c, i) => (
          <ItemEditor
            key={i}
            kinds={catalogue.form.conditions}
            discriminator="kind"
            item={c}
            path={`conditions.${i}`}
            errors={errors}
            onChange={(next) => set({ conditions: draft.conditions.map((x, j) => (j === i ? next : x)) })}
            toolbar={itemTools(draft.conditions, i, (conditions) => set({ conditions }))}
          />
        ))}
        {firstCondition && (
          <button
            type="button"
            className="btn btn-ghost wf-add"
            onClick={() => set({ conditions: [...draft.conditions, blankItem("kind", firstCondition.type, firstCondition.form)] })}
          >
            + {a.addCondition}
          </button>
        )}
      </section>

      <section className="panel pad wf-section" data-section="actions">
        <h2 className="wf-section-title">{a.actionsTitle}</h2>
        {errors.actions && <div className="wf-error">{errors.actions}</div>}
        {draft.actions.map((act, i) => (
          <div key={i} className="wf-step">
            <span className="wf-step-num">{i + 1}</span>
            <ItemEditor
              kinds={catalogue.actions}
              discriminator="type"
              item={act}
              path={`actions.${i}`}
              errors={errors}
              onChange={(next) => set({ actions: draft.actions.map((x, j) => (j === i ? next : x)) })}
              toolbar={itemTools(draft.actions, i, (actions) => set({ actions }))}
            />
          </div>
        ))}
        {firstAction && (
          <button
            type="button"
            className="btn btn-ghost wf-add"
            onClick={() => set({ actions: [...draft.actions, blankItem("type", firstAction.type, firstAction.form)] })}
          >
            + {a.addAction}
          </button>
        )}
      </section>
    </div>
  );
}
