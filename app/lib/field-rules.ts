import { ru } from "../i18n/ru";

const m = ru.fieldRules;

/** What `fieldProblem` reads of a form control: its value, constraints and the browser's validity flags. */
export interface CheckedField {
  value: string;
  type: string;
  required: boolean;
  minLength: number;
  maxLength: number;
  min: string;
  max: string;
  title: string;
  disabled: boolean;
  validity: Pick<ValidityState, "valueMissing" | "typeMismatch" | "badInput" | "rangeUnderflow" | "rangeOverflow" | "stepMismatch" | "patternMismatch">;
}

/**
 * The app's Russian message for a control that breaks its constraints, or null. Forms are `noValidate`, so this
 * replaces the browser's bubble. Lengths are checked here too: the browser flags `minLength` only after typing.
 */
export function fieldProblem(f: CheckedField): string | null {
  if (f.disabled) return null;
  const v = f.validity;
  if (v.badInput) return f.type === "number" ? m.number : m.pattern;
  if (v.valueMissing || (f.required && f.value.trim() === "")) return m.required;
  if (f.value === "") return null;
  if (f.minLength > 0 && f.value.length < f.minLength) return m.tooShort(f.minLength);
  if (f.maxLength > 0 && f.value.length > f.maxLength) return m.tooLong(f.maxLength);
  if (v.typeMismatch) return f.type === "email" ? m.email : f.type === "url" ? m.url : m.pattern;
  if (v.rangeUnderflow) return m.min(f.min);
  if (v.rangeOverflow) return m.max(f.max);
  if (v.stepMismatch) return m.step;
  if (v.patternMismatch) return f.title || m.pattern;
  return null;
}

/** The problems of a form's named or identified controls, keyed by id (else name), in document order. */
export function formProblems(form: HTMLFormElement): [string, string][] {
  const found: [string, string][] = [];
  for (const el of Array.from(form.elements)) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) continue;
    const key = el.id || el.name;
    if (!key) continue;
    const problem = fieldProblem({
      value: el.value,
      type: el.type,
      required: el.required,
      minLength: "minLength" in el ? el.minLength : -1,
      maxLength: "maxLength" in el ? el.maxLength : -1,
      min: el instanceof HTMLInputElement ? el.min : "",
      max: el instanceof HTMLInputElement ? el.max : "",
      title: el.title,
      disabled: el.disabled,
      validity: el.validity,
    });
    if (problem) found.push([key, problem]);
  }
  return found;
}
