import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { mediabunnyNodeStub } from "./tests/setup/mediabunny-node-stub";
import { heavyModulesOnDemand } from "./tests/setup/heavy-modules-on-demand";
import { sqlTextModules } from "./tests/setup/sql-text-modules";

// Wrangler tries to fetch `Request.cf` data from the network; the tests run offline.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

/** Known test credentials: the first request bootstraps ADMIN_LOGIN ("admin") with this password. */
export const TEST_ADMIN_PASSWORD = "test-admin-password-0123";
export const TEST_JWT_SECRET = "test-jwt-secret-for-vitest-only-0123456789-abcdefghij";
export const TEST_METRICS_TOKEN = "test-metrics-token-0123456789";

/** The pool's options (wrangler.toml plus the test bindings), shared with vitest.images.config.ts. */
export const workersPoolOptions = async () => ({
  wrangler: { configPath: "./wrangler.toml" },
  // The API Worker plus the media Worker's queue handler (decision 032: deployed, the queue is the media Worker's).
  main: "./tests/setup/integration-worker.ts",
  miniflare: {
    // wrangler.toml's DECODER names the media Worker (edge-mam-media), which is not a Worker here: the binding points
    // at this Worker's own DecoderEntrypoint (tests/setup/integration-worker.ts exports it). A binding naming the
    // Worker under test ("edge-mam") is a binding to itself, so every decode still crosses a real RPC call.
    serviceBindings: { DECODER: { name: "edge-mam", entrypoint: "DecoderEntrypoint" } },
    // workers/media/wrangler.toml's consumers, on the Worker under test.
    queueConsumers: {
      "edge-mam-tasks": { maxBatchSize: 10, maxBatchTimeout: 1, maxRetries: 5, deadLetterQueue: "edge-mam-tasks-dlq" },
      "edge-mam-tasks-dlq": { maxBatchSize: 10, maxBatchTimeout: 5, maxRetries: 3 },
    },
    // These override wrangler.toml [vars] and a developer's .dev.vars, so every machine tests the same setup.
    bindings: {
      TEST_MIGRATIONS: await readD1Migrations("./migrations"),
      TEST_LOGS_MIGRATIONS: await readD1Migrations("./migrations-logs"),
      TEST_SEARCH_MIGRATIONS: await readD1Migrations("./migrations-search"),
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_LOGIN: "admin",
      ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
      // /metrics answers only with this bearer (404 without a configured token)
      METRICS_TOKEN: TEST_METRICS_TOKEN,
      ULDL_SERVERS: "",
      SSO_PROVIDERS: "",
      // The shop's webhook tests sign their bodies with this; no secret key, so checkout takes the invoice path.
      STRIPE_WEBHOOK_SECRET: "whsec_test_secret_for_vitest_only",
      STRIPE_SECRET_KEY: "",
    },
  },
});

/**
 * Integration tier: tests run inside workerd next to the Worker (wrangler.toml bindings: D1, R2, Durable Objects,
 * Queues, Workflows). Each test file run by this config has its own storage; migrations are applied by
 * tests/setup/apply-migrations.ts. `npm test` runs the same files in groups (vitest.grouped.config.ts).
 */
export default defineConfig({
  plugins: [cloudflareTest(workersPoolOptions), mediabunnyNodeStub(), heavyModulesOnDemand(), sqlTextModules()],
  // wrangler.toml's [alias] is for wrangler's bundler; the test runner resolves modules through Vite.
  resolve: {
    alias: { "remix-server-build": new URL("./build/server/index.js", import.meta.url).pathname },
  },
  test: {
    // tests/contract: the API as SPEC-shaped clients call it (issue 10), with the same bindings as the integration tier.
    include: ["tests/integration/**/*.test.ts", "tests/contract/**/*.test.ts"],
    // These need the Cloudflare Images binding: vitest.images.config.ts runs them with it.
    exclude: [...configDefaults.exclude, "tests/integration/images-binding*.test.ts"],
    globalSetup: ["./tests/setup/check-build.ts"],
    setupFiles: ["./tests/setup/apply-migrations.ts", "./tests/setup/fail-on-console-error.ts", "./tests/setup/load-heavy-modules.ts"],
    deps: { optimizer: { ssr: { enabled: true, include: ["@remix-run/cloudflare"] } } },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default (cores − 1) runs ONE file at a time on the 2-core CI machine: two files at once keep both cores
    // busy. More do not help: each file starts its own workerd and evaluates the Worker's module graph, ~12.5 s of CPU
    // before its first test (measured 2026-12-03 with an empty test file: workerd and the migrations 2 s, then the
    // API app, the media Worker, the Remix build and mediabunny), so the tier is CPU-bound. Run file by file that
    // start was two thirds of the tier's CPU (24:30 wall); in groups (vitest.grouped.config.ts) the tier took 10:56.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
