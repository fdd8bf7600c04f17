import { describe, expect, it } from "vitest";
import { npsScore, summarise } from "../../workers/services/feedback/pqi-summary";

describe("survey summary", () => {
  it("bands 9–10 as promoters, 7–8 as passives, 1–6 as detractors, and keeps refusals out of the score", () => {
    const s = summarise([
      { period: "2026-10", rating: 10, count: 3 },
      { period: "2026-10", rating: 9, count: 1 },
      { period: "2026-10", rating: 8, count: 2 },
      { period: "2026-10", rating: 7, count: 1 },
      { period: "2026-10", rating: 6, count: 1 },
      { period: "2026-10", rating: 1, count: 2 },
      { period: "2026-10", rating: 0, count: 5 },
    ]);
    expect(s).toMatchObject({ answered: 10, refused: 5, promoters: 4, passives: 3, detractors: 3, nps: 10 });
    // (30 + 9 + 16 + 7 + 6 + 2) / 10
    expect(s.average).toBe(7);
    expect(s.distribution.map((d) => d.count)).toEqual([5, 2, 0, 0, 0, 0, 1, 1, 2, 1, 3]);
  });

  it("splits the series by period, oldest first, each with its own score", () => {
    const s = summarise([
      { period: "2026-11", rating: 2, count: 1 },
      { period: "2026-09", rating: 10, count: 2 },
      { period: "2026-11", rating: 9, count: 3 },
    ]);
    expect(s.series.map((p) => [p.period, p.answered, p.nps])).toEqual([
      ["2026-09", 2, 100],
      ["2026-11", 4, 50],
    ]);
    expect(s.nps).toBe(67); // 5 promoters, 1 detractor of 6
  });

  it("has no score and no average without ratings, even with refusals", () => {
    expect(summarise([])).toMatchObject({ answered: 0, nps: null, average: null, series: [] });
    const onlyRefusals = summarise([{ period: "2026-11", rating: 0, count: 2 }]);
    expect(onlyRefusals).toMatchObject({ answered: 0, refused: 2, nps: null, average: null });
    expect(onlyRefusals.series).toEqual([expect.objectContaining({ period: "2026-11", refused: 2, nps: null })]);
  });

  it("scores from −100 to 100 and never prints −0", () => {
    expect(npsScore(0, 5, 5)).toBe(-100);
    expect(npsScore(5, 0, 5)).toBe(100);
    expect(Object.is(npsScore(1, 1, 3), 0)).toBe(true);
    expect(Object.is(npsScore(0, 1, 201), 0)).toBe(true); // −0.497… rounds to −0
  });
});
