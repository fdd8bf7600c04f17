import { sql } from "drizzle-orm";
import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import {
  runBatch,
  switchedListings,
  syncCatalogMembershipsStatement,
  syncMembershipsStatement,
} from "../../../db/repositories/asset.repository";
import { assetsForMembership } from "../../../db/repositories/group.repository";
import { refreshDocsStatements, refreshFolderDocsStatements } from "../../../db/repositories/search.repository";
import { inLibraryOf, repairFolderRollups } from "../../library";
import { sortKeyOf } from "../../library/pure";
import { percent, type OperationContext, type TaskOperation } from "./operation";
import { titleOf } from "./title";
import { adoptLayout, dropMisplacedSlice } from "../../../db/repositories/search-feed.repository";
import { feedIndex } from "../../search";
import { ROOT_GROUP_ID } from "../../../lib/ids";

/** Whether the task reindexes the root: the whole index, into the shards this Worker binds (decision 042). */
const rebuildsAll = (entities: readonly { id: string; type: string }[]) =>
  entities.some((e) => e.type === "group" && e.id === ROOT_GROUP_ID);

/** Drops misplaced documents until none is left (true) or the deadline has passed (false), and logs how many. */
async function dropMisplaced(ctx: OperationContext<ReindexOptions>, deadline: number): Promise<boolean> {
  let dropped = 0;
  let more = true;
  while (more && Date.now() < deadline) {
    const n = await dropMisplacedSlice(ctx.rc.search);
    dropped += n;
    more = n > 0;
  }
  if (dropped > 0) await ctx.log("info", ru.tasks.log.misplacedDropped(dropped));
  return !more;
}

/** How long a step may feed the index the documents it marked (the cron takes what is left). */
const FEED_STEP_MS = 10_000;

const ReindexOptionsSchema = z.object({
  /** assets re-indexed per step */
  chunk_size: z.number().int().min(1).max(500).default(200),
});
type ReindexOptions = z.infer<typeof ReindexOptionsSchema>;

interface ReindexState {
  index: number;
  /** within a group: the last asset id done (assets are walked in id order) */
  after: string;
  total: number;
  /** a reindex of the root: whether every shard of the index holds only its own documents again (decision 042) */
  placed?: boolean;
}

/**
 * `reindex`: rebuilds the denormalised sort keys of group listings (name key, modification time and size of each
 * asset's memberships, which member pages sort and page by) from the assets themselves — for given assets, or every
 * asset in the subtree of given groups — and their search documents (decision 011), the folders' own included. Repairs listings and the
 * search index after bulk imports or manual data fixes. It ends with the folder rollups (decision record 017):
 * recomputed from the rows, drift reported in the log and the result, fixed.
 */
export const reindexOperation: TaskOperation<ReindexOptions, ReindexState> = {
  name: "reindex",
  entityTypes: ["asset", "group"],
  options: ReindexOptionsSchema,
  title: (entities, names) => `${ru.tasks.operations.reindex}: ${titleOf(entities, names)}`,
  async start(ctx) {
    // The whole index is rebuilt: documents are written for the shards this Worker binds from now on (decision 042).
    if (rebuildsAll(ctx.task.affected)) await adoptLayout(ctx.rc.db, ctx.rc.search.length);
    return { index: 0, after: "", total: 0 };
  },
  async step(ctx, state) {
    const entities = ctx.task.affected;
    const entity = entities[state.index];
    let ids: string[] = [];
    let next: ReindexState = { index: state.index + 1, after: "", total: state.total, placed: state.placed };
    if (entity?.type === "asset") ids = [entity.id];
    else if (entity?.type === "group") {
      const rows = await ctx.rc.db.all<{ el_id: string }>(sql`
        select distinct m.el_id from group_members m join group_closure c on c.descendant = m.group_id
        where c.ancestor = ${entity.id} and m.el_type = 'asset' and m.el_id > ${state.after}
        order by m.el_id limit ${ctx.options.chunk_size}`);
      ids = rows.map((r) => r.el_id);
      if (ids.length === ctx.options.chunk_size) next = { ...next, index: state.index, after: ids[ids.length - 1] };
    }
    // A folder's own documents and those of the folders below it first, in one batch (decision 039: their visibility
    // tokens follow the tree).
    if (entity?.type === "group" && state.after === "") await runBatch(ctx.rc.db, refreshFolderDocsStatements(entity.id, ROOT_GROUP_ID));
    if (ids.length > 0) {
      const found = (await assetsForMembership(ctx.rc.db, ids)).filter((a) => a.deleted_at == null);
      if (found.length > 0) {
        const keysOf = (a: (typeof found)[number]) => ({ sortName: sortKeyOf(a.name), mtime: a.mtime, size: a.size ?? 0 });
        await runBatch(ctx.rc.db, [
          ...found.map((a) => syncCatalogMembershipsStatement(ctx.rc.db, a.id, keysOf(a))),
          ...refreshDocsStatements(found.map((a) => a.id)),
        ]);
        // Listings in a library that lives in its shard are put right there, and written back (decision 043).
        const listed = await switchedListings(
          ctx.rc.db,
          found.map((a) => a.id),
        );
        const keys = new Map(found.map((a) => [a.id, keysOf(a)]));
        for (const library of new Set(listed.map((l) => l.library))) {
          const mine = listed.filter((l) => l.library === library);
          await inLibraryOf(ctx.rc, library, (rc) =>
            runBatch(
              rc.db,
              mine.map((l) => syncMembershipsStatement(rc.db, l.assetId, keys.get(l.assetId)!)),
            ),
          );
        }
      }
      // The marked documents are indexed now, not when the feed next passes: the task ends with the index repaired.
      await feedIndex(ctx.rc.db, ctx.rc.search, { deadline: Date.now() + FEED_STEP_MS });
      next.total += found.length;
      await ctx.log("info", ru.tasks.log.reindexed(next.total));
    }
    let done = next.index >= entities.length;
    // The whole index was rebuilt, each document into its shard: the shards now drop the copies another shard owns
    // (the number of shards changed, decision 042). Until then a merge takes each document once.
    if (done && !next.placed && rebuildsAll(entities)) {
      next.placed = await dropMisplaced(ctx, Date.now() + FEED_STEP_MS);
      done = next.placed;
    }
    // Last, the folder rollups (sizes and counts) are recomputed and any drift is reported and put right.
    const repair = done ? await repairFolderRollups(ctx.rc.db) : null;
    if (repair) await ctx.log(repair.before.assets + repair.before.folders > 0 ? "warn" : "info", ru.tasks.log.rollupDrift(repair.before));
    return {
      state: next,
      done,
      progress: percent(next.index, entities.length),
      info: ru.tasks.log.reindexed(next.total),
      result: repair ? { assets: next.total, rollup_drift: repair.before } : undefined,
    };
  },
};
