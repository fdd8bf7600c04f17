import { createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./measure.mjs";

/**
 * The SQLite file local D1 keeps for a binding of wrangler.toml under a `--persist-to` state: miniflare names it by
 * the Durable Object id its D1 object derives from the database id (the same derivation as workerd's `idFromName`).
 */
export function d1FileOf(persistDir, binding) {
  const config = createRequire(import.meta.url)("wrangler").unstable_readConfig({ config: join(ROOT, "wrangler.toml") });
  const database = config.d1_databases.find((d) => d.binding === binding);
  if (!database) throw new Error(`wrangler.toml binds no D1 database ${binding}`);
  const key = createHash("sha256").update("miniflare-D1DatabaseObject").digest();
  const name = createHmac("sha256", key).update(database.database_id).digest().subarray(0, 16);
  const mac = createHmac("sha256", key).update(name).digest().subarray(0, 16);
  return join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject", `${Buffer.concat([name, mac]).toString("hex")}.sqlite`);
}
