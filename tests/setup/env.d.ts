import type { D1Migration } from "cloudflare:test";

// Test-only bindings added in vitest.config.ts, plus the secrets the Worker reads from .dev.vars / `wrangler secret`.
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      TEST_LOGS_MIGRATIONS: D1Migration[];
      TEST_SEARCH_MIGRATIONS: D1Migration[];
      JWT_SECRET: string;
      ADMIN_PASSWORD: string;
    }
  }
}

export {};
