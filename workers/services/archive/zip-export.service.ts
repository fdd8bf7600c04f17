/**
 * An export task's archive where its libraries live (decision 051, step 2.1). A task's selection may hold 200,000
 * files (`ZIP_TASK_MAX_FILES`): more than one call into a shard carries as one plan, so it is not asked of the shard in
 * one call as a request's ZIP is (`zipPlan`). Each library's share is planned in the Worker over its shard instead —
 * every statement one call, none answering more than a page of a folder's files (`ZIP_MEMBERS_PAGE`), the owner's
 * access decided there by the same checks — and, as the archive streams, where each file's bytes are is asked where
 * the file lives, a slice at a time.
 */
import { selectionListsShared } from "../../db/library-shared-files";
import { noLibrarySwitched, placesOfIds, type LibraryPlace, type ShardPlace } from "../../db/library-directory";
import type { Database } from "../../db/client";
import { callerCopyOf } from "../../db/repositories/caller-copy.repository";
import { selectZipVariants, type ZipVariantRow } from "../../db/repositories/zip-selection.repository";
import { AppError } from "../../lib/errors";
import { ru } from "../../../shared/i18n/ru";
import type { Actor, RequestContext } from "../access";
import { runOverShard, shardReader } from "../library";
import { mergeZipPlans, planZip, type ZipPlan, type ZipSelection } from "./zip-plan.service";

/** The chosen files and folders grouped by where their libraries live, in the order chosen. */
function sharesOf(selection: ZipSelection, places: Map<string, LibraryPlace>) {
  const shares = new Map<string, { place: LibraryPlace; part: { assetIds: string[]; groupIds: string[] } }>();
  const add = (id: string, kind: "assetIds" | "groupIds") => {
    const place = places.get(id)!;
    const key = place.place === "shard" ? place.library : "";
    const share = shares.get(key) ?? { place, part: { assetIds: [], groupIds: [] } };
    share.part[kind].push(id);
    shares.set(key, share);
  };
  for (const id of selection.assetIds) add(id, "assetIds");
  for (const id of selection.groupIds) add(id, "groupIds");
  return [...shares.values()];
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
  return async (ids) => {
    if (noLibrarySwitched()) return selectZipVariants(rc.db, ids);
    const places = await placesOfIds(rc.db.$client, ids);
    const here: string[] = [];
    const there = new Map<string, { place: ShardPlace; ids: string[] }>();
    for (const id of ids) {
      const place = places.get(id)!;
      if (place.place !== "shard") here.push(id);
      else there.set(place.library, { place, ids: [...(there.get(place.library)?.ids ?? []), id] });
    }
    const rows = await Promise.all([
      here.length > 0 ? selectZipVariants(rc.db, here) : [],
      ...[...there.values()].map(async ({ place, ids: theirs }) => {
        if (!readers.has(place.library)) readers.set(place.library, shardReader(rc, place));
        return selectZipVariants(await readers.get(place.library)!, theirs);
      }),
    ]);
    return rows.flat();
  };
}
