import { describe, expect, it } from "vitest";
import { CronError, cronProblem, nextCronTime, parseCron } from "../../workers/services/automations/udwf/cron";

const at = (iso: string) => Date.parse(iso);
const next = (expr: string, after: string) => {
  const t = nextCronTime(parseCron(expr), at(after));
  return t === null ? null : new Date(t).toISOString();
};

describe("parseCron", () => {
  it("expands lists, ranges, steps and names", () => {
    const s = parseCron("*/15 9-17/4 1,15 JAN-MAR mon-fri");
    expect([...s.minutes]).toEqual([0, 15, 30, 45]);
    expect([...s.hours]).toEqual([9, 13, 17]);
    expect([...s.daysOfMonth]).toEqual([1, 15]);
    expect([...s.months]).toEqual([1, 2, 3]);
    expect([...s.daysOfWeek]).toEqual([1, 2, 3, 4, 5]);
    expect(s.anyDayOfMonth).toBe(false);
    expect(s.anyDayOfWeek).toBe(false);
  });

  it("treats 7 as Sunday and `a/n` as a range to the end of the field", () => {
    expect([...parseCron("0 0 * * 7").daysOfWeek]).toEqual([0]);
    expect([...parseCron("5/20 * * * *").minutes]).toEqual([5, 25, 45]);
  });

  it("accepts the macros", () => {
    expect([...parseCron("@hourly").minutes]).toEqual([0]);
    expect([...parseCron("@daily").hours]).toEqual([0]);
    expect([...parseCron("@weekly").daysOfWeek]).toEqual([0]);
  });

  it.each([
    ["", undefined],
    ["* * * *", undefined],
    ["* * * * * *", undefined],
    ["60 * * * *", 0],
    ["* 24 * * *", 1],
    ["* * 0 * *", 2],
    ["* * 32 * *", 2],
    ["* * * 13 *", 3],
    ["* * * * 8", 4],
    ["*/0 * * * *", 0],
    ["5-1 * * * *", 0],
    ["a * * * *", 0],
    ["1,,2 * * * *", 0],
    ["1-2-3 * * * *", 0],
    ["*/5/2 * * * *", 0],
    ["-1 * * * *", 0],
  ])("refuses %j (field %s)", (expr, field) => {
    expect(() => parseCron(expr)).toThrow(CronError);
    try {
      parseCron(expr);
    } catch (e) {
      expect((e as CronError).field).toBe(field);
    }
  });

  it("refuses an expression that never fires", () => {
    expect(cronProblem("0 0 30 2 *")).toMatch(/никогда/);
    expect(cronProblem("0 0 31 4 *")).toMatch(/никогда/);
    expect(cronProblem("0 0 29 2 *")).toBeNull();
  });

  it("names the field in the message", () => {
    expect(cronProblem("0 25 * * *")).toContain("часы");
    expect(cronProblem("*/5 * * * *")).toBeNull();
  });
});

describe("nextCronTime", () => {
  it("is strictly after the given time, at a whole minute", () => {
    expect(next("* * * * *", "2026-11-22T10:15:00.000Z")).toBe("2026-11-22T10:16:00.000Z");
    expect(next("* * * * *", "2026-11-22T10:15:30.500Z")).toBe("2026-11-22T10:16:00.000Z");
  });

  it("finds the next step, hour, day, month and year", () => {
    expect(next("*/15 * * * *", "2026-11-22T10:15:00Z")).toBe("2026-11-22T10:30:00.000Z");
    expect(next("0 9 * * *", "2026-11-22T10:00:00Z")).toBe("2026-11-23T09:00:00.000Z");
    expect(next("30 2 1 * *", "2026-11-22T10:00:00Z")).toBe("2026-12-01T02:30:00.000Z");
    expect(next("0 0 1 1 *", "2026-11-22T10:00:00Z")).toBe("2027-01-01T00:00:00.000Z");
    expect(next("59 23 31 12 *", "2026-12-31T23:59:00Z")).toBe("2027-12-31T23:59:00.000Z");
  });

  it("skips months without the day", () => {
    expect(next("0 0 31 * *", "2026-04-01T00:00:00Z")).toBe("2026-05-31T00:00:00.000Z");
    expect(next("0 12 29 2 *", "2026-03-01T00:00:00Z")).toBe("2028-02-29T12:00:00.000Z");
  });

  it("uses day-of-week alone when day-of-month is *", () => {
    // 2026-11-22 is a Sunday.
    expect(next("0 8 * * MON", "2026-11-22T10:00:00Z")).toBe("2026-11-23T08:00:00.000Z");
    expect(next("0 8 * * 0", "2026-11-22T07:00:00Z")).toBe("2026-11-22T08:00:00.000Z");
  });

  it("fires on either day when both day fields are restricted (Vixie cron)", () => {
    // The 25th (a Wednesday) or any Monday: Monday the 23rd comes first.
    expect(next("0 0 25 * 1", "2026-11-22T10:00:00Z")).toBe("2026-11-23T00:00:00.000Z");
    expect(next("0 0 25 * 1", "2026-11-23T10:00:00Z")).toBe("2026-11-25T00:00:00.000Z");
  });

  it("agrees with a minute-by-minute scan", () => {
    const exprs = ["*/7 */5 * * *", "15 3,15 1-10 * TUE", "0 0 * 2 SAT,SUN", "45 23 L * *".replace("L", "28-31")];
    for (const expr of exprs) {
      const s = parseCron(expr);
      let t = at("2026-01-30T22:00:00Z");
      for (let i = 0; i < 20; i++) {
        const fast = nextCronTime(s, t)!;
        let slow = Math.floor(t / 60_000) * 60_000 + 60_000;
        for (;;) {
          const d = new Date(slow);
          const domOk = s.daysOfMonth.has(d.getUTCDate());
          const dowOk = s.daysOfWeek.has(d.getUTCDay());
          const dayOk = s.anyDayOfMonth && s.anyDayOfWeek ? true : s.anyDayOfMonth ? dowOk : s.anyDayOfWeek ? domOk : domOk || dowOk;
          if (s.minutes.has(d.getUTCMinutes()) && s.hours.has(d.getUTCHours()) && s.months.has(d.getUTCMonth() + 1) && dayOk) break;
          slow += 60_000;
        }
        expect(new Date(fast).toISOString(), expr).toBe(new Date(slow).toISOString());
        t = fast;
      }
    }
  });
});
