import type { Database } from "../../db/client";
import { runBatch } from "../../db/repositories/group.repository";
import {
  repairRollupStatements,
  rollupDrift,
  subtreeSizesOf,
  type RollupDrift,
} from "../../db/repositories/folder-rollup.repository";

/**
 * Folder sizes from the rollups (decision record 017): a group's subtree totals are one row, kept exact by triggers
 * in the same statement as every change; only assets listed in several groups of one subtree need a correction.
 */

export interface GroupSize {
  group_id: string;
  bytes: number;
  assets: number;
  groups: number;
}

/**
 * Bytes (ready variants), distinct assets and sub-groups of each live group's subtree, unfiltered: the answer for a
 * caller who sees everything (an administrator). Groups without a rollup row answer zeros.
 * @example const [size] = await sizesFromRollups(rc.db, [groupId])
 */
export async function sizesFromRollups(db: Database, ids: readonly string[]): Promise<GroupSize[]> {
  const rows = new Map((await subtreeSizesOf(db, ids)).map((r) => [r.group_id, r]));
  return ids.map((id) => {
    const r = rows.get(id);
    if (!r) return { group_id: id, bytes: 0, assets: 0, groups: 0 };
    return { group_id: id, bytes: r.sub_bytes - r.dup_bytes, assets: r.sub_assets - r.dup_assets, groups: Math.max(0, r.sub_groups - 1) };
  });
}

export interface RollupRepair {
  /** drift found before the repair (rows that differed from the recomputation) */
  before: RollupDrift;
  /** drift after the repair: always zero unless writes raced the repair's own batch */
  after: RollupDrift;
}

/**
 * Recomputes every asset and folder total from the rows themselves, reports how many rows had drifted, and
 * overwrites them in one batch. Drift is a bug (the triggers are exact); the repair exists so a bulk import that
 * bypassed them, or a manual data fix, can be put right and so tests can prove the triggers keep drift at 0. In the
 * catalog the libraries living in their shards are left to them: their totals there are the shards', written back.
 */
export async function repairFolderRollups(db: Database): Promise<RollupRepair> {
  const before = await rollupDrift(db);
  if (before.assets === 0 && before.folders === 0) return { before, after: before };
  await runBatch(db, repairRollupStatements());
  return { before, after: await rollupDrift(db) };
}
