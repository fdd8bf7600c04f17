import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { cellToValue, csvCell, csvRow, decodeCsvBody, splitMulti, unguardCell, valuesToCell } from "../../workers/services/metadata/csv-format";

const bad = { number: "n", bool: "b", json: "j" };

describe("metadata CSV writing", () => {
  it("quotes cells with commas, quotes, line breaks and edge spaces (RFC 4180), and leaves plain ones bare", () => {
    expect(csvCell("просто")).toBe("просто");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('он сказал "да"')).toBe('"он сказал ""да"""');
    expect(csvCell("две\nстроки")).toBe('"две\nстроки"');
    expect(csvCell("a;b\tc")).toBe('"a;b\tc"');
    // A leading line break could start a formula in some spreadsheets: it is defused like one.
    expect(csvCell("\r\n")).toBe(`"'\r\n"`);
    expect(csvCell(" пробел")).toBe('" пробел"');
    expect(csvRow(["a", "b,c", ""])).toBe('a,"b,c",\r\n');
  });

  it("defuses formulas with an apostrophe that the import strips again", () => {
    for (const formula of ["=1+2", "+7", "-3", "@SUM(A1)", "\tx"]) {
      const written = csvCell(formula);
      expect(written.replace(/^"|"$/g, "").startsWith("'")).toBe(true);
      const [[back]] = Papa.parse<string[]>(written, { delimiter: "," }).data;
      expect(unguardCell(back)).toBe(formula);
    }
    expect(unguardCell("'обычный")).toBe("'обычный");
  });

  it("survives a round trip through papaparse for any text", () => {
    const values = ['a "b", c', "строка\r\nи ещё\nи ещё", "", " ", "=x", "''", '"', ",,,"];
    const text = csvRow(values) + csvRow(values.slice().reverse());
    const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.map(unguardCell))).toEqual([values, values.slice().reverse()]);
  });

  it("joins several values with «; » and splits them back", () => {
    expect(valuesToCell("text", ["море", "закат"])).toBe("море; закат");
    expect(splitMulti(" море ;закат;; ")).toEqual(["море", "закат"]);
    expect(valuesToCell("struct", [{ a: 1 }])).toBe('{"a":1}');
    expect(valuesToCell("bool", [true])).toBe("true");
  });

  it("reads cells as the field's type", () => {
    expect(cellToValue("number", "3,5", bad)).toEqual({ ok: true, value: 3.5 });
    expect(cellToValue("number", "три", bad)).toEqual({ ok: false, message: "n" });
    expect(cellToValue("bool", "Да", bad)).toEqual({ ok: true, value: true });
    expect(cellToValue("bool", "может", bad)).toEqual({ ok: false, message: "b" });
    expect(cellToValue("struct", "{", bad)).toEqual({ ok: false, message: "j" });
    expect(cellToValue("text", " как есть ", bad)).toEqual({ ok: true, value: " как есть " });
  });
});

describe("metadata CSV decoding", () => {
  it("reads UTF-8 with or without a BOM", () => {
    const text = "asset_id,Описание\r\n";
    expect(decodeCsvBody(new TextEncoder().encode(`\uFEFF${text}`))).toEqual({ ok: true, text, encoding: "utf-8" });
    expect(decodeCsvBody(new TextEncoder().encode(text))).toEqual({ ok: true, text, encoding: "utf-8" });
  });

  it("detects and decodes Windows-1251, refuses other bytes and binary bodies", () => {
    // «Ёлка» in Windows-1251.
    expect(decodeCsvBody(new Uint8Array([0xa8, 0xeb, 0xea, 0xe0]))).toEqual({ ok: true, text: "Ёлка", encoding: "windows-1251" });
    expect(decodeCsvBody(new Uint8Array([0x80, 0x81, 0x82, 0x83]))).toEqual({ ok: false, reason: "encoding" });
    expect(decodeCsvBody(new Uint8Array([0x61, 0x00]))).toEqual({ ok: false, reason: "binary" });
  });
});
