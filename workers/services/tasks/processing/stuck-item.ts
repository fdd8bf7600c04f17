import { ru } from "../../../../shared/i18n/ru";
import { runBatch } from "../../../db/repositories/asset.repository";
import { loadAssetSource } from "./asset-source";
import type { OperationContext } from "./operation";
import { techFieldsPatch, type StageName } from "./processing-state";

/**
 * The asset every run of a task died on (the platform ended it: the media Worker's CPU limit, or memory): its
 * `stages` end as failed with `reason`, visible in the viewer, and the task log says which file was skipped.
 * Answers the file's name, or null when the asset or its original is gone (nothing to mark).
 */
export async function failStuckAsset(
  ctx: OperationContext<unknown>,
  assetId: string | undefined,
  stages: readonly StageName[],
  reason: string,
): Promise<string | null> {
  if (!assetId) return null;
  const { asset, source } = await loadAssetSource(ctx.rc, assetId);
  if (!asset || !source) return null;
  const failed = Object.fromEntries(stages.map((stage) => [stage, { state: "failed" as const, reason }]));
  await runBatch(ctx.rc.db, [techFieldsPatch(ctx.rc.db, source.main.variant.id, {}, failed)]);
  await ctx.log("error", ru.tasks.log.itemStopped(asset.name, ctx.task.attempts));
  return asset.name;
}
