import { z } from "zod";
import { ru } from "../../shared/i18n/ru";
import { AppError } from "../lib/errors";

/** Russian names of the JSON types zod reports in `invalid_type` issues. */
const TYPE_NAMES: Record<string, string> = {
  string: "строка",
  number: "число",
  int: "целое число",
  boolean: "логическое значение",
  object: "объект",
  array: "массив",
  null: "null",
};

// Validation messages in Russian, like the rest of the product: zod's Russian locale, with plainer wording for the
// two issues people meet most (a missing field, a value of the wrong type).
z.config(z.locales.ru());
z.config({
  customError: (issue) => {
    if (issue.code !== "invalid_type") return undefined;
    if (issue.input === undefined) return ru.errors.requiredField;
    return ru.errors.wrongType(TYPE_NAMES[issue.expected] ?? issue.expected);
  },
});

type Issue = z.core.$ZodIssue;

/**
 * The issue to report for a union that matched no branch (a body accepted in SPEC's form and in ours, say a bare list
 * or `{ pairs }`): the branch that got furthest into the value, so the message names a field rather than "invalid".
 */
function deepestIssue(issue: Issue): { path: PropertyKey[]; message: string } {
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const branches = issue.errors.flatMap((branch) => (branch[0] ? [deepestIssue(branch[0])] : []));
    const best = branches.reduce<{ path: PropertyKey[]; message: string } | undefined>((a, b) => (a && a.path.length >= b.path.length ? a : b), undefined);
    if (best && best.path.length > 0) return { path: [...issue.path, ...best.path], message: best.message };
  }
  return { path: issue.path, message: issue.message };
}

/** Turns the first zod issue into a message that names the field, e.g. `Поле «user»: …`. */
export function describeIssues(error: z.ZodError, target?: string): string {
  const first = error.issues[0];
  if (!first) return ru.errors.invalidInput(target ?? "");
  const issue = deepestIssue(first);
  const field = issue.path.map(String).join(".");
  if (field) return ru.errors.invalidField(field, issue.message);
  // An issue on the whole value: usually a missing or non-object body.
  return ru.errors.invalidInput(issue.message);
}

/** The OpenAPIHono `defaultHook`: every failed body, query, path or header validation becomes a 400 AppError. */
export function validationHook(result: { success: boolean; error?: unknown; target?: string }) {
  if (!result.success) {
    const error = result.error instanceof z.ZodError ? result.error : undefined;
    throw new AppError("BAD_REQUEST", error ? describeIssues(error, result.target) : ru.errors.invalidInput(""));
  }
}
