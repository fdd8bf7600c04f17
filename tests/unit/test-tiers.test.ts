import { describe, expect, it } from "vitest";
import { clock, TIERS, timingTable } from "../../scripts/test-tiers.mjs";

describe("npm test tier runner (scripts/test-tiers.mjs)", () => {
  it("prints each tier's wall time and the total, and names a failed tier", () => {
    const table = timingTable([
      { name: "unit", ms: 4_200, ok: true, status: 0 },
      { name: "workers", ms: 754_000, ok: false, status: 1 },
    ]);
    expect(table).toContain("unit       0:04  ok");
    expect(table).toContain("workers   12:34  FAILED (exit 1)");
    expect(table).toMatch(/total\s+12:38$/);
  });

  it("formats minutes and seconds", () => {
    expect(clock(0)).toBe("0:00");
    expect(clock(59_600)).toBe("1:00");
    expect(clock(2_730_000)).toBe("45:30");
  });

  it("runs every tier npm test ran before, e2e last and without a second build", () => {
    const names = (TIERS as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(["build", "deploy-check", "deps", "openapi", "unit", "workers", "faults", "hostile", "helper", "e2e"]);
    expect((TIERS as { env?: Record<string, string> }[]).at(-1)?.env).toEqual({ SKIP_BUILD: "1" });
  });
});
