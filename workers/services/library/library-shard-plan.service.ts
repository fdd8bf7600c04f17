import { listMoves, type MoveState, type MoveStep } from "../../db/repositories/library-move.repository";
import { libraryPlanRows, type LibraryRows } from "../../db/repositories/library-plan.repository";
import { requireAdmin, type Actor, type RequestContext } from "../access";

/** The most a library shard (a SQLite-backed Durable Object) may hold. */
export const SHARD_LIMIT_BYTES = 10 * 1000 ** 3;

export interface LibraryShardPlanEntry {
  id: string;
  name: string;
  folders: number;
  memberships: number;
  assets: number;
  assets_shared: number;
  versions: number;
  variants: number;
  file_bytes: number;
  previews: number;
  comments: number;
  field_values: number;
  rules: number;
  links: number;
  rows: number;
  bytes_estimate: number;
  /** where its move into a shard stands (null: it lives in the catalog, never moved) */
  move: LibraryMoveStatus | null;
}

export interface LibraryMoveStatus {
  shard: number;
  state: MoveState;
  step: MoveStep;
  /** the last difference the move's check found (it then copied the library again), or null */
  error: string | null;
  started_at: string;
  switched_at: string | null;
}

export interface LibraryShardPlan {
  libraries: LibraryShardPlanEntry[];
  assets_unplaced: number;
  catalog_bytes: number;
  shard_limit_bytes: number;
}

/** The rows moving a library would move: its folders, listings and assets with everything hanging on them. */
function rowsOf(l: LibraryRows): number {
  return l.folders + l.memberships + l.assets + l.versions + l.variants + l.previews + l.comments + l.fieldValues + l.rules + l.links;
}

function statusOf(move: Awaited<ReturnType<typeof listMoves>>[number] | undefined): LibraryMoveStatus | null {
  if (!move) return null;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    shard: move.shard,
    state: move.state,
    step: move.step,
    error: move.error,
    started_at: iso(move.startedAt)!,
    switched_at: iso(move.switchedAt),
  };
}

/**
 * The dry run of moving each library into its own shard (decision 043, issue 40 item 4), for administrators: what
 * each library holds, how many of its assets are listed in other libraries too (each such asset is read from more
 * than one shard once they move), and its share of the catalog's bytes — estimated by its share of the rows counted,
 * each row weighing the catalog's average — beside the 10 GB a shard may hold — and where its move stands, if one
 * was started (the `library-move` task). Nothing is written.
 */
export async function libraryShardPlan(rc: RequestContext, actor: Actor): Promise<LibraryShardPlan> {
  requireAdmin(actor);
  const [plan, moves] = await Promise.all([libraryPlanRows(rc.db), listMoves(rc.env.DB)]);
  const moveOf = new Map(moves.map((m) => [m.libraryId, m]));
  const counted = plan.libraries.reduce((sum, l) => sum + rowsOf(l), 0) + plan.unplaced;
  const perRow = counted > 0 ? plan.catalogBytes / counted : 0;
  return {
    libraries: plan.libraries.map((l) => ({
      id: l.id,
      name: l.name,
      folders: l.folders,
      memberships: l.memberships,
      assets: l.assets,
      assets_shared: l.shared,
      versions: l.versions,
      variants: l.variants,
      file_bytes: l.fileBytes,
      previews: l.previews,
      comments: l.comments,
      field_values: l.fieldValues,
      rules: l.rules,
      links: l.links,
      rows: rowsOf(l),
      bytes_estimate: Math.round(rowsOf(l) * perRow),
      move: statusOf(moveOf.get(l.id)),
    })),
    assets_unplaced: plan.unplaced,
    catalog_bytes: plan.catalogBytes,
    shard_limit_bytes: SHARD_LIMIT_BYTES,
  };
}
