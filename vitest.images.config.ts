import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import integration, { workersPoolOptions } from "./vitest.config";
import { mediabunnyNodeStub } from "./tests/setup/mediabunny-node-stub";
import { heavyModulesOnDemand } from "./tests/setup/heavy-modules-on-demand";
import { sqlTextModules } from "./tests/setup/sql-text-modules";

/**
 * The integration tier with the optional Cloudflare Images binding (`IMAGES`, README «Optional bindings») on:
 * miniflare answers it locally with `sharp` (a devDependency for this). Only tests/integration/images-binding*.test.ts
 * run here; the main run (vitest.config.ts) excludes them and tests the default, binding-less setup.
 */
export default defineConfig({
  ...integration,
  plugins: [
    cloudflareTest(async () => {
      const options = await workersPoolOptions();
      return { ...options, miniflare: { ...options.miniflare, images: { binding: "IMAGES" } } };
    }),
    mediabunnyNodeStub(),
    heavyModulesOnDemand(),
    sqlTextModules(),
  ],
  test: { ...integration.test, include: ["tests/integration/images-binding*.test.ts"], exclude: undefined },
});
