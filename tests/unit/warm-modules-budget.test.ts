import { describe, expect, it } from "vitest";
import { WARM_REPLY_BUDGET, trimWarmModules } from "../setup/warm-modules-budget";

/** The integration tier's bound on the one «warm modules» message a test worker gets over workerd's WebSocket. */

const MIB = 1024 * 1024;

describe("warm-modules reply budget", () => {
  it("keeps the smallest modules up to the budget; a module under its url and its id is kept or dropped as one", () => {
    const small = { cached: true, tmp: "/t/small", url: "/a.ts", id: "/w/a.ts" };
    const mid = { cached: true, tmp: "/t/mid", url: "/b.ts", id: "/w/b.ts" };
    const huge = { cached: true, tmp: "/t/huge", url: "/pdf.mjs", id: "/w/pdf.mjs" };
    const external = { externalize: "/w/ext.mjs", type: "module" };
    const sizes: Record<string, number> = { "/t/small": 1 * MIB, "/t/mid": 3 * MIB, "/t/huge": 7 * MIB };
    const { kept, keptBytes, dropped } = trimWarmModules(
      { "/pdf.mjs": huge, "/w/pdf.mjs": huge, "/a.ts": small, "/w/a.ts": small, "/b.ts": mid, "/w/b.ts": mid, "/ext.mjs": external },
      5 * MIB,
      (path) => sizes[path],
    );
    expect(Object.keys(kept).sort()).toEqual(["/a.ts", "/b.ts", "/ext.mjs", "/w/a.ts", "/w/b.ts"]);
    expect(keptBytes).toBe(4 * MIB);
    expect(dropped).toBe(1);
  });

  it("a graph like the measured one (a 34 MiB message with mediabunny: workerd closed the socket with 1009) fits after the cut", () => {
    // The largest transformed modules of one worker's reply on the three-file repro, and ~820 small ones.
    const modules: Record<string, unknown> = {};
    const sizes: Record<string, number> = {};
    const add = (name: string, bytes: number) => {
      sizes[`/t/${name}`] = bytes;
      modules[`/${name}`] = { cached: true, tmp: `/t/${name}` };
    };
    add("pdfjs.mjs", 6_962 * 1024);
    add("vendor.js", 3_854 * 1024);
    add("server-build.js", 3_230 * 1024);
    add("mediabunny.mjs", 2_812 * 1024);
    for (let i = 0; i < 820; i++) add(`m${i}.js`, 16 * 1024);
    const { keptBytes, dropped } = trimWarmModules(modules, WARM_REPLY_BUDGET, (path) => sizes[path]);
    expect(keptBytes).toBeLessThanOrEqual(WARM_REPLY_BUDGET);
    expect(WARM_REPLY_BUDGET).toBeLessThan(32 * MIB);
    // every small module still comes in the one message; the few big ones are fetched on their own
    expect(dropped).toBeLessThanOrEqual(4);
  });

  it("an entry whose file cannot be read is left out rather than failing the reply", () => {
    const gone = { cached: true, tmp: "/t/gone" };
    const { kept } = trimWarmModules({ "/gone.ts": gone }, MIB, () => {
      throw new Error("ENOENT");
    });
    expect(kept).toEqual({});
  });
});
