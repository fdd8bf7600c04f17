/**
 * An export task's archive where its libraries live (decision 051, step 2.1). A task's selection may hold 200,000
 * files (`ZIP_TASK_MAX_FILES`): more than one call into a shard carries as one plan, so it is not asked of the shard in
 * one call as a request's ZIP is (`zipPlan`). Each library's share is planned in the Worker over its shard instead —
 * every statement one call, none answering more than a page of a folder's files (`ZIP_MEMBERS_PAGE`), the owner's
 * access decided there by the same checks — and, as the archive streams, where each file's bytes are is asked where
 * the file lives, a slice at a time.
 */
import { selectionListsShared } from "../../db/library-shared-files";
import { noLibrarySwitched, placesOfIds, sharesByPlace, type LibraryPlace, type ShardPlace } from "../../db/library-directory";
import type { Database } from "../../db/client";
import { callerCopyOf } from "../../db/repositories/caller-copy.repository";
import { findGroups } from "../../db/repositories/group.repository";
import { selectZipVariants, type ZipVariantRow } from "../../db/repositories/zip-selection.repository";
import { AppError } from "../../lib/errors";
import { ru } from "../../../shared/i18n/ru";
import type { Actor, RequestContext } from "../access";
import { runOverShard, shardReader } from "../library";
import { mergeZipPlans, planZip, type ZipPlan, type ZipSelection } from "./zip-plan.service";

/** The chosen files and folders grouped by where their libraries live, in the order chosen. */
function sharesOf(selection: ZipSelection, places: Map<string, LibraryPlace>) {
  const chosen = [...selection.assetIds.map((id) => ({ id, file: true })), ...selection.groupIds.map((id) => ({ id, file: false }))];
  return sharesByPlace(chosen, ({ id }) => places.get(id)!).map(({ place, items }) => ({
    place,
    part: { assetIds: items.filter((i) => i.file).map((i) => i.id), groupIds: items.filter((i) => !i.file).map((i) => i.id) },
  }));
}

/**
 * The plan of an export's archive, checked as `owner`: each library's share planned where it lives, one after the
 * other with what is left of `maxFiles` (the plans are held in memory: a selection over many large libraries stops at
 * the bound, not at each library's), and the plans merged as a request's are (`mergeZipPlans`). A share naming a file
 * listed in another library too, or a folder whose subtree lists one, is planned over the catalog's copy (decision
 * 047), as are libraries still there.
 */
export async function planExport(
  rc: RequestContext,
  owner: Actor,
  selection: ZipSelection,
  maxFiles: number,
  options: { recursive: boolean },
): Promise<ZipPlan> {
  const ids = [...selection.assetIds, ...selection.groupIds];
  if (noLibrarySwitched() || ids.length === 0) return planZip(rc, owner, selection, maxFiles, options);
  const plans: ZipPlan[] = [];
  let left = maxFiles;
  for (const { place, part } of sharesOf(selection, await placesOfIds(rc.db.$client, ids))) {
    const there = place.place === "shard" ? await planOverShard(rc, owner, place, part, left, options) : null;
    const plan = there ?? (await planZip(rc, owner, part, left, options));
    plans.push(plan);
    if (plan.overflow) break;
    left -= plan.files.length;
  }
  return mergeZipPlans(plans, maxFiles);
}

async function planOverShard(
  rc: RequestContext,
  owner: Actor,
  place: ShardPlace,
  part: ZipSelection,
  maxFiles: number,
  options: { recursive: boolean },
): Promise<ZipPlan | null> {
  const caller = await callerCopyOf(rc, rc.db, owner.id);
  if (!caller) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return runOverShard(rc, place, { caller, globals: [] }, async (over) =>
    (await selectionListsShared(over.db, part.groupIds, part.assetIds)) ? null : planZip(over, owner, part, maxFiles, options),
  );
}

/**
 * Where planned files' bytes are (their ready variants), each file's asked where its library lives now (`planStream`'s
 * lookup): the catalog's for libraries still there, one statement into each shard for the rest, side by side.
 */
export function variantsWhereTheyLive(rc: RequestContext): (ids: string[]) => Promise<ZipVariantRow[]> {
  const readers = new Map<string, Promise<Database>>();
  return (ids) => rowsWhereTheyLive(rc, ids, readers, selectZipVariants);
}

/**
 * Which of an export's folders are still there (not deleted, not in the trash) when its run starts, each asked where
 * its library lives.
 */
export async function liveFoldersWhereTheyLive(rc: RequestContext, ids: string[]): Promise<Set<string>> {
  const rows = await rowsWhereTheyLive(rc, ids, new Map(), findGroups);
  return new Set(rows.filter((g) => g.deleted_at == null).map((g) => g.id));
}

/**
 * Rows of folders or files `ids` read by `read` where each one's library lives: over the catalog for libraries still
 * there, over a reader of each shard (`shardReader`: no caller, nothing written; one kept per shard in `readers`) for
 * the rest, side by side.
 */
async function rowsWhereTheyLive<T>(
  rc: RequestContext,
  ids: string[],
  readers: Map<string, Promise<Database>>,
  read: (db: Database, ids: string[]) => Promise<T[]>,
): Promise<T[]> {
  if (noLibrarySwitched()) return read(rc.db, ids);
  const places = await placesOfIds(rc.db.$client, ids);
  const rows = await Promise.all(
    sharesByPlace(ids, (id) => places.get(id)!).map(async ({ place, items }) => {
      if (place.place !== "shard") return read(rc.db, items);
      if (!readers.has(place.library)) readers.set(place.library, shardReader(rc, place));
      return read(await readers.get(place.library)!, items);
    }),
  );
  return rows.flat();
}
