import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Browsers close an unclosed block at the end of the file, so one missing «}» silently moves every later rule into
// the block above it (a merge once put half the stylesheet inside a phone-only @media). Count the braces ourselves.
function blockDepths(css: string): { final: number; lowest: number } {
  const code = css.replace(/\/\*[\s\S]*?\*\//g, "").replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  let depth = 0;
  let lowest = 0;
  for (const ch of code) {
    if (ch === "{") depth++;
    else if (ch === "}") lowest = Math.min(lowest, --depth);
  }
  return { final: depth, lowest };
}

describe("app stylesheet", () => {
  it("closes every block it opens, and closes none it did not open", () => {
    expect(blockDepths(readFileSync("app/styles/app.css", "utf8"))).toEqual({ final: 0, lowest: 0 });
  });

  it("the check sees a block left open", () => {
    expect(blockDepths("@media (max-width: 600px) { .a { color: red; }\n.b { color: blue; }").final).toBe(1);
    expect(blockDepths('.a::after { content: "}"; }').final).toBe(0);
  });
});
