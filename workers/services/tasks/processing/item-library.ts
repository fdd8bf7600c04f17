import { inLibraryOf } from "../../library";
import type { OperationContext } from "./operation";

/**
 * One file's work in a processing task, where the file's library lives (decision 043, «Uploads»): over the catalog,
 * or over its shard, the bytes still decoded here — what the work changed (previews, technical fields, search text)
 * is written back to the catalog before the next file. The task and its log stay global.
 */
export function inItemLibrary<O, X>(ctx: OperationContext<O>, assetId: string, work: (ctx: OperationContext<O>) => Promise<X>): Promise<X> {
  return inLibraryOf(ctx.rc, assetId, (rc) => work({ ...ctx, rc }));
}
