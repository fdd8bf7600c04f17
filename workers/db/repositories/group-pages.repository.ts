/** Pages of a group's members (by skip or from a seek cursor), with visibility in the SQL. */
import { sql, type SQL } from "drizzle-orm";
import type { ReviewStatus } from "../../../shared/review-status";
import { CURRENT_REVIEW_STATUS, reviewStatusIs } from "./review.repository";
import { COMMENT_COUNTS } from "./comment.repository";
import type { Database } from "../client";
import { visibleMemberSql, type Visibility } from "./access.repository";
import { seekPick } from "./member-seek.repository";
import { MAIN_VARIANT } from "./group.repository";

export type MemberSortColumn = "sort_name" | "el_mtime" | "el_size";

export interface MemberPageOptions {
  groupId: string;
  sortColumn: MemberSortColumn;
  desc: boolean;
  /** key-based paging: members strictly after this (key, id) in the page order */
  after?: { key: string | number; id: string } | null;
  skip: number;
  take: number;
  /** lower-cased substring of the name */
  q?: string;
  /** lower-cased MIME prefix (assets only) */
  mime?: string;
  /** review status of the latest version (assets only; "none": no decision yet) */
  review?: ReviewStatus | "none";
  /** visibility of the caller (null: everything) */
  vis: Visibility | null;
  /** the group passes read down to the caller (access.service `passesReadDown`): inheriting members need no walk */
  parentPassesRead?: boolean;
  /**
   * `skip` from a seek list's checkpoint (decision record 017) instead of from the first member: the page starts
   * after the nearest boundary with at most `skip` members up to it and offsets only the rest.
   */
  seekList?: string;
  /** each row also carries its tags, as a JSON array of {tag_id, tag_name} in `tags_json` (one round trip less) */
  withTags?: boolean;
  /** each file row also carries its comment counts (`comments_total`, `comments_open`): the tiles show them */
  withComments?: boolean;
}

/** The `tags_json` column of `withTags`: a correlated lookup per listed row, on the `entity_tags` primary key. */
function tagsColumn(o: MemberPageOptions): SQL {
  return o.withTags
    ? sql`, (select json_group_array(json_object('tag_id', t.id, 'tag_name', t.name)) from entity_tags e join tags t on t.id = e.tag_id where e.entity_id = m.el_id) as tags_json`
    : sql``;
}

/** The comment counts of `withComments`: two index-only counts per listed file (comment.repository). */
function commentsColumns(o: MemberPageOptions): SQL {
  return o.withComments ? sql`, ${COMMENT_COUNTS}` : sql``;
}

function pageClauses(o: MemberPageOptions) {
  const col = sql.raw(`m.${o.sortColumn}`);
  const where: SQL[] = [];
  if (o.after) {
    where.push(
      o.desc ? sql`(${col}, m.el_id) < (${o.after.key}, ${o.after.id})` : sql`(${col}, m.el_id) > (${o.after.key}, ${o.after.id})`,
    );
  }
  let offset: SQL = sql`${o.after ? 0 : o.skip}`;
  if (!o.after && o.seekList) {
    const key = seekPick(o.seekList, o.skip, "sort_key");
    const id = seekPick(o.seekList, o.skip, "el_id");
    where.push(o.desc ? sql`(${col}, m.el_id) < (${key}, ${id})` : sql`(${col}, m.el_id) > (${key}, ${id})`);
    // Without a checkpoint the boundary is null and the page empty; the offset must still be an integer.
    offset = sql`${o.skip} - coalesce(${seekPick(o.seekList, o.skip, "n")}, ${o.skip})`;
  }
  if (o.q) where.push(sql`instr(m.sort_name, ${o.q}) > 0`);
  const dir = sql.raw(o.desc ? "desc" : "asc");
  const order = sql`order by ${col} ${dir}, m.el_id ${dir} limit ${o.take} offset ${offset}`;
  return { where, order };
}

export interface AssetMemberRow {
  el_id: string;
  sort_name: string;
  el_mtime: number;
  el_size: number;
  name: string;
  mime: string;
  ctime: number;
  mtime: number;
  atime: number;
  owner_id: string;
  owner_name: string | null;
  ver: number;
  var: string | null;
  var_size: number | null;
  var_hash: string | null;
  has_preview: number;
  /** current review status of the latest version */
  review_status: ReviewStatus | null;
  tags_json?: string;
  /** with `withComments`: all comments on the file, and the unresolved ones */
  comments_total?: number;
  comments_open?: number;
}

/**
 * One page of a group's assets with everything `el_info` shows, in one statement: the membership index range
 * (`group_members_by_*`, `trashed_at is null`) drives the loop (`cross join` fixes the join order), the asset,
 * its owner, its main variant and whether it has a preview come from primary-key and indexed lookups.
 */
export function assetMembersPageSql(o: MemberPageOptions): SQL {
  const { where, order } = pageClauses(o);
  if (o.mime) where.push(sql`lower(substr(a.mime, 1, ${o.mime.length})) = ${o.mime}`);
  if (o.review) where.push(reviewStatusIs(o.review));
  if (o.vis) where.push(visibleMemberSql(o.vis, "asset", sql`a.id`, sql`a.owner_id`, o.parentPassesRead ?? false));
  const extra = where.length ? sql` and ${sql.join(where, sql` and `)}` : sql``;
  return sql`select m.el_id, m.sort_name, m.el_mtime, m.el_size, a.name, a.mime, a.ctime, a.mtime, a.atime, a.owner_id,
      u.name as owner_name, a.latest_version as ver, mv.id as var, mv.content_size as var_size, mv.sha256 as var_hash,
      exists (select 1 from previews p where p.asset_id = a.id) as has_preview, ${CURRENT_REVIEW_STATUS} as review_status${tagsColumn(o)}${commentsColumns(o)}
    from group_members m
    cross join assets a on a.id = m.el_id
    left join users u on u.id = a.owner_id
    left join variants mv on mv.id = ${MAIN_VARIANT}
    where m.group_id = ${o.groupId} and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null${extra}
    ${order}`;
}

export function assetMembersPage(db: Database, o: MemberPageOptions) {
  return db.all<AssetMemberRow>(assetMembersPageSql(o));
}

export interface GroupMemberRow {
  el_id: string;
  sort_name: string;
  el_mtime: number;
  el_size: number;
  name: string;
  ctime: number;
  mtime: number;
  owner_id: string | null;
  owner_name: string | null;
  groups: number;
  assets: number;
  tags_json?: string;
}

/**
 * One page of a group's sub-groups with their owner and live member counts, in one statement (see
 * assetMembersPageSql). The counts are each sub-group's rollup row (decision record 017), not a count of its
 * memberships: a page beside a folder of 100,000 files stays a few rows.
 */
export function groupMembersPageSql(o: MemberPageOptions): SQL {
  const { where, order } = pageClauses(o);
  if (o.vis) where.push(visibleMemberSql(o.vis, "group", sql`g.id`, sql`g.owner_id`, o.parentPassesRead ?? false));
  const extra = where.length ? sql` and ${sql.join(where, sql` and `)}` : sql``;
  return sql`select m.el_id, m.sort_name, m.el_mtime, m.el_size, g.name, g.ctime, g.mtime, g.owner_id, u.name as owner_name,
      coalesce(r.groups, 0) as groups, coalesce(r.assets, 0) as assets${tagsColumn(o)}
    from group_members m
    cross join groups g on g.id = m.el_id
    left join users u on u.id = g.owner_id
    left join folder_rollups r on r.group_id = g.id
    where m.group_id = ${o.groupId} and m.el_type = 'group' and m.trashed_at is null and g.deleted_at is null${extra}
    ${order}`;
}

export function groupMembersPage(db: Database, o: MemberPageOptions) {
  return db.all<GroupMemberRow>(groupMembersPageSql(o));
}

/** How many sub-groups a listing with these filters has (to continue into assets after skipping past the groups). */
export async function countGroupMembers(
  db: Database,
  o: Pick<MemberPageOptions, "groupId" | "q" | "vis" | "parentPassesRead">,
): Promise<number> {
  // Unfiltered, the rollup row holds the count (the live sub-groups, exactly what the listing counts).
  if (!o.q && !o.vis) {
    const rollup = await db.get<{ n: number } | undefined>(sql`select groups as n from folder_rollups where group_id = ${o.groupId}`);
    if (rollup) return rollup.n;
  }
  const where: SQL[] = [];
  if (o.q) where.push(sql`instr(m.sort_name, ${o.q}) > 0`);
  if (o.vis) where.push(visibleMemberSql(o.vis, "group", sql`g.id`, sql`g.owner_id`, o.parentPassesRead ?? false));
  const extra = where.length ? sql` and ${sql.join(where, sql` and `)}` : sql``;
  const row = await db.get<{ n: number }>(sql`select count(*) as n from group_members m cross join groups g on g.id = m.el_id
    where m.group_id = ${o.groupId} and m.el_type = 'group' and m.trashed_at is null and g.deleted_at is null${extra}`);
  return row.n;
}
