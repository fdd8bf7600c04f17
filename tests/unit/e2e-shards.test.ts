import { describe, expect, it } from "vitest";
import { splitFiles } from "../../scripts/e2e.mjs";

describe("e2e shards (scripts/e2e.mjs)", () => {
  it("puts every file in exactly one run, the heaviest first into the lightest run", () => {
    const files = [
      { path: "a.e2e.ts", weight: 9 },
      { path: "b.e2e.ts", weight: 7 },
      { path: "c.e2e.ts", weight: 5 },
      { path: "d.e2e.ts", weight: 4 },
      { path: "e.e2e.ts", weight: 3 },
    ];
    const groups = splitFiles(files, 2);
    expect(groups).toEqual([
      ["a.e2e.ts", "d.e2e.ts"],
      ["b.e2e.ts", "c.e2e.ts", "e.e2e.ts"],
    ]);
    expect(groups.flat().sort()).toEqual(files.map((f) => f.path));
  });

  it("leaves a run empty rather than splitting a file, and keeps one run whole", () => {
    expect(splitFiles([{ path: "only.e2e.ts", weight: 1 }], 2)).toEqual([["only.e2e.ts"], []]);
    expect(splitFiles([{ path: "x.e2e.ts", weight: 2 }, { path: "y.e2e.ts", weight: 1 }], 1)).toEqual([["x.e2e.ts", "y.e2e.ts"]]);
  });
});
