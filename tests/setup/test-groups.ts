import { env } from "cloudflare:workers";
import { afterAll, describe, vi } from "vitest";
import { NOT_YET_SHARDED } from "./not-yet-sharded";

/**
 * The integration tier's files, run in a few groups instead of one by one (vitest.grouped.config.ts). Every test file
 * started alone costs ~12.5 s of CPU before its first test (its own workerd, the Worker's module graph, mediabunny),
 * about two thirds of the tier's CPU; a group pays that once for all its files. A group's files share one storage,
 * as the tests of one file always did, so a test may not assume an empty database or count what another file made.
 * Each file is its own describe block: its top-level hooks apply to its own tests only; after it, the spies, stubs and
 * fake timers it left are restored and the tasks it queued are given time to run.
 */
const files = import.meta.glob([
  "../integration/**/*.test.ts",
  "../contract/**/*.test.ts",
  "!../integration/images-binding*.test.ts",
  "!../integration/error-tracking.test.ts",
]);

/** How many groups the tier is split into: enough that the two CI cores finish together, few enough to start once. */
export const GROUP_COUNT = 8;

/**
 * Registers the files of group `index` (1…GROUP_COUNT), every GROUP_COUNT-th file in path order; with sharding on
 * (`NEW_LIBRARIES=shard`: vitest.library-shards.config.ts), without those not yet run so (tests/setup/not-yet-sharded.ts).
 */
export async function describeGroup(index: number) {
  const sharded = env.NEW_LIBRARIES === ("shard" as string);
  const paths = Object.keys(files)
    .sort()
    .filter((_, i) => i % GROUP_COUNT === index - 1)
    .filter((path) => !sharded || !NOT_YET_SHARDED[path.replace(/^\.\.\//, "tests/")]);
  for (const path of paths) {
    describe(path.replace(/^\.\.\//, "tests/"), async () => {
      await files[path]!();
      // A spy or stub a file left in place (on env.TASKS, console, fetch) must not reach the next file's tests.
      afterAll(async () => {
        vi.useRealTimers();
        vi.restoreAllMocks();
        vi.unstubAllGlobals();
        vi.unstubAllEnvs();
        await backgroundSettled();
        // backgroundSettled gives up after 20 s; a state query can wait seconds more behind a task's long statement
        // (a reindex ends with a rollup recount over the group's whole database).
      }, 60_000);
    });
  }
}

/**
 * Waits until the tasks a file queued have run (none waiting or running), or nothing has moved for 2 s (a test may
 * leave a task stranded on purpose), at most 20 s: the queue is shared by the group, and a file's previews still being
 * made must not eat into the next file's waits.
 */
async function backgroundSettled() {
  const state = () =>
    env.DB.prepare(
      "SELECT (SELECT count(*) FROM tasks WHERE status IN ('inqueue', 'running')) || '/' || (SELECT coalesce(max(start_time), 0) + coalesce(max(stop_time), 0) FROM tasks) AS s",
    ).first<{ s: string }>();
  const deadline = Date.now() + 20_000;
  let last = "";
  let stillSince = Date.now();
  while (Date.now() < deadline) {
    const now = (await state())?.s ?? "0/0";
    if (now.startsWith("0/")) return;
    if (now !== last) [last, stillSince] = [now, Date.now()];
    else if (Date.now() - stillSince >= 2_000) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
