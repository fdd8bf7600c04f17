import { describe, expect, it } from "vitest";
import { AnchorSchema, anchorProblem, excerptOf, loginCandidates, mentionTokens } from "../../workers/services/comments/anchor";

describe("comment anchors and mentions (decision 035)", () => {
  it("keeps a region inside the picture and refuses what leaves it", () => {
    expect(AnchorSchema.safeParse({ region: { x: 0.5, y: 0.5, w: 0.5, h: 0.5 } }).success).toBe(true);
    expect(AnchorSchema.safeParse({ region: { x: 0.5, y: 0.5, w: 0.51, h: 0.1 } }).success).toBe(false);
    expect(AnchorSchema.safeParse({ region: { x: 1.01, y: 0, w: 0.1, h: 0.1 } }).success).toBe(false);
    expect(AnchorSchema.safeParse({ page: 0 }).success).toBe(false);
    expect(AnchorSchema.safeParse({ path: { kind: "arrow", points: [[0, 0], [1, 1]] } }).success).toBe(true);
    expect(AnchorSchema.safeParse({ path: { kind: "arrow", points: Array.from({ length: 501 }, () => [0, 0]) } }).success).toBe(false);
  });

  it("checks moments and pages against the media only when the measure is known", () => {
    expect(anchorProblem({ time: { start: 10 } }, { duration: 9.5, pages: null })?.field).toBe("anchor.time.start");
    expect(anchorProblem({ time: { start: 1, end: 10 } }, { duration: 9.5, pages: null })?.field).toBe("anchor.time.end");
    expect(anchorProblem({ time: { start: 1e6 } }, { duration: null, pages: null })).toBeNull();
    expect(anchorProblem({ page: 4 }, { duration: null, pages: 3 })?.field).toBe("anchor.page");
    expect(anchorProblem({ page: 3 }, { duration: null, pages: 3 })).toBeNull();
  });

  it("finds @login after a start, a space or an opening mark, never inside an address", () => {
    expect(mentionTokens("@ivan, глянь (@petr) и «@olga» — почта a@b.c")).toEqual(["ivan,", "petr)", "olga»"]);
    expect(loginCandidates("ivan,")).toEqual(["ivan,", "ivan"]);
    expect(loginCandidates("ivan")).toEqual(["ivan"]);
    expect(mentionTokens("без упоминаний")).toEqual([]);
  });

  it("quotes at most 200 characters on one line", () => {
    expect(excerptOf("a\n\nb")).toBe("a b");
    expect(excerptOf("я".repeat(300))).toHaveLength(200);
  });
});
