/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), evaluated in UTC like Cloudflare's cron
 * triggers. Small on purpose: it runs in workerd with no dependency, and the schedule check only needs "is it valid"
 * and "when does it next fire".
 *
 * Supported: `*`, numbers, ranges `a-b`, steps `*\/n`, `a-b/n`, `a/n`, lists `a,b-c`, month names `JAN`–`DEC`,
 * weekday names `SUN`–`SAT` (0 and 7 are both Sunday) and the macros `@hourly`, `@daily`, `@weekly`, `@monthly`,
 * `@yearly`/`@annually`. As in Vixie cron, when both day-of-month and day-of-week are restricted a day matching
 * either fires.
 */

export interface CronSchedule {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** day-of-month was `*` (so only day-of-week restricts days) */
  anyDayOfMonth: boolean;
  /** day-of-week was `*` */
  anyDayOfWeek: boolean;
}

/** Why an expression was refused; `field` is the part at fault (0–4), absent for the whole expression. */
export class CronError extends Error {
  constructor(message: string, readonly field?: number) {
    super(message);
    this.name = "CronError";
  }
}

const FIELD_NAMES = ["минуты", "часы", "день месяца", "месяц", "день недели"] as const;

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const WEEKDAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

const BOUNDS: readonly { min: number; max: number; names?: string[]; nameBase: number }[] = [
  { min: 0, max: 59, nameBase: 0 },
  { min: 0, max: 23, nameBase: 0 },
  { min: 1, max: 31, nameBase: 0 },
  { min: 1, max: 12, names: MONTHS, nameBase: 1 },
  { min: 0, max: 7, names: WEEKDAYS, nameBase: 0 },
];

const MACROS: Record<string, string> = {
  "@hourly": "0 * * * *",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@weekly": "0 0 * * 0",
  "@monthly": "0 0 1 * *",
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
};

function parseValue(token: string, field: number): number {
  const bound = BOUNDS[field];
  const upper = token.toUpperCase();
  const named = bound.names?.indexOf(upper) ?? -1;
  if (named >= 0) return named + bound.nameBase;
  if (!/^\d{1,2}$/.test(token)) throw new CronError(`поле «${FIELD_NAMES[field]}»: «${token}» — не число`, field);
  const value = Number(token);
  if (value < bound.min || value > bound.max) {
    throw new CronError(`поле «${FIELD_NAMES[field]}»: ${value} вне диапазона ${bound.min}–${bound.max}`, field);
  }
  return value;
}

function parseField(text: string, field: number): Set<number> {
  const bound = BOUNDS[field];
  const out = new Set<number>();
  for (const part of text.split(",")) {
    if (part === "") throw new CronError(`поле «${FIELD_NAMES[field]}»: пустой элемент списка`, field);
    const [range, stepText, extra] = part.split("/");
    if (extra !== undefined) throw new CronError(`поле «${FIELD_NAMES[field]}»: лишний «/»`, field);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d{1,2}$/.test(stepText) || Number(stepText) === 0) {
        throw new CronError(`поле «${FIELD_NAMES[field]}»: шаг «${stepText}» должен быть целым числом больше нуля`, field);
      }
      step = Number(stepText);
    }
    let from: number;
    let to: number;
    if (range === "*") {
      from = bound.min;
      to = bound.max;
    } else if (range.includes("-")) {
      const [a, b, more] = range.split("-");
      if (more !== undefined || a === "" || b === "")
        throw new CronError(`поле «${FIELD_NAMES[field]}»: неверный диапазон «${range}»`, field);
      from = parseValue(a, field);
      to = parseValue(b, field);
      if (from > to) throw new CronError(`поле «${FIELD_NAMES[field]}»: начало диапазона «${range}» больше конца`, field);
    } else {
      from = parseValue(range, field);
      // `a/n` means from a to the end of the field, stepping n.
      to = stepText !== undefined ? bound.max : from;
    }
    for (let v = from; v <= to; v += step) out.add(field === 4 && v === 7 ? 0 : v);
  }
  return out;
}

/**
 * Parses an expression; throws `CronError` with a Russian message naming the field at fault.
 * @example parseCron("*\/15 9-18 * * MON-FRI")
 */
export function parseCron(expression: string): CronSchedule {
  const trimmed = expression.trim();
  const text = MACROS[trimmed.toLowerCase()] ?? trimmed;
  const fields = text.split(/\s+/);
  if (trimmed === "" || fields.length !== 5) {
    throw new CronError("нужно пять полей через пробел: минуты, часы, день месяца, месяц, день недели");
  }
  const sets = fields.map((f, i) => parseField(f, i));
  const schedule: CronSchedule = {
    minutes: sets[0],
    hours: sets[1],
    daysOfMonth: sets[2],
    months: sets[3],
    daysOfWeek: sets[4],
    anyDayOfMonth: fields[2] === "*" || fields[2] === "?",
    anyDayOfWeek: fields[4] === "*" || fields[4] === "?",
  };
  if (nextCronTime(schedule, Date.UTC(2000, 0, 1)) === null) {
    throw new CronError("выражение никогда не срабатывает (такой даты не бывает)");
  }
  return schedule;
}

function dayMatches(s: CronSchedule, date: Date): boolean {
  const dom = s.daysOfMonth.has(date.getUTCDate());
  const dow = s.daysOfWeek.has(date.getUTCDay());
  if (s.anyDayOfMonth && s.anyDayOfWeek) return true;
  if (s.anyDayOfMonth) return dow;
  if (s.anyDayOfWeek) return dom;
  return dom || dow;
}

/** How far ahead to look before deciding an expression never fires (Feb 29 repeats within 8 years). */
const HORIZON_YEARS = 9;

/**
 * The first time strictly after `after` (epoch ms) when the schedule fires, in epoch ms at a whole minute (UTC);
 * null when it never fires within nine years.
 */
export function nextCronTime(s: CronSchedule, after: number): number | null {
  const date = new Date(Math.floor(after / 60_000) * 60_000 + 60_000);
  const limit = date.getUTCFullYear() + HORIZON_YEARS;
  while (date.getUTCFullYear() <= limit) {
    if (!s.months.has(date.getUTCMonth() + 1)) {
      date.setUTCMonth(date.getUTCMonth() + 1, 1);
      date.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!dayMatches(s, date)) {
      date.setUTCDate(date.getUTCDate() + 1);
      date.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!s.hours.has(date.getUTCHours())) {
      date.setUTCHours(date.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (!s.minutes.has(date.getUTCMinutes())) {
      date.setUTCMinutes(date.getUTCMinutes() + 1, 0, 0);
      continue;
    }
    return date.getTime();
  }
  return null;
}

/** The message of a refused expression, or null when it is valid. */
export function cronProblem(expression: string): string | null {
  try {
    parseCron(expression);
    return null;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}
