import { describe, expect, it } from "vitest";
import { formatWait, retryAt } from "../../app/lib/retry-after";

const NOW = Date.UTC(2026, 10, 26, 7, 0, 0);

describe("retryAt", () => {
  it("reads delay-seconds", () => {
    expect(retryAt("42", NOW)).toBe(NOW + 42_000);
    expect(retryAt(" 0 ", NOW)).toBe(NOW);
  });

  it("reads an HTTP date, never earlier than now", () => {
    expect(retryAt("Thu, 26 Nov 2026 07:01:30 GMT", NOW)).toBe(NOW + 90_000);
    expect(retryAt("Thu, 26 Nov 2026 06:00:00 GMT", NOW)).toBe(NOW);
  });

  it("answers null without a readable header", () => {
    expect(retryAt(null, NOW)).toBeNull();
    expect(retryAt("", NOW)).toBeNull();
    expect(retryAt("soon", NOW)).toBeNull();
    expect(retryAt("-5", NOW)).toBeNull();
  });
});

describe("formatWait", () => {
  it("counts seconds under a minute, then minutes and two-digit seconds, rounding up", () => {
    expect(formatWait(42_000)).toBe("42 с");
    expect(formatWait(41_001)).toBe("42 с");
    expect(formatWait(65_000)).toBe("1 мин 05 с");
    expect(formatWait(-3)).toBe("0 с");
  });
});
