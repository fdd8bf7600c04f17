import { defineConfig } from "vitest/config";

/**
 * Unit tier: pure logic in plain Node (no workerd, no bindings), so it runs in about a second.
 * Everything that needs D1, R2, Durable Objects, Queues or Workflows belongs to the integration tier (vitest.config.ts).
 */
export default defineConfig({
  resolve: { alias: { "~": new URL("./app", import.meta.url).pathname } },
  test: {
    include: ["tests/unit/**/*.test.ts"],
    environment: "node",
    setupFiles: ["./tests/setup/fail-on-console-error.ts"],
  },
});
