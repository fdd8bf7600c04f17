import { z } from "zod";
import { ru } from "../../../../shared/i18n/ru";
import { findAsset } from "../../../db/repositories/asset.repository";
import { detachFromParentStatement, findGroup, runBatch } from "../../../db/repositories/group.repository";
import type { TaskEntityRef } from "../../../db/schema/index";
import { AppError } from "../../../lib/errors";
import { ROOT_GROUP_ID } from "../../../lib/ids";
import type { TaskMessageInput } from "../../../queue/messages";
import { requireEntityAccess } from "../../access";
import { purgeAssets, runPurgeGroup } from "../../library";
import type { RequestContext } from "../../access";
import { inItemLibrary } from "./item-library";
import { percent, type OperationContext, type TaskOperation } from "./operation";
import { titleOf } from "./title";

const PurgeOptionsSchema = z.object({
  /** asset memberships or groups handled per step */
  chunk_size: z.number().int().min(1).max(500).default(100),
});
type PurgeOptions = z.infer<typeof PurgeOptionsSchema>;

interface PurgeState {
  index: number;
  /** whether the current group was detached from its parent already */
  detached: boolean;
  chunks: number;
}

/** Entities of a purge: trashed groups and trashed assets the caller may delete. */
async function checkPurgeable(rc: RequestContext, actor: Parameters<typeof requireEntityAccess>[1], entities: TaskEntityRef[]) {
  for (const e of entities) {
    if (e.type === "group") {
      const g = await findGroup(rc.db, e.id);
      if (!g || e.id === ROOT_GROUP_ID) throw new AppError("NOT_FOUND", ru.tasks.groupNotFound);
      await requireEntityAccess(rc, actor, { id: g.id, type: "group", ownerId: g.ownerId }, "delete", ru.tasks.groupNotFound);
      if (g.deletedAt == null) throw new AppError("CONFLICT", ru.tasks.notTrashed);
    } else {
      const a = await findAsset(rc.db, e.id);
      if (!a) throw new AppError("NOT_FOUND", ru.tasks.entityNotFound);
      await requireEntityAccess(rc, actor, { id: a.id, type: "asset", ownerId: a.ownerId }, "delete", ru.tasks.entityNotFound);
      if (a.deletedAt == null) throw new AppError("CONFLICT", ru.tasks.notTrashed);
    }
  }
}

/**
 * One chunk of the library's `purge-group` (runPurgeGroup with a budget of one chunk). Where it would queue its own
 * continuation message, the task continues instead, in its next step: the shim catches that message.
 */
async function purgeGroupChunk(rc: RequestContext, groupId: string, chunkSize: number): Promise<{ finished: boolean; summary: string }> {
  let continued = false;
  const tasks = {
    send: async (_body: TaskMessageInput) => {
      continued = true;
    },
    sendBatch: async () => {
      continued = true;
    },
  } as unknown as Queue;
  const summary = await runPurgeGroup({ ...rc, env: { ...rc.env, TASKS: tasks } }, { op: "purge-group", groupId, chunkSize, budget: 1 });
  return { finished: !continued, summary };
}

/** One chunk of one trashed group or file for good, where its library lives: the state to resume from. */
async function purgeEntity(ctx: OperationContext<PurgeOptions>, entity: { id: string; type: string }, state: PurgeState): Promise<PurgeState> {
  const next: PurgeState = { index: state.index + 1, detached: false, chunks: 0 };
  if (entity.type === "group") {
    const group = await findGroup(ctx.rc.db, entity.id);
    if (group && !state.detached && group.deletedAt != null) {
      await runBatch(ctx.rc.db, [detachFromParentStatement(group.id, group.parentId ?? ROOT_GROUP_ID)]);
    }
    const { finished, summary } = await purgeGroupChunk(ctx.rc, entity.id, ctx.options.chunk_size);
    await ctx.log("info", ru.tasks.log.purgeProgress(summary));
    return finished ? next : { index: state.index, detached: true, chunks: state.chunks + 1 };
  }
  if (entity.type === "asset") {
    const asset = await findAsset(ctx.rc.db, entity.id);
    if (!asset) await ctx.log("warn", ru.tasks.log.assetGone(entity.id));
    else if (asset.deletedAt == null) await ctx.log("warn", ru.tasks.notTrashed);
    else {
      const purged = await purgeAssets(ctx.rc, [asset.id], ctx.task.ownerId ?? null);
      await ctx.log("info", ru.tasks.log.purgeProgress(`«${asset.name}»: файлов ${purged.assets}, объектов ${purged.objects}`));
    }
  }
  return next;
}

/**
 * `purge`: the library's permanent delete, as a task with progress and log. Trashed groups are detached from their
 * parents (no restore any more) and purged chunk by chunk with `purge-group` (assets only inside them go with all
 * their versions, previews and bytes); trashed assets are purged with `purgeAssets`.
 */
export const purgeOperation: TaskOperation<PurgeOptions, PurgeState> = {
  name: "purge",
  entityTypes: ["group", "asset"],
  options: PurgeOptionsSchema,
  authorize: (rc, actor, _options, entities) => checkPurgeable(rc, actor, entities),
  title: (entities, names) => `${ru.tasks.operations.purge}: ${titleOf(entities, names)}`,
  async start() {
    return { index: 0, detached: false, chunks: 0 };
  },
  async step(ctx, state) {
    const entities = ctx.task.affected;
    const entity = entities[state.index];
    const next = entity
      ? await inItemLibrary(ctx, entity.id, (ctx) => purgeEntity(ctx, entity, state))
      : { index: state.index + 1, detached: false, chunks: 0 };
    const done = next.index >= entities.length;
    return { state: next, done, progress: percent(next.index, entities.length), info: `${next.index} / ${entities.length}` };
  },
};
