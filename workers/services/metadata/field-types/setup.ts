import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { FIELD_TYPES, type FieldType } from "./types";
import { ID_PATTERN } from "../../../lib/ids";

export { FIELD_TYPES, type FieldType };

const Id = z.string().regex(ID_PATTERN, ru.metadata.idExpected);

/** ISO date (YYYY-MM-DD) or date-time; the bounds of a date field. */
const IsoDate = z.string().refine((v) => parseIsoDate(v, "datetime") !== null, ru.metadata.dateExpected);

/** Settings every type accepts. */
const Common = {
  required: z.boolean().optional(),
  multiple: z.boolean().optional(),
  hint: z.string().max(500).optional(),
};

/** A struct member's key: a short identifier, so exported JSON stays readable. */
export const STRUCT_MEMBER_TYPES = ["text", "number", "date", "time", "bool", "url"] as const;
export type StructMemberType = (typeof STRUCT_MEMBER_TYPES)[number];

const StructMember = z.object({
  key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, ru.metadata.memberKey),
  name: z.string().trim().min(1).max(100),
  type: z.enum(STRUCT_MEMBER_TYPES),
  required: z.boolean().optional(),
});

/**
 * The `field_setup` of each type. Unknown keys are refused (a typo in a setting must not be silently ignored).
 * @example FieldSetupSchemas.number.parse({ min: 0, max: 10, integer: true })
 */
export const FieldSetupSchemas = {
  text: z
    .object({
      ...Common,
      format: z.enum(["line", "multiline"]).optional(),
      min_length: z.number().int().min(0).max(10_000).optional(),
      max_length: z.number().int().min(1).max(10_000).optional(),
      options: z.array(z.string().trim().min(1).max(200)).min(1).max(500).optional(),
      list_id: Id.optional(),
    })
    .strict()
    .refine((s) => !(s.options && s.list_id), ru.metadata.optionsOrList)
    .refine((s) => s.min_length === undefined || s.max_length === undefined || s.min_length <= s.max_length, ru.metadata.boundsOrder),
  number: z
    .object({
      ...Common,
      min: z.number().finite().optional(),
      max: z.number().finite().optional(),
      integer: z.boolean().optional(),
      unit: z.string().max(20).optional(),
    })
    .strict()
    .refine((s) => s.min === undefined || s.max === undefined || s.min <= s.max, ru.metadata.boundsOrder),
  date: z
    .object({ ...Common, format: z.enum(["date", "datetime"]).optional(), min: IsoDate.optional(), max: IsoDate.optional() })
    .strict()
    .refine(
      (s) => s.min === undefined || s.max === undefined || parseIsoDate(s.min, "datetime")!.ms <= parseIsoDate(s.max, "datetime")!.ms,
      ru.metadata.boundsOrder,
    ),
  time: z.object({ ...Common }).strict(),
  asset: z.object({ ...Common }).strict(),
  region: z.object({ ...Common }).strict(),
  struct: z
    .object({ ...Common, members: z.array(StructMember).min(1).max(50) })
    .strict()
    .refine((s) => new Set(s.members.map((m) => m.key)).size === s.members.length, ru.metadata.memberDuplicate),
  group: z.object({ ...Common }).strict(),
  user: z.object({ ...Common }).strict(),
  bool: z.object({ ...Common }).strict(),
  external: z
    .object({
      ...Common,
      url_template: z
        .string()
        .max(500)
        .refine((v) => v.includes("{id}") && /^https?:\/\//i.test(v), ru.metadata.urlTemplate)
        .optional(),
    })
    .strict(),
  url: z.object({ ...Common }).strict(),
} satisfies Record<FieldType, z.ZodType>;

export type FieldSetup = {
  required?: boolean;
  multiple?: boolean;
  hint?: string;
  format?: string;
  min_length?: number;
  max_length?: number;
  options?: string[];
  list_id?: string;
  min?: number | string;
  max?: number | string;
  integer?: boolean;
  unit?: string;
  members?: { key: string; name: string; type: StructMemberType; required?: boolean }[];
  url_template?: string;
};

/** Parses a setup for a type; answers the setup or a Russian message naming the problem. */
export function parseFieldSetup(type: FieldType, setup: unknown): { ok: true; setup: FieldSetup } | { ok: false; message: string } {
  const parsed = FieldSetupSchemas[type].safeParse(setup ?? {});
  if (parsed.success) return { ok: true, setup: parsed.data as FieldSetup };
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join(".");
  return { ok: false, message: ru.metadata.badSetup(path ? `${path}: ${issue!.message}` : issue?.message ?? "") };
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An ISO 8601 calendar date (`2026-11-22`) or, when `format` allows it, a date-time with a zone
 * (`2026-11-22T10:15:00Z`, `…+03:00`). Answers epoch milliseconds and a normalised string, or null when invalid
 * (including impossible dates such as 2026-02-30).
 */
export function parseIsoDate(value: string, format: "date" | "datetime"): { ms: number; text: string } | null {
  const d = DATE_RE.exec(value);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const ms = Date.UTC(y, m - 1, day);
    const back = new Date(ms);
    if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== day) return null;
    return { ms, text: value };
  }
  if (format !== "datetime") return null;
  const t = DATETIME_RE.exec(value);
  if (!t) return null;
  const [y, m, day, hh, mm, ss] = [1, 2, 3, 4, 5, 6].map((i) => Number(t[i] ?? 0));
  if (hh > 23 || mm > 59 || ss > 59) return null;
  const dateOnly = parseIsoDate(`${t[1]}-${t[2]}-${t[3]}`, "date");
  if (!dateOnly) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || y < 0 || m < 1 || day < 1) return null;
  return { ms, text: new Date(ms).toISOString() };
}

const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/** A time of day `HH:MM[:SS[.mmm]]` (00:00 … 23:59:59.999); answers seconds since midnight, or null. */
export function parseTimeOfDay(value: string): number | null {
  const t = TIME_RE.exec(value);
  if (!t) return null;
  const [hh, mm, ss] = [Number(t[1]), Number(t[2]), Number(t[3] ?? 0)];
  if (hh > 23 || mm > 59 || ss > 59) return null;
  return hh * 3600 + mm * 60 + ss + (t[4] ? Number(`0.${t[4]}`) : 0);
}
