/**
 * What a user finds on «Доступные Файлы» (the virtual root): the top-most folders and files they read, even when
 * the folders above them are hidden. One statement per type; the cost follows the caller's rules and owned
 * entities (`access_rules_subj_idx`, `groups_owner_idx`, `assets_owner_idx`), never the size of the tree.
 */
import type { ReviewStatus } from "../../../shared/review-status";
import { CURRENT_REVIEW_STATUS, reviewStatusIs } from "./review.repository";
import { COMMENT_COUNTS } from "./comment.repository";
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { MAIN_VARIANT } from "./group.repository";
import type { AssetMemberRow, GroupMemberRow } from "./group-pages.repository";
import { inLibraryScope, type LibraryScope } from "./library-scope";

/** The user and every group of users they belong to (the subjects their rules name). */
function subjects(userId: string): SQL {
  return sql`(select ${userId} union all select group_id from user_group_members where user_id = ${userId})`;
}

export interface RootPageOptions {
  vis: Visibility;
  rootId: string;
  /** lower-cased substring of the name */
  q?: string;
  /** lower-cased MIME prefix (files only) */
  mime?: string;
  /** review status of the latest version (files only; "none": no decision yet) */
  review?: ReviewStatus | "none";
  skip: number;
  take: number;
  /** which libraries' folders and files (decision 051): all of them unless told */
  scope?: LibraryScope;
}

/** A root folder row is a folder page's group row plus its member count. */
export interface RootGroupRow extends GroupMemberRow {
  members: number;
}

/**
 * Groups the caller reads whose parent they cannot read (or is the virtual root). A folder is of the library of the
 * folder listing it (a library's top folder, listed in the root, is the catalog's). A readable group is always
 * below (or at) a group they own or a rule of theirs names, so those are the candidates; a rule on the virtual root
 * itself makes its children candidates. The page is cut first, then its rows get owner names and counts.
 */
function rootGroupsFrom(o: RootPageOptions): SQL {
  const u = o.vis.userId;
  const q = o.q ? sql` and instr(pm.sort_name, ${o.q}) > 0` : sql``;
  return sql`
    with candidates(id) as (
      select id from groups where owner_id = ${u}
      union select obj_id from access_rules where subj_id in ${subjects(u)} and obj_type = 'group'
      union select m.el_id from group_members m where m.group_id = ${o.rootId} and m.el_type = 'group' and m.trashed_at is null
        and exists (select 1 from access_rules r where r.obj_id = ${o.rootId} and r.subj_id in ${subjects(u)})
    )
    select g.id as el_id, pm.sort_name, pm.el_mtime, pm.el_size
    from candidates k cross join groups g on g.id = k.id
    cross join group_members pm on pm.group_id = g.parent_id and pm.el_id = g.id and pm.el_type = 'group'
    left join groups p on p.id = g.parent_id
    where g.deleted_at is null and pm.trashed_at is null${q} and ${inLibraryScope(o.scope ?? "all", sql`pm.group_id`)}
      and ${visibleSql(o.vis, "group", sql`g.id`, sql`g.owner_id`)}
      and (g.parent_id = ${o.rootId} or not ${visibleSql(o.vis, "group", sql`p.id`, sql`p.owner_id`)})`;
}

export function rootGroupsPage(db: Database, o: RootPageOptions) {
  return db.all<RootGroupRow>(sql`
    select t.el_id, t.sort_name, t.el_mtime, t.el_size, g.name, g.ctime, g.mtime, g.owner_id, u.name as owner_name,
      coalesce(r.groups, 0) as groups, coalesce(r.assets, 0) as assets,
      (select count(*) from group_members c where c.group_id = g.id and c.trashed_at is null) as members
    from (${rootGroupsFrom(o)} order by pm.sort_name, g.id limit ${o.take} offset ${o.skip}) t
    cross join groups g on g.id = t.el_id
    left join users u on u.id = g.owner_id
    left join folder_rollups r on r.group_id = g.id
    order by t.sort_name, t.el_id`);
}

export async function countRootGroups(db: Database, o: Omit<RootPageOptions, "skip" | "take">): Promise<number> {
  const row = await db.get<{ n: number }>(sql`select count(*) as n from (${rootGroupsFrom({ ...o, skip: 0, take: 0 })})`);
  return row.n;
}

/** A root file has the same shape as a folder page's asset row, so both map to the same member. */
export type RootAssetRow = AssetMemberRow;

/**
 * Files the caller reads none of whose folders they read (the virtual root does not count): files shared with them
 * by a rule of their own, and their own files listed nowhere they can see. An asset readable through a folder's
 * rules makes that folder readable too, so owned and rule-named assets are the only candidates.
 */
export function rootAssetsPage(db: Database, o: RootPageOptions) {
  const u = o.vis.userId;
  const where: SQL[] = [];
  if (o.q) where.push(sql`instr(lower(a.name), ${o.q}) > 0`);
  if (o.mime) where.push(sql`lower(substr(a.mime, 1, ${o.mime.length})) = ${o.mime}`);
  if (o.review) where.push(reviewStatusIs(o.review));
  const extra = where.length ? sql` and ${sql.join(where, sql` and `)}` : sql``;
  return db.all<RootAssetRow>(sql`
    with candidates(id) as (
      select id from assets where owner_id = ${u}
      union select obj_id from access_rules where subj_id in ${subjects(u)} and obj_type = 'asset'
    ),
    page as (
      select a.id from candidates k cross join assets a on a.id = k.id
      where a.deleted_at is null${extra} and ${inLibraryScope(o.scope ?? "all", sql`a.id`)}
        and ${visibleSql(o.vis, "asset", sql`a.id`, sql`a.owner_id`)}
        and not exists (select 1 from group_members am cross join groups ag on ag.id = am.group_id
          where am.el_id = a.id and am.el_type = 'asset' and am.trashed_at is null and ag.id <> ${o.rootId}
            and ag.deleted_at is null and ${visibleSql(o.vis, "group", sql`ag.id`, sql`ag.owner_id`)})
      order by lower(a.name), a.id limit ${o.take} offset ${o.skip}
    )
    select a.id as el_id, lower(a.name) as sort_name, a.mtime as el_mtime, coalesce(mv.content_size, 0) as el_size,
      a.name, a.mime, a.ctime, a.mtime, a.atime, a.owner_id, us.name as owner_name, a.latest_version as ver,
      mv.id as var, mv.content_size as var_size, mv.sha256 as var_hash,
      exists (select 1 from previews pr where pr.asset_id = a.id) as has_preview, ${CURRENT_REVIEW_STATUS} as review_status, ${COMMENT_COUNTS}
    from page cross join assets a on a.id = page.id
    left join users us on us.id = a.owner_id
    left join variants mv on mv.id = ${MAIN_VARIANT}
    order by lower(a.name), a.id`);
}
