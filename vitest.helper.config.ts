import { defineConfig } from "vitest/config";

/**
 * Local disk helper tier: tests in plain Node that start the built product under `wrangler dev` and the helper
 * (helper/main.ts) as its own process on temporary folders, and prove the two-way sync on real files. Needs
 * `npm run build` first (npm test builds once for every tier).
 */
export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/helper/**/*.test.ts"],
    setupFiles: ["./tests/setup/fail-on-console-error.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
