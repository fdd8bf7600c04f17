import { configDefaults, defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The integration tier as `npm test` runs it: the same pool and bindings as vitest.config.ts, but the files in eight
 * groups (tests/setup/test-groups.ts), so each group starts the Worker once instead of once per file.
 * vitest.config.ts still runs any single file on its own.
 */
export default defineConfig({ ...base, test: { ...base.test, include: ["tests/groups/*.test.ts"], exclude: configDefaults.exclude } });
