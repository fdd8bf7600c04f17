import { createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { searchShardDatabaseId } from "../../scripts/search-shards-config.mjs";
import { ROOT } from "./measure.mjs";

/** The database id wrangler.toml gives a D1 binding. */
export function databaseIdOf(binding) {
  const config = createRequire(import.meta.url)("wrangler").unstable_readConfig({ config: join(ROOT, "wrangler.toml") });
  const database = config.d1_databases.find((d) => d.binding === binding);
  if (!database) throw new Error(`wrangler.toml binds no D1 database ${binding}`);
  return database.database_id;
}

/** The database id of shard i of the search index (SEARCH, then the shards BENCH_SEARCH_SHARDS binds). */
export const searchShardIdOf = (i) => (i === 0 ? databaseIdOf("SEARCH") : searchShardDatabaseId(i));

/**
 * The SQLite file local D1 keeps for a database id under a `--persist-to` state: miniflare names it by the Durable
 * Object id its D1 object derives from the database id (the same derivation as workerd's `idFromName`).
 */
export function d1FileOf(persistDir, databaseId) {
  const key = createHash("sha256").update("miniflare-D1DatabaseObject").digest();
  const name = createHmac("sha256", key).update(databaseId).digest().subarray(0, 16);
  const mac = createHmac("sha256", key).update(name).digest().subarray(0, 16);
  return join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject", `${Buffer.concat([name, mac]).toString("hex")}.sqlite`);
}
