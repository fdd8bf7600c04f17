import { ru } from "../../../../shared/i18n/ru";
import { REVIEW_STATUSES } from "../../../../shared/review-status";
import { ASSET_ACTIONS, RUNNABLE_OPERATIONS, type ActionType, type ConditionKind, type TriggerType } from "./setup";

/**
 * The form schemas the editor builds its inputs from (GET /udwf/actions and /udwf/trigger-form). A form lists the
 * fields of one action, trigger or condition as the setup contract (setup.ts) expects them; `type` tells the editor
 * which input to draw (`tag`, `group`, `field` and `template` are pickers over the catalogue).
 */

export type FormFieldType = "tag" | "group" | "field" | "template" | "text" | "number" | "url" | "select" | "boolean" | "cron";

export interface FormField {
  name: string;
  type: FormFieldType;
  label: string;
  required: boolean;
  options?: { value: string; label: string }[];
  min?: number;
  max?: number;
  default?: string | number | boolean;
  /** for `template` pickers: the operation class named by the sibling field `operation` */
  depends_on?: string;
  help?: string;
}

export interface CatalogueEntry<T extends string> {
  type: T;
  name: string;
  description: string;
  form: FormField[];
}

export interface ActionEntry extends CatalogueEntry<ActionType> {
  /** the action works on the run's file (skipped in a run without one) */
  needs_asset: boolean;
}

const label = (name: string) => ru.automations.formLabels[name] ?? name;
const options = (values: readonly string[], names: Record<string, string>) =>
  values.map((value) => ({ value, label: names[value] ?? value }));

const field = (name: string, type: FormFieldType, required: boolean, extra: Partial<FormField> = {}): FormField => ({
  name,
  type,
  label: label(name),
  required,
  ...extra,
});

const ACTION_FORMS: Record<ActionType, FormField[]> = {
  "add-tag": [field("tag_id", "tag", true)],
  "remove-tag": [field("tag_id", "tag", true)],
  "set-field": [field("field_def_id", "field", true), field("value", "text", true)],
  "move-to-group": [field("group_id", "group", true)],
  "copy-to-group": [field("group_id", "group", true)],
  "run-task": [
    field("operation", "select", true, { options: options(RUNNABLE_OPERATIONS, ru.automations.operations) }),
    field("template_id", "template", false, { depends_on: "operation" }),
    field("group_id", "group", false, { help: ru.automations.exportNeedsGroup }),
  ],
  webhook: [field("url", "url", true)],
  wait: [field("seconds", "number", true, { min: 1, max: 30 * 86_400, default: 60 })],
};

const TRIGGER_FORMS: Record<TriggerType, FormField[]> = {
  "asset.uploaded": [field("group_id", "group", false), field("include_subgroups", "boolean", false, { default: false })],
  "tag.added": [field("tag_id", "tag", false)],
  "field.changed": [field("field_def_id", "field", false)],
  "review.decided": [field("status", "select", false, { options: options(REVIEW_STATUSES, ru.reviews.statuses) })],
  schedule: [field("cron", "cron", true, { default: "0 * * * *" })],
  manual: [],
};

const CONDITION_FORMS: Record<ConditionKind, FormField[]> = {
  mimetype: [
    field("op", "select", true, { options: options(["starts-with", "is", "is-not"], ru.automations.conditionOps) }),
    field("value", "text", true, { default: "image/" }),
  ],
  size: [
    field("op", "select", true, { options: options(["gt", "gte", "lt", "lte"], ru.automations.conditionOps) }),
    field("value", "number", true, { min: 0, default: 0 }),
  ],
  group: [
    field("op", "select", true, { options: options(["in", "not-in"], ru.automations.conditionOps) }),
    field("group_id", "group", true),
    field("include_subgroups", "boolean", false, { default: true }),
  ],
  tag: [field("op", "select", true, { options: options(["has", "has-not"], ru.automations.conditionOps) }), field("tag_id", "tag", true)],
};

/** GET /udwf/actions: every action with its form. */
export function actionCatalogue(): ActionEntry[] {
  return (Object.keys(ACTION_FORMS) as ActionType[]).map((type) => ({
    type,
    name: ru.automations.actions[type],
    description: ru.automations.actionHelp[type],
    needs_asset: ASSET_ACTIONS.has(type),
    form: ACTION_FORMS[type],
  }));
}

export interface TriggerForm {
  triggers: CatalogueEntry<TriggerType>[];
  conditions: CatalogueEntry<ConditionKind>[];
}

/** GET /udwf/trigger-form: every trigger and condition with its form. */
export function triggerForm(): TriggerForm {
  return {
    triggers: (Object.keys(TRIGGER_FORMS) as TriggerType[]).map((type) => ({
      type,
      name: ru.automations.triggers[type],
      description: ru.automations.triggers[type],
      form: TRIGGER_FORMS[type],
    })),
    conditions: (Object.keys(CONDITION_FORMS) as ConditionKind[]).map((type) => ({
      type,
      name: ru.automations.conditionKinds[type],
      description: ru.automations.conditionKinds[type],
      form: CONDITION_FORMS[type],
    })),
  };
}
