/**
 * The integration files the sharded run (vitest.library-shards.config.ts: `NEW_LIBRARIES=shard`, every library an
 * administrator makes through the API in a shard of its own) leaves out, by why — issue 40's «the whole existing
 * suite passes with sharding on» is met when this list is empty. Every other file runs there as it runs here.
 */
export const NOT_YET_SHARDED: Record<string, string> = {
  // Operations between libraries (a file listed, copied or moved into another library, rules spread over several)
  // answer 409 «…пока недоступны» while one of the libraries lives in a shard: not built (decision 043).
  "tests/contract/contract.test.ts": "between libraries",
  "tests/integration/access-api.test.ts": "between libraries",
  // Their subject is moving a library that lives in the catalog; made by an administrator, it is in a shard already.
  "tests/integration/library-move.test.ts": "moves a catalog library",
  "tests/integration/library-move-task.test.ts": "moves a catalog library",
  "tests/integration/library-shard.test.ts": "moves a catalog library",
  "tests/integration/library-shard-plan.test.ts": "moves a catalog library",
  "tests/integration/round-trip-budget.test.ts": "moves a catalog library",
  "tests/integration/round-trip-budget-sharded.test.ts": "moves a catalog library",
  "tests/integration/internal-bench.test.ts": "moves a catalog library",
  // They write or backdate a library's rows with SQL of their own, in the catalog only, which refuses it for a library
  // in its shard (the shared factory, `insertAsset`, writes through to the shard: `seedIntoLibraries`).
  "tests/integration/access-matrix.test.ts": "storage-layer seed",
  "tests/integration/automation-run.test.ts": "storage-layer seed",
  "tests/integration/folder-rollups-property.test.ts": "storage-layer seed",
  "tests/integration/group-crud.test.ts": "storage-layer seed",
  "tests/integration/group-seek-property.test.ts": "storage-layer seed",
  "tests/integration/purge-trash.test.ts": "storage-layer seed",
  "tests/integration/search-api.test.ts": "storage-layer seed",
  "tests/integration/search-feed.test.ts": "storage-layer seed",
  "tests/integration/search-many.test.ts": "storage-layer seed",
  "tests/integration/search-property.test.ts": "storage-layer seed",
  "tests/integration/search-visibility-tokens.test.ts": "storage-layer seed",
  "tests/integration/seek-spans.test.ts": "storage-layer seed",
  "tests/integration/shared-with-me.test.ts": "storage-layer seed",
  "tests/integration/subtree-snapshot.test.ts": "storage-layer seed",
  "tests/integration/tasks-api.test.ts": "storage-layer seed",
  "tests/integration/zip-selection.test.ts": "storage-layer seed",
};
