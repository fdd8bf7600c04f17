import { placeOfId } from "../../../db/library-directory";
import { runOverShard } from "../../library";
import type { OperationContext } from "./operation";

/**
 * One file's work in a processing task, where the file's library lives (decision 043, «Uploads»): over the catalog,
 * or over its shard, the bytes still decoded here — what the work changed (previews, technical fields, search text)
 * is written back to the catalog before the next file. The task and its log stay global.
 */
export async function inItemLibrary<O, X>(
  ctx: OperationContext<O>,
  assetId: string,
  work: (ctx: OperationContext<O>) => Promise<X>,
): Promise<X> {
  const place = await placeOfId(ctx.rc.db.$client, assetId);
  if (place.place !== "shard") return work(ctx);
  return runOverShard(ctx.rc, place, { caller: null, globals: [] }, (rc) => work({ ...ctx, rc }));
}
