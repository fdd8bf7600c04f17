import { env } from "cloudflare:workers";
import { getConfig } from "../../workers/lib/config";

/**
 * How many random runs a property that makes libraries through the API makes in this tier. With sharding on
 * (NEW_LIBRARIES=shard) each of those libraries is moved into a shard of its own as it is made and every call is
 * routed, so a run costs two to three times what it costs in the catalog: there the property proves that the routed
 * paths answer as its model says, which each run exercises, while the breadth of random sequences is the catalog
 * tier's, which makes them all.
 */
export function propertyRuns(runs: number): number {
  return getConfig(env).NEW_LIBRARIES === "shard" ? Math.max(5, Math.ceil(runs * 0.4)) : runs;
}
