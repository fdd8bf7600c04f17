import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import {
  type FieldSetup,
  type FieldType,
  parseFieldSetup,
  parseIsoDate,
  parseTimeOfDay,
} from "../../workers/services/metadata/field-types/setup";
import { checkPts, coerceImported, validateFieldValue } from "../../workers/services/metadata/field-types/validate";

const ID = "0193a1b2c3d4e5f60718293a4b5c6d7e";
const STRUCT: FieldSetup = {
  members: [
    { key: "role", name: "Роль", type: "text", required: true },
    { key: "age", name: "Возраст", type: "number" },
    { key: "site", name: "Сайт", type: "url" },
  ],
};

/** [type, setup, value, what it is stored as (or the error message)] */
const VALID: [FieldType, FieldSetup, unknown, unknown][] = [
  ["text", {}, "Иван Петров", "Иван Петров"],
  ["text", { format: "multiline" }, "строка 1\nстрока 2", "строка 1\nстрока 2"],
  ["text", { options: ["Да", "Нет"] }, "Да", "Да"],
  ["text", { max_length: 5 }, "12345", "12345"],
  ["number", {}, 42, 42],
  ["number", {}, -0.5, -0.5],
  ["number", { min: 0, max: 10, integer: true }, 10, 10],
  ["date", {}, "2026-11-22", "2026-11-22"],
  ["date", {}, "2024-02-29", "2024-02-29"],
  ["date", { format: "datetime" }, "2026-11-22T10:15:00+03:00", "2026-11-22T07:15:00.000Z"],
  ["date", { min: "2000-01-01", max: "2030-12-31" }, "2026-01-01", "2026-01-01"],
  ["time", {}, "09:30", "09:30"],
  ["time", {}, "23:59:59.5", "23:59:59.5"],
  ["asset", {}, ID, ID],
  ["group", {}, ID, ID],
  ["user", {}, ID, ID],
  ["region", {}, { x: 0.1, y: 0.2, w: 0.5, h: 0.5 }, { x: 0.1, y: 0.2, w: 0.5, h: 0.5 }],
  ["region", {}, { x: 0, y: 0, w: 1, h: 1 }, { x: 0, y: 0, w: 1, h: 1 }],
  ["struct", STRUCT, { role: "Ведущий", age: 40 }, { role: "Ведущий", age: 40 }],
  ["struct", STRUCT, { role: "Гость", site: "https://example.com" }, { role: "Гость", site: "https://example.com/" }],
  ["bool", {}, true, true],
  ["bool", {}, false, false],
  ["external", {}, "tt0111161", { id: "tt0111161" }],
  ["external", {}, { id: "Q42", label: "Дуглас Адамс" }, { id: "Q42", label: "Дуглас Адамс" }],
  ["url", {}, "https://example.com/путь?q=1", "https://example.com/%D0%BF%D1%83%D1%82%D1%8C?q=1"],
  ["url", {}, "http://localhost:8080/x", "http://localhost:8080/x"],
];

const INVALID: [FieldType, FieldSetup, unknown, string][] = [
  ["text", {}, 42, ru.metadata.textExpected],
  ["text", {}, "   ", ru.metadata.emptyText],
  ["text", {}, "две\nстроки", ru.metadata.singleLine],
  ["text", {}, "bad\u0007", ru.metadata.controlChars],
  ["text", { options: ["Да", "Нет"] }, "Может быть", ru.metadata.notAnOption],
  ["text", { max_length: 5 }, "123456", ru.metadata.tooLong(5)],
  ["text", { min_length: 3 }, "ab", ru.metadata.tooShort(3)],
  ["text", {}, null, ru.metadata.valueRequired],
  ["number", {}, "42", ru.metadata.numberExpected],
  ["number", {}, Number.NaN, ru.metadata.numberExpected],
  ["number", { integer: true }, 1.5, ru.metadata.integerExpected],
  ["number", { min: 0 }, -1, ru.metadata.belowMin("0")],
  ["number", { max: 10 }, 11, ru.metadata.aboveMax("10")],
  ["date", {}, "22.11.2026", ru.metadata.dateExpected],
  ["date", {}, "2026-02-30", ru.metadata.dateExpected],
  ["date", {}, "2026-11-22T10:15:00Z", ru.metadata.dateExpected],
  ["date", { format: "datetime" }, "2026-11-22T25:00:00Z", ru.metadata.dateTimeExpected],
  ["date", { format: "datetime" }, "2026-11-22T10:15:00", ru.metadata.dateTimeExpected],
  ["date", {}, 20261122, ru.metadata.dateExpected],
  ["date", { min: "2020-01-01" }, "2019-12-31", ru.metadata.belowMin("2020-01-01")],
  ["time", {}, "24:00", ru.metadata.timeExpected],
  ["time", {}, "9:30", ru.metadata.timeExpected],
  ["time", {}, 930, ru.metadata.timeExpected],
  ["asset", {}, "not-an-id", ru.metadata.idExpected],
  ["group", {}, ID.toUpperCase(), ru.metadata.idExpected],
  ["user", {}, 7, ru.metadata.idExpected],
  ["region", {}, { x: 0.5, y: 0.5, w: 0.6, h: 0.1 }, ru.metadata.regionBounds],
  ["region", {}, { x: -0.1, y: 0, w: 0.5, h: 0.5 }, ru.metadata.regionBounds],
  ["region", {}, { x: 0, y: 0, w: 0, h: 0.5 }, ru.metadata.regionBounds],
  ["region", {}, { x: 0, y: 0, w: 0.5 }, ru.metadata.regionExpected],
  ["region", {}, [0, 0, 1, 1], ru.metadata.regionExpected],
  ["struct", STRUCT, { age: 40 }, ru.metadata.structMissingMember("Роль")],
  ["struct", STRUCT, { role: "Ведущий", shoe: 42 }, ru.metadata.structUnknownMember("shoe")],
  ["struct", STRUCT, { role: "Ведущий", age: "сорок" }, `Возраст: ${ru.metadata.numberExpected}`],
  ["struct", STRUCT, { role: "Ведущий", site: "javascript:alert(1)" }, `Сайт: ${ru.metadata.urlScheme}`],
  ["struct", STRUCT, "Ведущий", ru.metadata.structExpected],
  ["bool", {}, "true", ru.metadata.boolExpected],
  ["bool", {}, 1, ru.metadata.boolExpected],
  ["external", {}, "", ru.metadata.externalExpected],
  ["external", {}, { id: "Q42", extra: 1 }, ru.metadata.externalExpected],
  ["url", {}, "javascript:alert(1)", ru.metadata.urlScheme],
  ["url", {}, "JavaScript:alert(1)", ru.metadata.urlScheme],
  ["url", {}, "data:text/html,<script>alert(1)</script>", ru.metadata.urlScheme],
  ["url", {}, "ftp://example.com/file", ru.metadata.urlScheme],
  ["url", {}, "/relative/path", ru.metadata.urlExpected],
  ["url", {}, "https://exa mple.com", ru.metadata.urlExpected],
];

describe("validateFieldValue", () => {
  it.each(VALID)("%s %j accepts %j", (type, setup, value, stored) => {
    const result = validateFieldValue(type, setup, value);
    expect(result).toMatchObject({ ok: true, data: stored });
  });

  it.each(INVALID)("%s %j refuses %j", (type, setup, value, message) => {
    expect(validateFieldValue(type, setup, value)).toEqual({ ok: false, message });
  });

  it("covers every field type in both tables", () => {
    const types: FieldType[] = ["text", "number", "date", "time", "asset", "region", "struct", "group", "user", "bool", "external", "url"];
    for (const type of types) {
      expect(
        VALID.some(([t]) => t === type),
        `valid ${type}`,
      ).toBe(true);
      expect(
        INVALID.some(([t]) => t === type),
        `invalid ${type}`,
      ).toBe(true);
    }
  });

  it("projects values onto the indexed columns", () => {
    expect(validateFieldValue("text", {}, "Москва")).toMatchObject({ valueText: "москва", valueNum: null });
    expect(validateFieldValue("number", {}, 3.5)).toMatchObject({ valueText: null, valueNum: 3.5 });
    expect(validateFieldValue("date", {}, "2026-01-02")).toMatchObject({ valueText: "2026-01-02", valueNum: Date.UTC(2026, 0, 2) });
    expect(validateFieldValue("time", {}, "01:02:03")).toMatchObject({ valueNum: 3723 });
    expect(validateFieldValue("bool", {}, true)).toMatchObject({ valueNum: 1 });
    expect(validateFieldValue("asset", {}, ID)).toMatchObject({ valueText: ID, refs: [{ kind: "asset", id: ID }] });
    expect(validateFieldValue("text", { list_id: ID }, "ru")).toMatchObject({ refs: [{ kind: "list", listId: ID, recId: "ru" }] });
  });
});

describe("parseFieldSetup", () => {
  it.each([
    ["text", { options: ["a"], list_id: ID }],
    ["number", { min: 5, max: 1 }],
    ["number", { minimum: 5 }],
    ["date", { format: "year" }],
    ["struct", {}],
    [
      "struct",
      {
        members: [
          { key: "a", name: "A", type: "text" },
          { key: "a", name: "B", type: "text" },
        ],
      },
    ],
    ["struct", { members: [{ key: "Bad Key", name: "A", type: "text" }] }],
    ["external", { url_template: "javascript:{id}" }],
    ["bool", { required: "yes" }],
  ] as [FieldType, unknown][])("%s refuses %j", (type, setup) => {
    const result = parseFieldSetup(type, setup);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^Некорректные настройки поля: /);
  });

  it.each([
    ["text", { required: true, multiple: true, options: ["Да"] }],
    ["number", { min: 0, max: 100, integer: true, unit: "кг" }],
    ["date", { format: "datetime", min: "2000-01-01" }],
    ["struct", STRUCT],
    ["external", { url_template: "https://www.imdb.com/title/{id}/" }],
    ["url", undefined],
  ] as [FieldType, unknown][])("%s accepts %j", (type, setup) => {
    expect(parseFieldSetup(type, setup).ok).toBe(true);
  });
});

describe("checkPts", () => {
  it.each([
    [null, null, null],
    [[0, 0], null, null],
    [[12, 47.5], 60, null],
    [[0, 60], 60, null],
    [[5, 3], null, ru.metadata.ptsOrder],
    [[-1, 3], null, ru.metadata.ptsNegative],
    [[1, 61], 60, ru.metadata.ptsBeyond(60)],
    [[1], null, ru.metadata.ptsShape],
    [[1, "2"], null, ru.metadata.ptsShape],
    ["1-2", null, ru.metadata.ptsShape],
  ] as [unknown, number | null, string | null][])("%j within %j → %j", (pts, duration, message) => {
    expect(checkPts(pts, duration)).toBe(message);
  });
});

describe("dates, times and imported values", () => {
  it("parses ISO dates strictly", () => {
    expect(parseIsoDate("2026-11-22", "date")).toEqual({ ms: Date.UTC(2026, 10, 22), text: "2026-11-22" });
    expect(parseIsoDate("2025-02-29", "date")).toBeNull();
    expect(parseIsoDate("2026-11-22T00:00:00Z", "date")).toBeNull();
    expect(parseTimeOfDay("00:00")).toBe(0);
    expect(parseTimeOfDay("12:60")).toBeNull();
  });

  it("converts EXIF and XMP values to the template's type", () => {
    expect(coerceImported("date", {}, "2026:11:22 10:15:00")).toBe("2026-11-22");
    expect(coerceImported("date", { format: "datetime" }, "2026:11:22 10:15:00")).toBe("2026-11-22T10:15:00Z");
    expect(coerceImported("number", {}, " 3.5 ")).toBe(3.5);
    expect(coerceImported("number", {}, "f/2.8")).toBeUndefined();
    expect(coerceImported("bool", {}, "True")).toBe(true);
    expect(coerceImported("text", {}, ["Первый", "Второй"])).toBe("Первый");
  });
});
