import { useState } from "react";
import { formProblems } from "./field-rules";

/**
 * The app's own validation for a `noValidate` form: `check(form)` on submit shows a Russian message under each
 * control that breaks its constraints and focuses the first; `props(id)` wires a control to its message, which goes
 * as soon as the control is edited.
 * @example const fields = useFieldErrors(); … if (!fields.check(event.currentTarget)) return; … <input id="x" {...fields.props("x")} /> {fields.error("x")}
 */
export function useFieldErrors() {
  const [errors, setErrors] = useState<Record<string, string>>({});

  function check(form: HTMLFormElement): boolean {
    const problems = formProblems(form);
    setErrors(Object.fromEntries(problems));
    const first = problems[0]?.[0];
    if (first) (form.querySelector(`#${CSS.escape(first)}`) as HTMLElement | null)?.focus();
    return problems.length === 0;
  }

  function props(id: string) {
    return {
      "aria-invalid": errors[id] ? true : undefined,
      "aria-describedby": errors[id] ? `${id}-error` : undefined,
      onInput: () => setErrors((current) => (current[id] ? { ...current, [id]: "" } : current)),
    } as const;
  }

  function error(id: string) {
    return errors[id] ? (
      <div id={`${id}-error`} className="field-error" role="alert">
        {errors[id]}
      </div>
    ) : null;
  }

  return { check, props, error };
}
