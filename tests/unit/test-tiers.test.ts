import { describe, expect, it } from "vitest";
import { clock, stagesOf, TIERS, timingTable } from "../../scripts/test-tiers.mjs";

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

  it("runs every tier, e2e last and without a second build; the small workerd tiers beside the grouped one", () => {
    const names = (TIERS as { name: string }[]).map((t) => t.name);
    expect(names).toEqual([
      "build",
      "deploy-check",
      "deps",
      "openapi",
      "unit",
      "workers",
      "workers-alone",
      "helper",
      "workers-sharded",
      "faults",
      "hostile",
      "e2e",
    ]);
    expect((TIERS as { env?: Record<string, string> }[]).at(-1)?.env).toEqual({ SKIP_BUILD: "1" });
    const stages = stagesOf(TIERS) as { main: { name: string }; beside: { name: string }[] }[];
    expect(stages.map((s) => [s.main.name, s.beside.map((t) => t.name)])).toEqual([
      ["build", []],
      ["deploy-check", []],
      ["deps", []],
      ["openapi", []],
      ["unit", []],
      ["workers", ["workers-alone", "helper"]],
      ["workers-sharded", []],
      ["faults", []],
      ["hostile", []],
      ["e2e", []],
    ]);
  });

  it("runs a beside tier alone, in its place, when the tier it goes beside is not selected", () => {
    const selected = (TIERS as { name: string }[]).filter((t) => ["unit", "helper", "hostile"].includes(t.name));
    expect((stagesOf(selected) as { main: { name: string } }[]).map((s) => s.main.name)).toEqual(["unit", "helper", "hostile"]);
  });

  it("gives the whole run's wall time as the total when tiers overlapped, and marks the overlapping ones", () => {
    const table = timingTable(
      [
        { name: "workers", ms: 600_000, ok: true, status: 0 },
        { name: "helper", ms: 60_000, ok: true, status: 0, beside: "workers" },
      ],
      601_000,
    );
    expect(table).toContain("helper     1:00  ok  (beside workers)");
    expect(table).toMatch(/total\s+10:01$/);
  });
});
