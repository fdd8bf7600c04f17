import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";

/** The queries of comments and follows (decision 035). Access is decided by the services before any of these run. */

export interface CommentRow {
  id: string;
  asset_id: string;
  version: number;
  author_id: string;
  author_name: string | null;
  text: string;
  anchor: string | null;
  parent_id: string | null;
  resolved: number;
  mentions: string;
  /** JSON array of the mentioned users' logins, read in the same statement */
  mention_logins: string;
  ctime: number;
  mtime: number;
}

// The mentioned users' logins ride along (a mention list is at most 20 ids): no second round trip for them.
const COLUMNS = sql`c.id, c.asset_id, c.version, c.author_id, u.name as author_name, c.text, c.anchor, c.parent_id, c.resolved, c.mentions,
  (select json_group_array(mu.login) from json_each(c.mentions) j join users mu on mu.id = j.value) as mention_logins, c.ctime, c.mtime`;

/** One comment with its author's name. */
export async function findComment(db: Database, id: string): Promise<CommentRow | undefined> {
  const rows = await db.all<CommentRow>(sql`select ${COLUMNS} from comments c left join users u on u.id = c.author_id where c.id = ${id}`);
  return rows[0];
}

/** Which comments a list shows: a file's, of one version or of all. */
export interface CommentListQuery {
  assetId: string;
  version?: number;
  skip: number;
  take: number;
}

const listedWhere = (q: CommentListQuery) =>
  sql`c.asset_id = ${q.assetId}${q.version === undefined ? sql`` : sql` and c.version = ${q.version}`}`;

/**
 * Bytes of comment text one page carries at most (one comment at least): 2,000 comments of 10,000 Cyrillic characters
 * would be a 40 MB answer, built in a Worker's 128 MB.
 */
export const COMMENT_PAGE_BYTES = 2 * 1024 * 1024;

/**
 * A page of a file's comments, oldest first (`comments_asset_idx` serves the order): `take` of them, or fewer once
 * their texts reach COMMENT_PAGE_BYTES — the next page begins at `skip` plus the items answered.
 */
export function commentPageSql(q: CommentListQuery): SQL {
  return sql`select * from (select p.*, sum(p.bytes_) over (order by p.ctime, p.id) as run_ from (
      select ${COLUMNS}, length(cast(c.text as blob)) as bytes_ from comments c left join users u on u.id = c.author_id
      where ${listedWhere(q)} order by c.ctime, c.id limit ${q.take} offset ${q.skip}) p)
    where run_ - bytes_ < ${COMMENT_PAGE_BYTES} order by ctime, id`;
}

/** How many comments the list has over all pages (`comments_asset_idx` alone). */
export function commentTotalSql(q: CommentListQuery): SQL {
  return sql`select count(*) as n from comments c where ${listedWhere(q)}`;
}

/**
 * What a file's comment list was read at (migration 0052; a revision is 0 for a file whose comments never changed),
 * and whether the caller follows the file (the one field of the answer that is his own).
 */
export interface CommentListState {
  comments: number;
  people: number;
  following: number;
}

/**
 * The revisions a file's comment list depends on — its comments' (moved by triggers with every change to them) and
 * the people's (authors' names, mentioned logins) — and the caller's follow flag: a row says so, or he uploaded the
 * file and never said «не следить». One statement of indexed reads.
 */
export function commentListStateSql(assetId: string, userId: string): SQL {
  return sql`select coalesce((select revision from comment_revisions where asset_id = ${assetId}), 0) as comments,
    coalesce((select revision from cache_revisions where scope = 'people'), 0) as people,
    coalesce((select following from asset_follows where asset_id = ${assetId} and user_id = ${userId}),
      (select 1 from assets where id = ${assetId} and creator_id = ${userId}), 0) as following`;
}

export function insertCommentSql(r: {
  id: string;
  assetId: string;
  version: number;
  authorId: string;
  text: string;
  anchor: string | null;
  parentId: string | null;
  mentions: string[];
  now: number;
}): SQL {
  return sql`insert into comments (id, asset_id, version, author_id, text, anchor, parent_id, resolved, mentions, ctime, mtime)
    values (${r.id}, ${r.assetId}, ${r.version}, ${r.authorId}, ${r.text}, ${r.anchor}, ${r.parentId}, 0, ${JSON.stringify(r.mentions)}, ${
    r.now
  }, ${r.now})`;
}

export function updateCommentTextSql(id: string, text: string, mentions: string[], now: number): SQL {
  return sql`update comments set text = ${text}, mentions = ${JSON.stringify(mentions)}, mtime = ${now} where id = ${id}`;
}

export function resolveCommentSql(id: string, resolved: boolean, now: number): SQL {
  return sql`update comments set resolved = ${resolved ? 1 : 0}, mtime = ${now} where id = ${id}`;
}

/** The comment and every reply under it, at any depth (ids of one file only). */
function threadIds(id: string): SQL {
  return sql`with recursive thread(id) as (select ${id} union select c.id from comments c join thread t on c.parent_id = t.id) select id from thread`;
}

/** Deletes a comment with its replies and the notifications that quote them: one batch. */
export function deleteThreadSql(id: string): SQL[] {
  return [sql`delete from notifications where comment_id in (${threadIds(id)})`, sql`delete from comments where id in (${threadIds(id)})`];
}

/**
 * A listed file's comment counts as two columns of the listing's own statement (`comments_total`, `comments_open`;
 * shared/comment-counts.ts reads them), so a page of tiles costs no round trip more. `assetId` is a column of the
 * surrounding query. Each count is a range of one index and never touches the table: the total on
 * `comments_asset_idx`, the open ones on the partial `comments_open_idx` (migration 0050), which the planner picks
 * only when the query says `resolved = 0` literally, as here. A deleted comment is gone from both (deletion removes
 * the rows); the listing decides which files are shown, so a count is never read for a file the caller cannot read.
 */
export function commentCountColumns(assetId: SQL): SQL {
  return sql`(select count(*) from comments cc where cc.asset_id = ${assetId}) as comments_total,
    (select count(*) from comments cc where cc.asset_id = ${assetId} and cc.resolved = 0) as comments_open`;
}

/** `commentCountColumns` of a query over `a` (assets). */
export const COMMENT_COUNTS = commentCountColumns(sql`a.id`);

/** Users by login, case-insensitively (the `users_login_unique` index on lower(login)). */
export function usersByLogin(db: Database, logins: readonly string[]) {
  return db.all<{ id: string; login: string }>(
    sql`select id, login from users where lower(login) in (select lower(value) from json_each(${JSON.stringify(logins)}))`,
  );
}

/** What the media is known to measure at one version: the largest duration and page count any ready variant reports. */
export async function mediaLimits(
  db: Database,
  assetId: string,
  version: number,
): Promise<{ duration: number | null; pages: number | null }> {
  const rows = await db.all<{ duration: number | null; pages: number | null }>(
    sql`select max(cast(json_extract(v.tech_props, '$.duration') as real)) as duration,
               max(cast(json_extract(v.tech_props, '$.page_count') as integer)) as pages
        from variants v join asset_versions av on av.id = v.version_id
        where av.asset_id = ${assetId} and av.version = ${version} and v.status = 'ready' and v.tech_props is not null`,
  );
  const r = rows[0];
  return {
    duration: typeof r?.duration === "number" && r.duration > 0 ? r.duration : null,
    pages: typeof r?.pages === "number" && r.pages > 0 ? r.pages : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Follows

/** Follows the file unless the user said «не следить» before (commenting follows; it never overrides that). */
export function followIfNewSql(assetId: string, userId: string, now: number): SQL {
  return sql`insert or ignore into asset_follows (asset_id, user_id, following, ctime) values (${assetId}, ${userId}, 1, ${now})`;
}

export function setFollowSql(assetId: string, userId: string, following: boolean, now: number): SQL {
  return sql`insert into asset_follows (asset_id, user_id, following, ctime) values (${assetId}, ${userId}, ${following ? 1 : 0}, ${now})
    on conflict (asset_id, user_id) do update set following = excluded.following, ctime = excluded.ctime`;
}

/** Everyone following the file: rows saying so, plus the uploader unless he said «не следить». */
export function followersOf(db: Database, assetId: string) {
  return db.all<{ user_id: string }>(
    sql`select user_id from asset_follows where asset_id = ${assetId} and following = 1
        union
        select a.creator_id from assets a where a.id = ${assetId}
          and not exists (select 1 from asset_follows f where f.asset_id = a.id and f.user_id = a.creator_id and f.following = 0)`,
  );
}
