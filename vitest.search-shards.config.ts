import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import base, { workersPoolOptions } from "./vitest.config";
import { mediabunnyNodeStub } from "./tests/setup/mediabunny-node-stub";
import { heavyModulesOnDemand } from "./tests/setup/heavy-modules-on-demand";
import { sqlTextModules } from "./tests/setup/sql-text-modules";

/**
 * The search index in four shards (decision 042): wrangler.toml binds one (`SEARCH`), as a small install should run;
 * here `SEARCH_1` … `SEARCH_3` are bound too, and the search tests whose expectations hold for any number of shards
 * run again: the model-based property (the same visible answers as its model with one shard and with four), the
 * feed, the rebuild that moves every document to its shard, and the round-trip budgets (the shards are asked at once:
 * one trip).
 */
const SHARDED_DATABASES = {
  DB: "00000000-0000-0000-0000-000000000000",
  LOGS: "00000000-0000-0000-0000-000000000001",
  SEARCH: "00000000-0000-0000-0000-000000000002",
  SEARCH_1: "00000000-0000-0000-0000-000000000003",
  SEARCH_2: "00000000-0000-0000-0000-000000000004",
  SEARCH_3: "00000000-0000-0000-0000-000000000005",
};

export default defineConfig({
  ...base,
  plugins: [
    cloudflareTest(async () => {
      const options = await workersPoolOptions();
      return { ...options, miniflare: { ...options.miniflare, d1Databases: SHARDED_DATABASES } };
    }),
    mediabunnyNodeStub(),
    heavyModulesOnDemand(),
    sqlTextModules(),
  ],
  test: {
    ...base.test,
    include: [
      "tests/integration/search-property.test.ts",
      "tests/integration/search-feed.test.ts",
      "tests/integration/search-rebuild.test.ts",
      "tests/integration/round-trip-budget.test.ts",
    ],
  },
});
