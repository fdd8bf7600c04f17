import { AsyncLocalStorage } from "node:async_hooks";
import { mintShardsFrom } from "./ids";

/** The shard of the work under way, per request: concurrent requests in one isolate mint each for their own. */
const shardOfWork = new AsyncLocalStorage<number>();
mintShardsFrom(() => shardOfWork.getStore());

/**
 * Runs `work` minting ids into library shard `shard` (decision 043): the folders, files, versions, comments, links and
 * rules it makes name their shard, so a later request finds them there without the id directory, and a write naming
 * them goes to the shard without being refused by the catalog first.
 */
export function mintingIn<T>(shard: number, work: () => T): T {
  return shardOfWork.run(shard, work);
}
