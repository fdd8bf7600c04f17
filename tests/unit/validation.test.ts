import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { describeIssues, validationHook } from "../../workers/api/validation";
import { AppError } from "../../workers/lib/errors";

const Login = z.object({
  user: z.string().min(1).max(256),
  passwd: z.string().min(1),
  nested: z.object({ list: z.array(z.number()) }).optional(),
});

function issuesOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected a failure");
  return result.error;
}

describe("describeIssues", () => {
  it("names the missing field in Russian", () => {
    const message = describeIssues(issuesOf(Login, { passwd: "x" }));
    expect(message.startsWith("Поле «user»: ")).toBe(true);
    expect(message).toMatch(/[а-я]/);
  });

  it("names the first failing field only", () => {
    expect(describeIssues(issuesOf(Login, {}))).toMatch(/^Поле «user»: /);
    expect(describeIssues(issuesOf(Login, { user: "a", passwd: 5 }))).toMatch(/^Поле «passwd»: /);
  });

  it("joins nested paths with dots", () => {
    expect(describeIssues(issuesOf(Login, { user: "a", passwd: "b", nested: { list: [1, "two"] } }))).toMatch(/^Поле «nested\.list\.1»: /);
  });

  it("names the field of the union branch that got furthest (SPEC's bare list or our object)", () => {
    const Pair = z.object({ list_id: z.string(), rec_id: z.string() });
    const Pairs = z.union([z.array(Pair), z.object({ pairs: z.array(Pair) })]);
    expect(describeIssues(issuesOf(Pairs, [{ rec_id: "ru" }]))).toMatch(/^Поле «0\.list_id»: /);
    expect(describeIssues(issuesOf(Pairs, { pairs: 5 }))).toMatch(/^Поле «pairs»: /);
    expect(describeIssues(issuesOf(z.object({ body: Pairs }), { body: { pairs: [{ list_id: "a" }] } }))).toMatch(/^Поле «body\.pairs\.0\.rec_id»: /);
    expect(describeIssues(issuesOf(Pairs, "zz")).startsWith("Некорректный запрос: ")).toBe(true);
  });

  it("describes an issue on the whole value as an invalid request", () => {
    const message = describeIssues(issuesOf(Login, "not an object"));
    expect(message.startsWith("Некорректный запрос: ")).toBe(true);
  });

  it("copes with an error without issues", () => {
    expect(describeIssues(new z.ZodError([]), "json")).toBe(ru.errors.invalidInput("json"));
  });
});

describe("validationHook", () => {
  it("passes successes through", () => {
    expect(() => validationHook({ success: true })).not.toThrow();
  });

  it("throws a 400 AppError naming the field", () => {
    const error = (() => {
      try {
        validationHook({ success: false, error: issuesOf(Login, { user: "", passwd: "x" }), target: "json" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect((error as AppError).message).toMatch(/^Поле «user»: /);
  });

  it("throws a generic 400 for a non-zod failure", () => {
    expect(() => validationHook({ success: false, error: new Error("x") })).toThrow(ru.errors.invalidInput(""));
  });
});
