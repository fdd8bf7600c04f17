import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { findAsset } from "../../../db/repositories/asset.repository";
import { findGroup } from "../../../db/repositories/group.repository";
import { AppError } from "../../../lib/errors";
import { IdSchema } from "../../../api/schemas";
import { copyAsset, inLibraryOf, requireTargetGroup } from "../../library";
import { assetIdsOf } from "./asset-source";
import { percent, PermanentTaskError, type TaskOperation } from "./operation";
import { titleOf } from "./title";

const CopyOptionsSchema = z.object({ group_id: IdSchema });
type CopyOptions = z.infer<typeof CopyOptionsSchema>;

interface CopyState {
  index: number;
  copies: string[];
  failed: string[];
}

/**
 * `copy`: copies each asset into the group `group_id` with the library's copy (a new asset owned by the task's owner
 * whose variants reference the same stored bytes), checked as the owner: read and download on the asset, create
 * on the group. An asset the owner may not copy is logged and counted; the rest go on.
 */
export const copyOperation: TaskOperation<CopyOptions, CopyState> = {
  name: "copy",
  entityTypes: ["asset"],
  options: CopyOptionsSchema,
  async authorize(rc, actor, options) {
    await requireTargetGroup(rc, actor, options.group_id);
  },
  title: (entities, names) => `${ru.tasks.operations.copy}: ${titleOf(entities, names)}`,
  async start() {
    return { index: 0, copies: [], failed: [] };
  },
  async step(ctx, state) {
    const ids = assetIdsOf(ctx.task.affected);
    const id = ids[state.index];
    if (!ctx.owner) throw new PermanentTaskError(ru.tasks.entityNotFound);
    const group = await findGroup(ctx.rc.db, ctx.options.group_id);
    if (!group || group.deletedAt != null) throw new PermanentTaskError(ru.tasks.groupNotFound);
    if (id) {
      try {
        // Where the folder's library lives (decision 043): from the same library only, once that is in its shard.
        const owner = ctx.owner;
        const target = ctx.options.group_id;
        const copy = (rc: typeof ctx.rc) => copyAsset(rc, owner, id, target);
        const { asset_id } = await inLibraryOf(ctx.rc, target, copy, { actor: owner, sameLibrary: [id] });
        state.copies.push(asset_id);
        await ctx.log("info", ru.tasks.log.copied((await findAsset(ctx.rc.db, id))?.name ?? id, group.name));
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        state.failed.push(id);
        await ctx.log("error", `${id}: ${error.message}`);
      }
    }
    const index = state.index + 1;
    const done = index >= ids.length;
    return {
      state: { ...state, index },
      done,
      progress: percent(index, ids.length),
      info: `${index} / ${ids.length}`,
      result: done ? { group_id: ctx.options.group_id, copies: state.copies } : undefined,
      failed: done && state.failed.length > 0 ? ru.tasks.log.someFailed(state.failed.length, ids.length) : null,
    };
  },
};
