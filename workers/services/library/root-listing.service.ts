/**
 * «Доступные Файлы» for a user who is neither an administrator nor confined: the top-most folders and files they
 * read, wherever they sit in the tree (decision record 007, "The virtual root"). `GET /roots`, `GET /acl-roots`,
 * `GET /members/{root}` and the root screen all answer from here, so they agree.
 */
import type { ReviewStatus } from "../../../shared/review-status";
import * as rootRepo from "../../db/repositories/root-listing.repository";
import type { Visibility } from "../../db/repositories/access.repository";
import { tagsOfEntities } from "../../db/repositories/group.repository";
import type { LibraryScope } from "../../db/repositories/library-scope";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { visibility, type Actor, type RequestContext } from "../access";
import type { ListedType } from "./group-tree";

/** A window of the listing (the caller's page, or every library's first entries up to it). */
type Paging = { skip: number; take: number };

export type RootGroupRow = rootRepo.RootGroupRow;
export type RootAssetRow = rootRepo.RootAssetRow;

/** Whether this caller's root is the "top-most readable" listing (not everything, not their chroot groups). */
export function listsTopMost(vis: Visibility): boolean {
  return vis.chroot.length === 0 && (vis.scope ?? []).length === 0;
}

/** What the root listing is asked for (`topMembers`). */
export interface TopQuery {
  types: ListedType[];
  /** lower-cased substring of the name */
  q?: string;
  /** lower-cased MIME prefix (files only) */
  mime?: string;
  review?: ReviewStatus | "none";
}

export interface RootPage {
  groups: RootGroupRow[];
  assets: RootAssetRow[];
}

/**
 * One page of the root's members, groups first then files, each by name. A skip that reaches past the groups
 * costs one count of them (the second statement); a page that starts among the groups and ends among the files
 * takes the files from the start. `scope` names the libraries listed (decision 051): all of them unless told.
 */
async function topMembers(rc: RequestContext, vis: Visibility, o: TopQuery & Paging & { scope?: LibraryScope }): Promise<RootPage> {
  const base = { vis, rootId: ROOT_GROUP_ID, q: o.q, scope: o.scope };
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

/** An entry of the root listing: a folder's or a file's row with its tags, and its key in the list's order. */
export interface TopEntry {
  sort: string;
  id: string;
  group: RootGroupRow | null;
  asset: RootAssetRow | null;
  tags: { tag_id: string; tag_name: string }[];
}

/**
 * How the root listing of a caller who lists the top-most he reads is read: over the catalog (`topEntries`), or where
 * each library lives (the API's and the pages', decision 051).
 */
export type TopEntriesRead = (query: TopQuery, page: Paging) => Promise<TopEntry[]>;

/**
 * A page of the root listing of the libraries `scope` names, as `actor` (who lists the top-most folders and files he
 * reads), each entry with its tags — read where its library lives, so the tags are its library's own.
 */
export async function topEntries(rc: RequestContext, actor: Actor, query: TopQuery, page: Paging, scope: LibraryScope): Promise<TopEntry[]> {
  const vis = await visibility(rc, actor);
  if (!vis || !listsTopMost(vis)) return [];
  const found = await topMembers(rc, vis, { ...query, ...page, scope });
  const entries: TopEntry[] = [
    ...found.groups.map((group) => ({ sort: group.sort_name, id: group.el_id, group, asset: null, tags: [] })),
    ...found.assets.map((asset) => ({ sort: asset.sort_name, id: asset.el_id, group: null, asset, tags: [] })),
  ];
  if (entries.length === 0) return entries;
  const byId = new Map(entries.map((entry) => [entry.id, entry.tags]));
  for (const row of await tagsOfEntities(rc.db, [...byId.keys()])) byId.get(row.entity_id)?.push({ tag_id: row.tag_id, tag_name: row.tag_name });
  return entries;
}
