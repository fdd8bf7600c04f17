/**
 * The integration files the sharded run (vitest.library-shards.config.ts: `NEW_LIBRARIES=shard`, every library an
 * administrator makes through the API in a shard of its own) leaves out, by why. Every other file runs there as it
 * runs here.
 */
export const NOT_YET_SHARDED: Record<string, string> = {
  // Their subject is sharding itself: each moves libraries it made in the catalog into shards, in `test:workers`
  // already. With NEW_LIBRARIES=shard an administrator's library is born in its shard and they would have none to move.
  "tests/integration/library-move.test.ts": "moves a catalog library",
  "tests/integration/library-move-task.test.ts": "moves a catalog library",
  "tests/integration/library-shard.test.ts": "moves a catalog library",
  "tests/integration/library-shard-plan.test.ts": "moves a catalog library",
  "tests/integration/round-trip-budget.test.ts": "moves a catalog library",
  "tests/integration/round-trip-budget-sharded.test.ts": "moves a catalog library",
  "tests/integration/internal-bench.test.ts": "moves a catalog library",
};
