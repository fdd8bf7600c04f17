/**
 * The pure side of metadata CSV (decision record 009, «CSV in and out»): writing RFC 4180 cells and rows, turning
 * stored values into cells and cells back into values of a field's type, and decoding an uploaded body (UTF-8 with or
 * without a BOM; Windows-1251, which Russian Excel writes, detected and decoded). Parsing itself is papaparse's.
 */
import type { FieldType } from "./field-types/types";

/** The byte-order mark that makes Excel read the export as UTF-8. */
export const CSV_BOM = "\uFEFF";

/** Columns every export starts with; the rest are field names. */
export const FIXED_COLUMNS = ["asset_id", "name", "path"] as const;

/** Separator of the values of a multi-valued field inside one cell. */
export const MULTI_SEPARATOR = ";";

/**
 * Characters that make a spreadsheet treat a cell as a formula («CSV injection»). Such a cell is written with a
 * leading apostrophe, which spreadsheets hide, and the importer strips it again, so values survive a round trip.
 */
const FORMULA_START = new Set(["=", "+", "-", "@", "\t", "\r"]);

/**
 * One cell as RFC 4180 wants it: quoted when it holds a comma, a quote, a line break or edge spaces — and a semicolon
 * or a tab too, so the importer's delimiter guess (Russian Excel uses «;») never mistakes a value for a separator.
 */
export function csvCell(value: string): string {
  const safe = value.length > 0 && FORMULA_START.has(value[0]) ? `'${value}` : value;
  const needsQuotes = /[",;\t\r\n]/.test(safe) || safe !== safe.trim();
  return needsQuotes ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One record with its CRLF line end (RFC 4180). */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

/** The inverse of the formula guard: one apostrophe before a formula character is dropped. */
export function unguardCell(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && FORMULA_START.has(cell[1]) ? cell.slice(1) : cell;
}

/** A stored value as cell text: structured types as JSON, booleans as true/false, the rest as their string. */
export function valueToCell(type: FieldType, data: unknown): string {
  if (data === null || data === undefined) return "";
  if (type === "struct" || type === "region" || typeof data === "object") return JSON.stringify(data);
  return String(data);
}

/** The values of one field on one file as a cell: several values joined by «; ». */
export function valuesToCell(type: FieldType, values: readonly unknown[]): string {
  return values.map((v) => valueToCell(type, v)).join(`${MULTI_SEPARATOR} `);
}

export type CellValue = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * A cell's text as the value the field's validator then checks: numbers and booleans are parsed, structured types
 * read as JSON, the rest stay text. `bad` is the Russian reason when the text cannot be that type at all.
 */
export function cellToValue(type: FieldType, text: string, bad: { number: string; bool: string; json: string }): CellValue {
  const t = text.trim();
  switch (type) {
    case "number": {
      const n = Number(t.replace(",", "."));
      return t !== "" && Number.isFinite(n) ? { ok: true, value: n } : { ok: false, message: bad.number };
    }
    case "bool": {
      const v = t.toLowerCase();
      if (v === "true" || v === "да" || v === "1") return { ok: true, value: true };
      if (v === "false" || v === "нет" || v === "0") return { ok: true, value: false };
      return { ok: false, message: bad.bool };
    }
    case "struct":
    case "region":
      try {
        return { ok: true, value: JSON.parse(t) as unknown };
      } catch {
        return { ok: false, message: bad.json };
      }
    default:
      return { ok: true, value: type === "text" ? text : t };
  }
}

/** The cell of a multi-valued field split into its values (empty pieces dropped). */
export function splitMulti(text: string): string[] {
  return text
    .split(MULTI_SEPARATOR)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Windows-1251 bytes 0x80–0xFF as characters (0x98 is unassigned). */
const CP1251_HIGH =
  "\u0402\u0403\u201a\u0453\u201e\u2026\u2020\u2021\u20ac\u2030\u0409\u2039\u040a\u040c\u040b\u040f\u0452\u2018\u2019\u201c\u201d\u2022\u2013\u2014\ufffd\u2122\u0459\u203a\u045a\u045c\u045b\u045f\u00a0\u040e\u045e\u0408\u00a4\u0490\u00a6\u00a7\u0401\u00a9\u0404\u00ab\u00ac\u00ad\u00ae\u0407\u00b0\u00b1\u0406\u0456\u0491\u00b5\u00b6\u00b7\u0451\u2116\u0454\u00bb\u0458\u0405\u0455\u0457\u0410\u0411\u0412\u0413\u0414\u0415\u0416\u0417\u0418\u0419\u041a\u041b\u041c\u041d\u041e\u041f\u0420\u0421\u0422\u0423\u0424\u0425\u0426\u0427\u0428\u0429\u042a\u042b\u042c\u042d\u042e\u042f\u0430\u0431\u0432\u0433\u0434\u0435\u0436\u0437\u0438\u0439\u043a\u043b\u043c\u043d\u043e\u043f\u0440\u0441\u0442\u0443\u0444\u0445\u0446\u0447\u0448\u0449\u044a\u044b\u044c\u044d\u044e\u044f";

function decodeCp1251(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 8192) {
    let chunk = "";
    for (const b of bytes.subarray(i, i + 8192)) chunk += b < 0x80 ? String.fromCharCode(b) : CP1251_HIGH[b - 0x80];
    parts.push(chunk);
  }
  return parts.join("");
}

export type DecodedBody = { ok: true; text: string; encoding: "utf-8" | "windows-1251" } | { ok: false; reason: "binary" | "encoding" };

/**
 * The body as text. Valid UTF-8 (a BOM is dropped) is UTF-8. Otherwise, when most bytes above 0x7F are Windows-1251
 * letters (0xC0–0xFF, Ё, ё) — what Russian Excel's «CSV (разделители — запятые)» writes — it is decoded as
 * Windows-1251; anything else, and any body with a NUL byte, is refused.
 */
export function decodeCsvBody(bytes: Uint8Array): DecodedBody {
  if (bytes.includes(0)) return { ok: false, reason: "binary" };
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    return { ok: true, text, encoding: "utf-8" };
  } catch {
    let high = 0;
    let letters = 0;
    for (const b of bytes) {
      if (b < 0x80) continue;
      high++;
      if (b >= 0xc0 || b === 0xa8 || b === 0xb8) letters++;
    }
    if (high > 0 && letters / high >= 0.8) return { ok: true, text: decodeCp1251(bytes), encoding: "windows-1251" };
    return { ok: false, reason: "encoding" };
  }
}
