import { describe, expect, it } from "vitest";
import { fieldProblem, type CheckedField } from "../../app/lib/field-rules";

const valid = { valueMissing: false, typeMismatch: false, badInput: false, rangeUnderflow: false, rangeOverflow: false, stepMismatch: false, patternMismatch: false };

function field(over: Partial<CheckedField> & { flags?: Partial<CheckedField["validity"]> } = {}): CheckedField {
  const { flags, ...rest } = over;
  return { value: "", type: "text", required: false, minLength: -1, maxLength: -1, min: "", max: "", title: "", disabled: false, validity: { ...valid, ...flags }, ...rest };
}

describe("fieldProblem: the app's own message instead of the browser's bubble", () => {
  it("asks to fill a required field, blank or spaces only; an optional empty field is fine", () => {
    expect(fieldProblem(field({ required: true }))).toBe("Заполните это поле");
    expect(fieldProblem(field({ required: true, value: "   " }))).toBe("Заполните это поле");
    expect(fieldProblem(field({ value: "" , minLength: 8 }))).toBeNull();
  });

  it("counts lengths itself (the browser flags minLength only after typing), with Russian plurals", () => {
    expect(fieldProblem(field({ value: "abc", minLength: 8 }))).toBe("Не короче 8 символов");
    expect(fieldProblem(field({ value: "abc", minLength: 21 }))).toBe("Не короче 21 символа");
    expect(fieldProblem(field({ value: "abcdef", maxLength: 5 }))).toBe("Не длиннее 5 символов");
    expect(fieldProblem(field({ value: "abcdefgh", minLength: 8 }))).toBeNull();
  });

  it("names the kind of value expected: e-mail, number, range, whole number, pattern (its title first)", () => {
    expect(fieldProblem(field({ value: "ivan", type: "email", flags: { typeMismatch: true } }))).toMatch(/электронной почты/);
    expect(fieldProblem(field({ value: "", type: "number", flags: { badInput: true } }))).toBe("Введите число");
    expect(fieldProblem(field({ value: "-1", type: "number", min: "0", flags: { rangeUnderflow: true } }))).toBe("Не меньше 0");
    expect(fieldProblem(field({ value: "11", type: "number", max: "10", flags: { rangeOverflow: true } }))).toBe("Не больше 10");
    expect(fieldProblem(field({ value: "1.5", type: "number", flags: { stepMismatch: true } }))).toBe("Введите целое число");
    expect(fieldProblem(field({ value: "x", title: "Только латиница", flags: { patternMismatch: true } }))).toBe("Только латиница");
  });

  it("ignores a disabled control", () => {
    expect(fieldProblem(field({ required: true, disabled: true }))).toBeNull();
  });
});
