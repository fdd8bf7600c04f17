import { ru } from "../../../../shared/i18n/ru";
import { ID_PATTERN } from "../../../lib/ids";
import { type FieldSetup, type FieldType, parseIsoDate, parseTimeOfDay, type StructMemberType } from "./setup";

/** Something a value points at, checked against the database by the service (existence and read access). */
export type FieldReference = { kind: "asset" | "group" | "user"; id: string } | { kind: "list"; listId: string; recId: string };

/** A value that passed its template: what is stored and its indexed projection. */
export interface ValidValue {
  ok: true;
  data: unknown;
  /** equality-searchable text (lower-cased text, an id, a normalised date or URL); null when not indexed */
  valueText: string | null;
  /** range-searchable number (the number, epoch ms of a date, seconds of a time, 0/1); null when not indexed */
  valueNum: number | null;
  refs: FieldReference[];
}

export type ValueCheck = ValidValue | { ok: false; message: string };

/** Longest text value and the part of it that goes into the index. */
export const MAX_TEXT = 10_000;
const INDEXED_TEXT = 500;
const MAX_URL = 2048;

// Control characters other than tab and newline never belong in a value.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const fail = (message: string): ValueCheck => ({ ok: false, message });
const ok = (data: unknown, valueText: string | null, valueNum: number | null, refs: FieldReference[] = []): ValidValue => ({
  ok: true,
  data,
  valueText,
  valueNum,
  refs,
});

/** `http:` and `https:` URLs only: `javascript:`, `data:`, `file:` and relative addresses are refused. */
export function checkUrl(value: unknown): { ok: true; url: string } | { ok: false; message: string } {
  if (typeof value !== "string" || value.length === 0) return { ok: false, message: ru.metadata.urlExpected };
  if (value.length > MAX_URL) return { ok: false, message: ru.metadata.tooLong(MAX_URL) };
  if (/\s/.test(value) || CONTROL.test(value)) return { ok: false, message: ru.metadata.urlExpected };
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return { ok: false, message: ru.metadata.urlExpected };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { ok: false, message: ru.metadata.urlScheme };
  if (!parsed.hostname) return { ok: false, message: ru.metadata.urlExpected };
  return { ok: true, url: parsed.href };
}

function checkText(value: unknown, setup: FieldSetup): ValueCheck {
  if (typeof value !== "string") return fail(ru.metadata.textExpected);
  if (value.trim().length === 0) return fail(ru.metadata.emptyText);
  const max = setup.max_length ?? MAX_TEXT;
  if (value.length > max) return fail(ru.metadata.tooLong(max));
  if (setup.min_length !== undefined && value.length < setup.min_length) return fail(ru.metadata.tooShort(setup.min_length));
  if (CONTROL.test(value)) return fail(ru.metadata.controlChars);
  if (setup.format !== "multiline" && /[\n\r\t]/.test(value)) return fail(ru.metadata.singleLine);
  if (setup.options && !setup.options.includes(value)) return fail(ru.metadata.notAnOption);
  const refs: FieldReference[] = setup.list_id ? [{ kind: "list", listId: setup.list_id, recId: value }] : [];
  return ok(value, value.toLowerCase().slice(0, INDEXED_TEXT), null, refs);
}

function checkNumber(value: unknown, setup: FieldSetup): ValueCheck {
  if (typeof value !== "number" || !Number.isFinite(value)) return fail(ru.metadata.numberExpected);
  if (setup.integer && !Number.isInteger(value)) return fail(ru.metadata.integerExpected);
  if (typeof setup.min === "number" && value < setup.min) return fail(ru.metadata.belowMin(String(setup.min)));
  if (typeof setup.max === "number" && value > setup.max) return fail(ru.metadata.aboveMax(String(setup.max)));
  return ok(value, null, value);
}

function checkDate(value: unknown, setup: FieldSetup): ValueCheck {
  const format = setup.format === "datetime" ? "datetime" : "date";
  const parsed = typeof value === "string" ? parseIsoDate(value, format) : null;
  if (!parsed) return fail(format === "datetime" ? ru.metadata.dateTimeExpected : ru.metadata.dateExpected);
  const bound = (b: unknown) => (typeof b === "string" ? parseIsoDate(b, "datetime") : null);
  const min = bound(setup.min);
  const max = bound(setup.max);
  if (min && parsed.ms < min.ms) return fail(ru.metadata.belowMin(String(setup.min)));
  if (max && parsed.ms > max.ms) return fail(ru.metadata.aboveMax(String(setup.max)));
  return ok(parsed.text, parsed.text, parsed.ms);
}

function checkTime(value: unknown): ValueCheck {
  const seconds = typeof value === "string" ? parseTimeOfDay(value) : null;
  if (seconds === null) return fail(ru.metadata.timeExpected);
  return ok(value, value as string, seconds);
}

function checkReference(kind: "asset" | "group" | "user", value: unknown): ValueCheck {
  if (typeof value !== "string" || !ID_PATTERN.test(value)) return fail(ru.metadata.idExpected);
  return ok(value, value, null, [{ kind, id: value }]);
}

const REGION_KEYS = ["x", "y", "w", "h"] as const;
/** Rounding slack for x + w and y + h computed by a browser from pixel sizes. */
const REGION_EPSILON = 1e-9;

/** A rectangle of the frame in fractions of its width and height: 0 ≤ x, y; 0 < w, h; x + w ≤ 1; y + h ≤ 1. */
function checkRegion(value: unknown): ValueCheck {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(ru.metadata.regionExpected);
  const keys = Object.keys(value);
  if (keys.length !== 4 || !REGION_KEYS.every((k) => keys.includes(k))) return fail(ru.metadata.regionExpected);
  const r = value as Record<(typeof REGION_KEYS)[number], unknown>;
  if (!REGION_KEYS.every((k) => typeof r[k] === "number" && Number.isFinite(r[k]))) return fail(ru.metadata.regionExpected);
  const { x, y, w, h } = r as Record<(typeof REGION_KEYS)[number], number>;
  if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > 1 + REGION_EPSILON || y + h > 1 + REGION_EPSILON) return fail(ru.metadata.regionBounds);
  return ok({ x, y, w, h }, null, null);
}

function checkBool(value: unknown): ValueCheck {
  if (typeof value !== "boolean") return fail(ru.metadata.boolExpected);
  return ok(value, null, value ? 1 : 0);
}

/** An identifier in an external system, optionally with a label: `"tt0111161"` or `{ id, label }`. */
function checkExternal(value: unknown): ValueCheck {
  const obj = typeof value === "string" ? { id: value } : value;
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return fail(ru.metadata.externalExpected);
  const { id, label, ...rest } = obj as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return fail(ru.metadata.externalExpected);
  if (typeof id !== "string" || id.trim().length === 0 || id.length > 500 || CONTROL.test(id)) return fail(ru.metadata.externalExpected);
  if (label !== undefined && (typeof label !== "string" || label.length > 500 || CONTROL.test(label)))
    return fail(ru.metadata.externalExpected);
  return ok(label === undefined ? { id } : { id, label }, id, null);
}

function checkMember(type: StructMemberType, value: unknown): ValueCheck {
  switch (type) {
    case "text":
      return checkText(value, { format: "multiline" });
    case "number":
      return checkNumber(value, {});
    case "date":
      return checkDate(value, { format: "datetime" });
    case "time":
      return checkTime(value);
    case "bool":
      return checkBool(value);
    case "url": {
      const url = checkUrl(value);
      return url.ok ? ok(url.url, null, null) : fail(url.message);
    }
  }
}

/** An object with exactly the members of the setup: required ones present, no unknown keys, each of its type. */
function checkStruct(value: unknown, setup: FieldSetup): ValueCheck {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(ru.metadata.structExpected);
  const members = setup.members ?? [];
  const known = new Map(members.map((m) => [m.key, m]));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!known.has(key)) return fail(ru.metadata.structUnknownMember(key));
  for (const member of members) {
    const v = (value as Record<string, unknown>)[member.key];
    if (v === undefined || v === null) {
      if (member.required) return fail(ru.metadata.structMissingMember(member.name));
      continue;
    }
    const checked = checkMember(member.type, v);
    if (!checked.ok) return fail(`${member.name}: ${checked.message}`);
    out[member.key] = checked.data;
  }
  if (Object.keys(out).length === 0) return fail(ru.metadata.structEmpty);
  return ok(out, null, null);
}

/**
 * Checks one value (`field_data`) against a template's type and setup, without the database: references come back
 * in `refs` for the service to check. Never throws.
 * @example validateFieldValue("number", { min: 0 }, -1) // { ok: false, message: "значение меньше минимума 0" }
 */
export function validateFieldValue(type: FieldType, setup: FieldSetup, value: unknown): ValueCheck {
  if (value === undefined || value === null) return fail(ru.metadata.valueRequired);
  switch (type) {
    case "text":
      return checkText(value, setup);
    case "number":
      return checkNumber(value, setup);
    case "date":
      return checkDate(value, setup);
    case "time":
      return checkTime(value);
    case "asset":
    case "group":
    case "user":
      return checkReference(type, value);
    case "region":
      return checkRegion(value);
    case "struct":
      return checkStruct(value, setup);
    case "bool":
      return checkBool(value);
    case "external":
      return checkExternal(value);
    case "url": {
      const url = checkUrl(value);
      return url.ok ? ok(url.url, url.url, null) : fail(url.message);
    }
  }
}

/**
 * A time range on the media: null, or `[start, end]` seconds with 0 ≤ start ≤ end, and end ≤ duration when the
 * duration is known. Answers a message when invalid, null when fine.
 */
export function checkPts(pts: unknown, duration: number | null): string | null {
  if (pts === null || pts === undefined) return null;
  if (!Array.isArray(pts) || pts.length !== 2 || !pts.every((n) => typeof n === "number" && Number.isFinite(n)))
    return ru.metadata.ptsShape;
  const [start, end] = pts as [number, number];
  if (start < 0 || end < 0) return ru.metadata.ptsNegative;
  if (start > end) return ru.metadata.ptsOrder;
  if (duration !== null && end > duration) return ru.metadata.ptsBeyond(duration);
  return null;
}

/**
 * Turns a technical/embedded value (EXIF, XMP, IPTC as the tech-fields operation reports them) into the JSON a
 * template of `type` expects: numbers from numeric strings, booleans from "true"/"1", EXIF dates
 * (`2026:11:22 10:15:00`) into ISO. Answers undefined when nothing sensible comes out.
 */
export function coerceImported(type: FieldType, setup: FieldSetup, raw: unknown): unknown {
  const first = Array.isArray(raw) && type !== "struct" ? raw[0] : raw;
  if (first === null || first === undefined) return undefined;
  switch (type) {
    case "number": {
      const n = typeof first === "number" ? first : typeof first === "string" ? Number(first.trim()) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case "bool":
      if (typeof first === "boolean") return first;
      if (first === 1 || first === "1" || first === "true" || first === "True") return true;
      if (first === 0 || first === "0" || first === "false" || first === "False") return false;
      return undefined;
    case "date": {
      if (typeof first !== "string") return undefined;
      const exif = /^(\d{4}):(\d{2}):(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?/.exec(first.trim());
      if (exif) {
        const date = `${exif[1]}-${exif[2]}-${exif[3]}`;
        return setup.format === "datetime" && exif[4] ? `${date}T${exif[4]}:${exif[5]}:${exif[6]}Z` : date;
      }
      const trimmed = first.trim();
      return setup.format === "datetime" ? trimmed : trimmed.slice(0, 10);
    }
    case "text":
    case "url":
    case "time":
      return typeof first === "string" ? first.trim() : typeof first === "number" ? String(first) : undefined;
    default:
      return first;
  }
}
