/**
 * «Доступные Файлы» for a user who is neither an administrator nor confined: the top-most folders and files they
 * read, wherever they sit in the tree (decision record 007, "The virtual root"). `GET /roots`, `GET /acl-roots`,
 * `GET /members/{root}` and the root screen all answer from here, so they agree.
 */
import type { ReviewStatus } from "../../../shared/review-status";
import * as rootRepo from "../../db/repositories/root-listing.repository";
import type { Visibility } from "../../db/repositories/access.repository";
import { ROOT_GROUP_ID } from "../../lib/ids";
import type { RequestContext } from "../access";
import type { ListedType } from "./group-tree";

export type RootGroupRow = rootRepo.RootGroupRow;
export type RootAssetRow = rootRepo.RootAssetRow;

/** Whether this caller's root is the "top-most readable" listing (not everything, not their chroot groups). */
export function listsTopMost(vis: Visibility): boolean {
  return vis.chroot.length === 0 && (vis.scope ?? []).length === 0;
}

/** One page of top-most groups, by name. */
export function topGroups(rc: RequestContext, vis: Visibility, paging: { skip: number; take: number; q?: string }) {
  return rootRepo.rootGroupsPage(rc.db, { vis, rootId: ROOT_GROUP_ID, ...paging });
}

export interface RootPage {
  groups: RootGroupRow[];
  assets: RootAssetRow[];
}

/**
 * One page of the root's members, groups first then files, each by name. A skip that reaches past the groups
 * costs one count of them (the second statement); a page that starts among the groups and ends among the files
 * takes the files from the start.
 */
export async function topMembers(
  rc: RequestContext,
  vis: Visibility,
  o: { types: ListedType[]; q?: string; mime?: string; review?: ReviewStatus | "none"; skip: number; take: number },
): Promise<RootPage> {
  const base = { vis, rootId: ROOT_GROUP_ID, q: o.q };
  const page: RootPage = { groups: [], assets: [] };
  let skip = o.skip;
  if (o.types.includes("group")) {
    page.groups = await rootRepo.rootGroupsPage(rc.db, { ...base, skip, take: o.take });
    if (page.groups.length === o.take) return page;
    skip = page.groups.length > 0 || skip === 0 ? 0 : Math.max(0, skip - (await rootRepo.countRootGroups(rc.db, base)));
  }
  if (o.types.includes("asset")) {
    page.assets = await rootRepo.rootAssetsPage(rc.db, { ...base, mime: o.mime, review: o.review, skip, take: o.take - page.groups.length });
  }
  return page;
}
