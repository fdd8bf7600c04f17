import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The integration tier as `npm test` runs it: the same pool and bindings as vitest.config.ts, but the files in eight
 * groups (tests/setup/test-groups.ts), so each group starts the Worker once instead of once per file.
 * vitest.config.ts still runs any single file on its own.
 *
 * Its own Vite cache: `npm test` runs the workers-alone tier (vitest.config.ts and its kin) beside this one, and two
 * runs pre-bundling `deps.optimizer.ssr` into one directory at once fail on renaming it (ENOTEMPTY, seen in CI).
 */
export default defineConfig({
  ...base,
  cacheDir: "node_modules/.vite-grouped",
  test: { ...base.test, include: ["tests/groups/*.test.ts"], exclude: configDefaults.exclude },
});
