import { applyD1Migrations, env } from "cloudflare:test";
import { searchShardBindings } from "../../workers/db/search-shards";

// Setup files run before every test file and outside its isolated storage; applyD1Migrations only applies the
// migrations that have not run yet, so calling it each time is safe.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.LOGS, env.TEST_LOGS_MIGRATIONS);
for (const shard of searchShardBindings(env)) await applyD1Migrations(shard, env.TEST_SEARCH_MIGRATIONS);
