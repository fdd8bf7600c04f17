import { afterAll, describe, vi } from "vitest";

/**
 * The integration tier's files, run in a few groups instead of one by one (vitest.grouped.config.ts). Every test file
 * started alone costs ~12.5 s of CPU before its first test (its own workerd, the Worker's module graph, mediabunny),
 * about two thirds of the tier's CPU; a group pays that once for all its files. A group's files share one storage,
 * as the tests of one file always did, so a test may not assume an empty database or count what another file made.
 * Each file is its own describe block: its top-level hooks apply to its own tests only, and the spies it left are
 * restored after it.
 */
const files = import.meta.glob(["../integration/**/*.test.ts", "../contract/**/*.test.ts", "!../integration/images-binding*.test.ts", "!../integration/error-tracking.test.ts"]);

/** How many groups the tier is split into: enough that the two CI cores finish together, few enough to start once. */
export const GROUP_COUNT = 8;

/** Registers the files of group `index` (1…GROUP_COUNT), every GROUP_COUNT-th file in path order. */
export async function describeGroup(index: number) {
  const paths = Object.keys(files).sort().filter((_, i) => i % GROUP_COUNT === index - 1);
  for (const path of paths) {
    describe(path.replace(/^\.\.\//, "tests/"), async () => {
      await files[path]!();
      // A spy or stub a file left in place (on env.TASKS, console, fetch) must not reach the next file's tests.
      afterAll(() => {
        vi.restoreAllMocks();
        vi.unstubAllGlobals();
        vi.unstubAllEnvs();
      });
    });
  }
}
