import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import grouped from "./vitest.grouped.config";
import { workersPoolOptions } from "./vitest.config";
import { mediabunnyNodeStub } from "./tests/setup/mediabunny-node-stub";
import { heavyModulesOnDemand } from "./tests/setup/heavy-modules-on-demand";
import { sqlTextModules } from "./tests/setup/sql-text-modules";

/**
 * The integration tier with sharding on (issue 40, decision 045): `NEW_LIBRARIES=shard`, so every library an
 * administrator makes through the API is moved into a shard of its own as it is made — dozens of libraries in as many
 * shards by the end of a group — and the tests' calls are routed to them, written back and read across them. The same
 * eight groups as `npm test`'s integration tier, without the files tests/setup/not-yet-sharded.ts names and why.
 */
export default defineConfig({
  ...grouped,
  plugins: [
    cloudflareTest(async () => {
      const options = await workersPoolOptions();
      return { ...options, miniflare: { ...options.miniflare, bindings: { ...options.miniflare.bindings, NEW_LIBRARIES: "shard" } } };
    }),
    mediabunnyNodeStub(),
    heavyModulesOnDemand(),
    sqlTextModules(),
  ],
});
