import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";

/** The queries of the inbox and its dispatcher (decision 035). */

/** The event types the inbox is made of. */
export const NOTIFYING_EVENT_TYPES = ["comment.created", "review.requested", "review.decided", "collection.shared"] as const;

export interface InboxEventRow {
  seq: number;
  type: string;
  entity_type: string;
  entity_id: string;
  actor_id: string | null;
  data: string;
  ctime: number;
}

/** The cursor and the next events after it, plus the log's end, in one statement. */
export async function eventsAfterCursor(db: Database, limit: number): Promise<{ cursor: number; end: number; events: InboxEventRow[] }> {
  const types = JSON.stringify(NOTIFYING_EVENT_TYPES);
  const rows = await db.all<InboxEventRow & { cursor: number; end_seq: number }>(sql`
    with cur as (select coalesce((select seq from notification_cursor where name = 'inbox'), 0) as seq)
    select cur.seq as cursor, (select coalesce(max(seq), 0) from global_events) as end_seq, e.seq, e.type, e.entity_type, e.entity_id,
           e.actor_id, e.data, e.ctime
    from cur left join (
      select g.seq, g.type, g.entity_type, g.entity_id, g.actor_id, g.data, g.ctime from global_events g
      where g.seq > (select seq from cur) and g.type in (select value from json_each(${types})) order by g.seq limit ${limit}
    ) e on 1 order by e.seq`);
  const first = rows[0];
  return {
    cursor: first?.cursor ?? 0,
    end: first?.end_seq ?? 0,
    events: rows.filter((r) => r.seq !== null && r.seq !== undefined),
  };
}

/** Moves the cursor forward (never back: two dispatches may overlap). */
export function advanceCursorSql(seq: number, now: number): SQL {
  return sql`insert into notification_cursor (name, seq, mtime) values ('inbox', ${seq}, ${now})
    on conflict (name) do update set seq = max(seq, excluded.seq), mtime = excluded.mtime`;
}

export interface NewNotification {
  id: string;
  userId: string;
  eventSeq: number;
  kind: string;
  assetId: string | null;
  commentId: string | null;
  byId: string | null;
  text: string;
  link: Record<string, unknown>;
  ctime: number;
}

/** Inserts notifications; one already made for the same (event, recipient) stays as it is. */
export function insertNotificationsSql(rows: readonly NewNotification[]): SQL {
  const payload = rows.map((r) => ({ i: r.id, u: r.userId, s: r.eventSeq, k: r.kind, a: r.assetId, c: r.commentId, b: r.byId, t: r.text, l: JSON.stringify(r.link), ct: r.ctime }));
  return sql`insert or ignore into notifications (id, user_id, event_seq, kind, asset_id, comment_id, by_id, text, link, ctime)
    select json_extract(value, '$.i'), json_extract(value, '$.u'), json_extract(value, '$.s'), json_extract(value, '$.k'),
      json_extract(value, '$.a'), json_extract(value, '$.c'), json_extract(value, '$.b'), json_extract(value, '$.t'),
      json_extract(value, '$.l'), json_extract(value, '$.ct')
    from json_each(${JSON.stringify(payload)})`;
}

/** Users (enabled ones) by id, with what an access decision needs. */
export function recipientsById(db: Database, ids: readonly string[]) {
  return db.all<{ id: string; login: string; name: string; is_admin: number; is_robot: number }>(
    sql`select id, login, name, is_admin, is_robot from users where enabled = 1 and id in (select value from json_each(${JSON.stringify(ids)}))`,
  );
}

/** Who asked for a review of the file (the requesters of its `review.requested` events), at most `limit`. */
export function reviewRequesters(db: Database, assetId: string, limit: number) {
  return db.all<{ user_id: string }>(
    sql`select distinct actor_id as user_id from global_events where entity_id = ${assetId} and type = 'review.requested' and actor_id is not null
        limit ${limit}`,
  );
}

/** The user members of a group of users, at most `limit`. */
export function usersOfUserGroup(db: Database, groupId: string, limit: number) {
  return db.all<{ user_id: string }>(sql`select user_id from user_group_members where group_id = ${groupId} limit ${limit}`);
}

export interface InboxRow {
  id: string;
  kind: string;
  asset_id: string | null;
  asset_name: string | null;
  comment_id: string | null;
  by_id: string | null;
  by_name: string | null;
  text: string;
  link: string;
  ctime: number;
  read_at: number | null;
  unread: number;
}

/**
 * The condition that keeps a notification visible: about no file, or about a file the user may read now (not in the
 * trash). Rights can shrink after delivery; the inbox never quotes a file its owner can no longer read.
 */
function visibleNotification(v: Visibility | null): SQL {
  return sql`(n.asset_id is null or (a.id is not null and a.deleted_at is null and ${visibleSql(v, "asset", sql`a.id`, sql`a.owner_id`)}))`;
}

/** A page of the user's inbox, newest first, with the unread count riding on every row. */
export async function inboxPage(
  db: Database,
  userId: string,
  v: Visibility | null,
  q: { unreadOnly: boolean; skip: number; take: number },
): Promise<{ rows: InboxRow[]; unread: number }> {
  const visible = visibleNotification(v);
  const unreadCount = sql`select count(*) from notifications n left join assets a on a.id = n.asset_id
    where n.user_id = ${userId} and n.read_at is null and ${visible}`;
  const onlyUnread = q.unreadOnly ? sql` and n.read_at is null` : sql``;
  const rows = await db.all<InboxRow>(sql`
    select n.id, n.kind, n.asset_id, a.name as asset_name, n.comment_id, n.by_id, u.name as by_name, n.text, n.link, n.ctime, n.read_at,
           (${unreadCount}) as unread
    from notifications n left join assets a on a.id = n.asset_id left join users u on u.id = n.by_id
    where n.user_id = ${userId}${onlyUnread} and ${visible}
    order by n.ctime desc, n.id desc limit ${q.take} offset ${q.skip}`);
  if (rows.length > 0) return { rows, unread: rows[0].unread };
  const again = await db.all<{ n: number }>(sql`select (${unreadCount}) as n`);
  return { rows, unread: again[0]?.n ?? 0 };
}

/** Marks the user's notifications read (the listed ones, or all), then answers the unread count. */
export async function markRead(db: Database, userId: string, v: Visibility | null, ids: readonly string[] | "all", now: number): Promise<number> {
  const which = ids === "all" ? sql`` : sql` and id in (select value from json_each(${JSON.stringify(ids)}))`;
  await db.run(sql`update notifications set read_at = ${now} where user_id = ${userId} and read_at is null${which}`);
  const rows = await db.all<{ n: number }>(sql`select count(*) as n from notifications n left join assets a on a.id = n.asset_id
    where n.user_id = ${userId} and n.read_at is null and ${visibleNotification(v)}`);
  return rows[0]?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------------------------
// E-mail digests

export function getSettings(db: Database, userId: string) {
  return db.all<{ email: string | null; digest: number; last_digest_at: number | null }>(
    sql`select email, digest, last_digest_at from notification_settings where user_id = ${userId}`,
  );
}

export function putSettingsSql(userId: string, email: string | null, digest: boolean, now: number): SQL {
  return sql`insert into notification_settings (user_id, email, digest, mtime) values (${userId}, ${email}, ${digest ? 1 : 0}, ${now})
    on conflict (user_id) do update set email = excluded.email, digest = excluded.digest, mtime = excluded.mtime`;
}

/** Users whose digest is due: consented, with an address, none sent in the last quarter hour, something unmailed. */
export function dueDigests(db: Database, notBefore: number, limit: number) {
  return db.all<{ user_id: string; email: string; login: string; name: string; is_admin: number; is_robot: number }>(sql`
    select s.user_id, s.email, u.login, u.name, u.is_admin, u.is_robot from notification_settings s join users u on u.id = s.user_id
    where s.digest = 1 and s.email is not null and u.enabled = 1 and (s.last_digest_at is null or s.last_digest_at <= ${notBefore})
      and exists (select 1 from notifications n where n.user_id = s.user_id and n.emailed_at is null and n.read_at is null)
    limit ${limit}`);
}

/** The user's unread, unmailed notifications he may read now, oldest first. */
export function unmailed(db: Database, userId: string, v: Visibility | null, limit: number) {
  return db.all<{ id: string; kind: string; asset_name: string | null; by_name: string | null; text: string }>(sql`
    select n.id, n.kind, a.name as asset_name, u.name as by_name, n.text from notifications n left join assets a on a.id = n.asset_id
      left join users u on u.id = n.by_id
    where n.user_id = ${userId} and n.emailed_at is null and n.read_at is null and ${visibleNotification(v)}
    order by n.ctime limit ${limit}`);
}

/** Marks the digest sent: the notifications it carried, and the user's clock (the next one waits a quarter hour). */
export function digestSentSql(userId: string, ids: readonly string[], now: number): SQL[] {
  return [
    sql`update notifications set emailed_at = ${now} where user_id = ${userId} and id in (select value from json_each(${JSON.stringify(ids)}))`,
    sql`update notification_settings set last_digest_at = ${now} where user_id = ${userId}`,
  ];
}
