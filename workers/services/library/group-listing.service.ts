/**
 * Reading a group's contents: members pages (cursor or skip), the directory form, previews. Nothing here
 * changes a group.
 */
import { ru } from "../../../shared/i18n/ru";
import type { ReviewStatus } from "../../../shared/review-status";
import { commentCountsOf, type CommentCounts } from "../../../shared/comment-counts";
import * as repo from "../../db/repositories/group.repository";
import * as pagesRepo from "../../db/repositories/group-pages.repository";
import { AppError } from "../../lib/errors";
import { toIso } from "../../lib/time";
import { passesReadDown, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { pageBySkip } from "./member-seek.service";
import {
  decodeCursor,
  encodeCursor,
  previewRef,
  sortKeyOf,
  type ListedType,
  type MemberCursor,
  type MemberSort,
  type SortOrder,
} from "./group-tree";
import { GROUP_PAGE_SIZE, type Paging } from "./group.service";
import { loadGroup } from "./group-guard";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { listsTopMost, topEntries, type TopEntriesRead } from "./root-listing.service";

/** A tag as listings show it. */
export interface MemberTag {
  tag_id: string;
  tag_name: string;
}

export interface AssetMemberInfo {
  name: string;
  mimetype: string;
  ctime: string | null;
  mtime: string | null;
  /** latest version number (0 while the asset has no bytes) */
  ver: number;
  /** main variant of the latest version ('master', else 'initial') */
  var: string | null;
  var_size: number | null;
  var_hash: string | null;
  owner: string;
  owner_name: string | null;
  /** root-relative thumbnail reference, null without a preview */
  preview: string | null;
  /** its tags, by name (an extension of SPEC's el_info: the list view shows them) */
  tags: MemberTag[];
  /** current review status of the latest version (decision record 036) */
  review_status: ReviewStatus | null;
  /** all comments on the file and the unresolved ones (decision record 035; the tile's badge) */
  comments: CommentCounts;
}

export interface GroupMemberInfo {
  name: string;
  ctime: string | null;
  mtime: string | null;
  owner: string | null;
  owner_name: string | null;
  /** live sub-groups */
  groups: number;
  /** assets listed in it */
  assets: number;
  tags: MemberTag[];
}

/** A member of a group (SPEC §3 Group member). */
export type GroupMember =
  | { el_id: string; el_type: "asset"; el_info: AssetMemberInfo }
  | { el_id: string; el_type: "group"; el_info: GroupMemberInfo };

export interface MembersQuery {
  type?: ListedType;
  sort?: MemberSort;
  order?: SortOrder;
  /** name contains (case-insensitive) */
  q?: string;
  /** MIME prefix, e.g. "video/" (lists assets only) */
  mime?: string;
  /** review status of the latest version, "none" for none yet (lists assets only) */
  review?: ReviewStatus | "none";
  skip?: number;
  take?: number;
  /** cursor from the previous page's `nextCursor` */
  after?: string;
}

export interface MembersPage {
  items: GroupMember[];
  /** cursor of the next page when this one is full, else null */
  nextCursor: string | null;
}

/** The tie-breaker slot of a root cursor (the root's own id, never a member): its key is the next page's offset. */
const ROOT_CURSOR = ROOT_GROUP_ID;

const SORT_COLUMN: Record<MemberSort, pagesRepo.MemberSortColumn> = { name: "sort_name", mtime: "el_mtime", size: "el_size" };

type Keyed<T> = { item: T; key: string | number };

function assetMember(r: pagesRepo.AssetMemberRow): GroupMember {
  return {
    el_id: r.el_id,
    el_type: "asset",
    el_info: {
      name: r.name,
      mimetype: r.mime,
      ctime: toIso(r.ctime),
      mtime: toIso(r.mtime),
      ver: r.ver,
      var: r.var,
      var_size: r.var_size,
      var_hash: r.var_hash,
      owner: r.owner_id,
      owner_name: r.owner_name,
      preview: r.has_preview ? previewRef(r.el_id, r.ver) : null,
      tags: [],
      review_status: r.review_status ?? null,
      comments: commentCountsOf(r),
    },
  };
}

function groupMember(r: pagesRepo.GroupMemberRow): GroupMember {
  return {
    el_id: r.el_id,
    el_type: "group",
    el_info: {
      name: r.name,
      ctime: toIso(r.ctime),
      mtime: toIso(r.mtime),
      owner: r.owner_id,
      owner_name: r.owner_name,
      groups: r.groups,
      assets: r.assets,
      tags: [],
    },
  };
}

/**
 * GET /members/{id}: one page of a group's members with `el_info`, groups before assets. With `after` the page
 * is an index range scan from the cursor (cost independent of depth); without, `skip` offsets. `id` may be the
 * virtual root (its top-level groups). Only what the actor may read is listed.
 * @example const { items, nextCursor } = await listMembers(rc, actor, groupId, { sort: "name", take: 50 })
 */
export async function listMembers(
  rc: RequestContext,
  actor: Actor,
  groupId: string,
  query: MembersQuery = {},
  top: TopEntriesRead = (q, page) => topEntries(rc, actor, q, page, "all"),
): Promise<MembersPage> {
  const sort = query.sort ?? "name";
  const order = query.order ?? "asc";
  const take = query.take ?? GROUP_PAGE_SIZE;
  let skip = query.skip ?? 0;
  const types: ListedType[] = query.type ? [query.type] : query.mime || query.review ? ["asset"] : ["group", "asset"];
  let cursor: MemberCursor | null = null;
  if (query.after !== undefined) {
    if (skip > 0) throw new AppError("BAD_REQUEST", ru.groups.skipWithCursor);
    cursor = decodeCursor(query.after);
    if (!cursor) throw new AppError("BAD_REQUEST", ru.groups.badCursor);
    if (cursor.s !== sort || cursor.o !== order || !types.includes(cursor.t)) throw new AppError("BAD_REQUEST", ru.groups.cursorMismatch);
  }
  await loadGroup(rc, actor, groupId, "read");
  const vis = await visibility(rc, actor);
  if (groupId === ROOT_GROUP_ID && vis && listsTopMost(vis)) {
    // The root of a filtered caller lists the top-most entities they read (by name); its cursor carries the offset.
    const start = cursor ? Number(cursor.k) : skip;
    if (cursor && (cursor.i !== ROOT_CURSOR || !Number.isSafeInteger(start) || start < 0))
      throw new AppError("BAD_REQUEST", ru.groups.badCursor);
    const found = await top(
      {
        types,
        q: query.q ? sortKeyOf(query.q) : undefined,
        mime: query.mime ? query.mime.toLowerCase() : undefined,
        review: query.review,
      },
      { skip: start, take },
    );
    const items = found.map(({ group, asset, tags }) => {
      const member = group ? groupMember(group) : assetMember(asset!);
      member.el_info.tags.push(...tags.sort((a, b) => TAG_ORDER.compare(a.tag_name, b.tag_name)));
      return member;
    });
    const last = items.at(-1);
    const nextCursor =
      items.length === take && last
        ? encodeCursor({ s: sort, o: order, t: last.el_type, k: sort === "name" ? String(start + take) : start + take, i: ROOT_CURSOR })
        : null;
    return { items, nextCursor };
  }

  const base = {
    groupId,
    sortColumn: SORT_COLUMN[sort],
    desc: order === "desc",
    q: query.q ? sortKeyOf(query.q) : undefined,
    mime: query.mime ? query.mime.toLowerCase() : undefined,
    review: query.review,
    vis,
    parentPassesRead: await passesReadDown(rc, actor, groupId),
    withComments: true,
  };
  const keyOf = (r: { sort_name: string; el_mtime: number; el_size: number }) =>
    sort === "name" ? r.sort_name : sort === "mtime" ? r.el_mtime : r.el_size;
  const page: Keyed<GroupMember>[] = [];
  if (!cursor && skip === 0 && types.length === 2) {
    // The first page of a folder, the common case: its groups and its files are read together, each row with its
    // tags (one round trip instead of three, decision 030); the file rows the groups leave no room for are dropped.
    const first = { ...base, after: null, skip: 0, take, withTags: true };
    const [groupRows, assetRows] = await Promise.all([
      pageBySkip<pagesRepo.GroupMemberRow>(rc.db, "group", first, pagesRepo.groupMembersPageSql),
      pageBySkip<pagesRepo.AssetMemberRow>(rc.db, "asset", first, pagesRepo.assetMembersPageSql),
    ]);
    page.push(...groupRows.map((r) => ({ item: withRowTags(groupMember(r), r.tags_json), key: keyOf(r) })));
    page.push(...assetRows.slice(0, take - page.length).map((r) => ({ item: withRowTags(assetMember(r), r.tags_json), key: keyOf(r) })));
    const last = page.at(-1);
    const nextCursor =
      page.length === take && last ? encodeCursor({ s: sort, o: order, t: last.item.el_type, k: last.key, i: last.item.el_id }) : null;
    return { items: page.map((p) => p.item), nextCursor };
  } else
    for (const type of types) {
      const remaining = take - page.length;
      if (remaining === 0) break;
      // A cursor in the asset phase means the groups are done.
      if (cursor && cursor.t === "asset" && type === "group") continue;
      const after = cursor && cursor.t === type ? { key: cursor.k, id: cursor.i } : null;
      const options = { ...base, after, skip: after ? 0 : skip, take: remaining };
      if (type === "group") {
        const rows = await pageBySkip<pagesRepo.GroupMemberRow>(rc.db, "group", options, pagesRepo.groupMembersPageSql);
        page.push(...rows.map((r) => ({ item: groupMember(r), key: keyOf(r) })));
        if (!cursor && skip > 0 && rows.length < remaining) {
          // The page reached past the groups: continue into the assets, skipping what the groups did not use up.
          const groupCount = rows.length > 0 ? skip + rows.length : await pagesRepo.countGroupMembers(rc.db, base);
          skip = Math.max(0, skip - groupCount);
        }
      } else {
        const rows = await pageBySkip<pagesRepo.AssetMemberRow>(rc.db, "asset", options, pagesRepo.assetMembersPageSql);
        page.push(...rows.map((r) => ({ item: assetMember(r), key: keyOf(r) })));
      }
    }
  await attachTags(
    rc,
    page.map((p) => p.item),
  );
  const last = page.at(-1);
  const nextCursor =
    page.length === take && last ? encodeCursor({ s: sort, o: order, t: last.item.el_type, k: last.key, i: last.item.el_id }) : null;
  return { items: page.map((p) => p.item), nextCursor };
}

/** Fills each member's `tags` with one query for the whole page. */
async function attachTags(rc: RequestContext, members: GroupMember[]): Promise<void> {
  if (members.length === 0) return;
  const rows = await repo.tagsOfEntities(
    rc.db,
    members.map((m) => m.el_id),
  );
  const byEntity = new Map(members.map((m) => [m.el_id, m.el_info.tags]));
  for (const r of rows) byEntity.get(r.entity_id)?.push({ tag_id: r.tag_id, tag_name: r.tag_name });
  // SQLite's lower() folds ASCII only: Cyrillic names are put in order here.
  for (const list of byEntity.values()) list.sort((a, b) => TAG_ORDER.compare(a.tag_name, b.tag_name));
}

const TAG_ORDER = new Intl.Collator("ru", { sensitivity: "base" });

/** A member with the tags its row carried (`withTags`), in the order `attachTags` gives them. */
function withRowTags(member: GroupMember, tagsJson: string | undefined): GroupMember {
  const tags = JSON.parse(tagsJson ?? "[]") as { tag_id: string; tag_name: string }[];
  member.el_info.tags.push(...tags.sort((a, b) => TAG_ORDER.compare(a.tag_name, b.tag_name)));
  return member;
}

/** A directory entry (SPEC §3) of `GET /dir/{id}`. */
export interface DirectoryEntry {
  id: string;
  type: "asset" | "group";
  name: string;
  ctime: string | null;
  mtime: string | null;
  atime: string | null;
  mime: string | null;
  size: number | null;
  ver: number | null;
  var: string | null;
  var_hash: string | null;
}

/** GET /dir/{id}: the group as a directory listing (groups, then assets, by name; skip/take). */
export async function listDirectory(rc: RequestContext, actor: Actor, id: string, paging: Paging = {}): Promise<DirectoryEntry[]> {
  await loadGroup(rc, actor, id, "read");
  const take = paging.take ?? GROUP_PAGE_SIZE;
  let skip = paging.skip ?? 0;
  const base = {
    groupId: id,
    sortColumn: "sort_name" as const,
    desc: false,
    vis: await visibility(rc, actor),
    parentPassesRead: await passesReadDown(rc, actor, id),
  };
  const groupRows = await pageBySkip<pagesRepo.GroupMemberRow>(rc.db, "group", { ...base, skip, take }, pagesRepo.groupMembersPageSql);
  const entries: DirectoryEntry[] = groupRows.map((g) => ({
    id: g.el_id,
    type: "group",
    name: g.name,
    ctime: toIso(g.ctime),
    mtime: toIso(g.mtime),
    atime: toIso(g.mtime),
    mime: null,
    size: null,
    ver: null,
    var: null,
    var_hash: null,
  }));
  if (entries.length < take) {
    const groupCount = groupRows.length > 0 || skip === 0 ? skip + groupRows.length : await pagesRepo.countGroupMembers(rc.db, base);
    skip = Math.max(0, skip - groupCount);
    const assetRows = await pageBySkip<pagesRepo.AssetMemberRow>(
      rc.db,
      "asset",
      { ...base, skip, take: take - entries.length },
      pagesRepo.assetMembersPageSql,
    );
    for (const a of assetRows) {
      entries.push({
        id: a.el_id,
        type: "asset",
        name: a.name,
        ctime: toIso(a.ctime),
        mtime: toIso(a.mtime),
        atime: toIso(a.atime),
        mime: a.mime,
        size: a.var_size,
        ver: a.ver,
        var: a.var,
        var_hash: a.var_hash,
      });
    }
  }
  return entries;
}

/** GET /preview-list/{id}: thumbnail references of one page of the group's assets (by name). */
export async function listPreviews(
  rc: RequestContext,
  actor: Actor,
  id: string,
  paging: Paging,
  baseUrl: string,
): Promise<{ base_url: string; list: { el_id: string; preview: string | null }[] }> {
  await loadGroup(rc, actor, id, "read");
  const options = {
    groupId: id,
    sortColumn: "sort_name" as const,
    desc: false,
    vis: await visibility(rc, actor),
    parentPassesRead: await passesReadDown(rc, actor, id),
    skip: paging.skip ?? 0,
    take: paging.take ?? GROUP_PAGE_SIZE,
  };
  const rows = await pageBySkip<pagesRepo.AssetMemberRow>(rc.db, "asset", options, pagesRepo.assetMembersPageSql);
  return { base_url: baseUrl, list: rows.map((r) => ({ el_id: r.el_id, preview: r.has_preview ? previewRef(r.el_id, r.ver) : null })) };
}
