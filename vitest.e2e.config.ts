import { defineConfig } from "vitest/config";

/**
 * End-to-end tier: tests run in plain Node and drive Debian Chromium (playwright-core) against the built product
 * under `wrangler dev`, started once by tests/e2e/global-setup.ts. Run through `npm run test:e2e`
 * (scripts/e2e.mjs builds first).
 */
export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/e2e/**/*.e2e.ts"],
    globalSetup: ["./tests/e2e/global-setup.ts"],
    // One server, one browser per file: files run one after another.
    fileParallelism: false,
    // Files run in one Node worker instead of a fresh one each (playwright-core and the fixtures load once, not 45
    // times); each file still launches its own Chromium and every page its own context.
    isolate: false,
    testTimeout: 60_000,
    // In CI (scripts/e2e.mjs runs two servers at once on two cores) a test whose poll ran out of time under load is
    // run once more before it fails; the report still marks it as retried.
    retry: process.env.CI ? 1 : 0,
    // A poll waits for what the browser does after a click (a client navigation, a loader, a render). vitest's
    // default of 1 s is shorter than one loader round trip with two servers and two browsers on two busy cores: CI
    // failed once on exactly that (honest-states, /admin/survey → /mam, both attempts). A poll that succeeds returns
    // at once, so a longer limit costs nothing when the machine is quiet.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});
