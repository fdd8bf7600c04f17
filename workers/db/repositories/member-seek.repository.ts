import { sql, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Database } from "../client";
import type { MemberSortColumn } from "./group-pages.repository";

/**
 * Queries of the seek lists behind `skip` paging (decision record 017). A list holds every `SEEK_SPACING`-th member
 * boundary of one group listing (type, sort column, direction, MIME prefix) with its span: the listed members after
 * the previous boundary up to and including it. Triggers (migrations 0014, 0043) keep the spans exact in the same
 * statement as every change, moving one boundary per list; the members up to a boundary are the sum of the spans.
 */

const dialect = new SQLiteAsyncDialect();

/** Members between two checkpoints when a list is built: a `skip` scans at most this many index entries. */
export const SEEK_SPACING = 500;
/** A span between checkpoints that grew past this (inserts) makes the next `skip` into it rebuild the list. */
export const SEEK_REBUILD_SPAN = 4 * SEEK_SPACING;
/** Seek lists kept per group (each costs the triggers a little on every change in the group). */
export const SEEK_LISTS_PER_GROUP = 12;

export interface SeekListKey {
  groupId: string;
  elType: "asset" | "group";
  col: MemberSortColumn;
  desc: boolean;
  /** lower-cased MIME prefix, '' for none */
  mime: string;
}

/** The id of a list: its key, readable and unique (the list table's unique index holds the same columns). */
export function seekListId(k: SeekListKey): string {
  return `${k.groupId}:${k.elType}:${k.col}:${k.desc ? "d" : "a"}:${k.mime}`;
}

/** Whether the list exists. */
export async function seekListExists(db: Database, listId: string): Promise<boolean> {
  return (await db.get<{ x: number } | undefined>(sql`select 1 as x from member_seek_lists where id = ${listId}`)) !== undefined;
}

/** The listed members of a list in its order, with their key (the same conditions as the member pages). */
function listedSql(k: SeekListKey): SQL {
  const col = sql.raw(`m.${k.col}`);
  const dir = sql.raw(k.desc ? "desc" : "asc");
  const source =
    k.elType === "asset"
      ? sql`group_members m cross join assets a on a.id = m.el_id
          where m.group_id = ${k.groupId} and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null${
          k.mime ? sql` and lower(substr(a.mime, 1, ${k.mime.length})) = ${k.mime}` : sql``
        }`
      : sql`group_members m cross join groups g on g.id = m.el_id
          where m.group_id = ${k.groupId} and m.el_type = 'group' and m.trashed_at is null and g.deleted_at is null`;
  return sql`select ${col} as k, m.el_id as i, row_number() over (order by ${col} ${dir}, m.el_id ${dir}) as rn,
      count(*) over () as total from ${source}`;
}

/**
 * The sentinel boundary past the last member in the list's order: every member is at or before it, so the
 * triggers keep its `n` equal to the list's length. Text keys compare by bytes, and 0xFF never occurs in UTF-8.
 */
function sentinel(k: SeekListKey): { key: SQL; id: string } {
  if (k.desc) return { key: k.col === "sort_name" ? sql`''` : sql`-9223372036854775808`, id: "" };
  return { key: k.col === "sort_name" ? sql`cast(x'ffff' as text)` : sql`9223372036854775807`, id: "~" };
}

/**
 * The statements that (re)build a list in one batch: drop its old checkpoints, write every `SEEK_SPACING`-th
 * boundary and the last member, then the sentinel, and evict the group's oldest lists beyond `SEEK_LISTS_PER_GROUP`.
 * One batch is one transaction, so no concurrent change can fall between the scan and the triggers taking over.
 */
export function buildSeekListStatements(k: SeekListKey, now: number): SQL[] {
  const id = seekListId(k);
  const desc = k.desc ? 1 : 0;
  const end = sentinel(k);
  return [
    sql`delete from member_seek where list_id = ${id}`,
    sql`insert into member_seek_lists (id, group_id, el_type, col, descending, mime, built_at)
      values (${id}, ${k.groupId}, ${k.elType}, ${k.col}, ${desc}, ${k.mime}, ${now})
      on conflict (id) do update set built_at = excluded.built_at`,
    sql`insert into member_seek (list_id, pos, span, sort_key, el_id, group_id, el_type, col, descending, mime)
      select ${id}, rn, rn - coalesce(lag(rn) over (order by rn), 0), k, i, ${k.groupId}, ${k.elType}, ${k.col}, ${desc}, ${k.mime}
      from (${listedSql(k)}) where rn % ${SEEK_SPACING} = 0 or rn = total`,
    sql`insert into member_seek (list_id, pos, span, sort_key, el_id, group_id, el_type, col, descending, mime)
      values (${id}, 0, 0, ${end.key}, ${end.id}, ${k.groupId}, ${k.elType}, ${k.col}, ${desc}, ${k.mime})`,
    sql`delete from member_seek where list_id in (select id from member_seek_lists where group_id = ${k.groupId} and id not in
      (select id from member_seek_lists where group_id = ${k.groupId} order by built_at desc, id limit ${SEEK_LISTS_PER_GROUP}))`,
    sql`delete from member_seek_lists where group_id = ${k.groupId} and id not in
      (select id from member_seek_lists where group_id = ${k.groupId} order by built_at desc, id limit ${SEEK_LISTS_PER_GROUP})`,
  ];
}

/**
 * A list's boundaries with `n`, the members up to each: the running sum of the spans in list order (the sentinel,
 * `pos` 0, last). A list has about one boundary per SEEK_SPACING members, so this reads a few hundred rows.
 */
function countedSql(listId: string): SQL {
  return sql`(select sort_key, el_id, pos, sum(span) over (order by pos = 0, pos rows unbounded preceding) as n
    from member_seek where list_id = ${listId})`;
}

/** `(select <column> of the checkpoint a skip starts from)`: the nearest boundary with at most `skip` members up to it. */
export function seekPick(listId: string, skip: number, column: "sort_key" | "el_id" | "n"): SQL {
  return sql`(select ${sql.raw(column)} from ${countedSql(listId)} where n <= ${skip} order by n desc, pos desc limit 1)`;
}

export interface SeekProbe {
  /** the list still exists */
  live: number;
  /** members up to the checkpoint a skip starts from; null when no checkpoint is at or before `skip` */
  n: number | null;
  /** members up to the next checkpoint; null past the sentinel */
  next_n: number | null;
}

/** Where a skip starts and how far the next checkpoint is (run in the same batch as the page, so both agree). */
export function seekProbeSql(listId: string, skip: number): SQL {
  return sql`select exists (select 1 from member_seek_lists where id = ${listId}) as live, ${seekPick(listId, skip, "n")} as n,
    (select min(n) from ${countedSql(listId)} where n > ${skip}) as next_n`;
}

/**
 * `select 1` when any member of one type in the group has switched access inheritance off, else no row. Without
 * one, a caller the group passes read down to (access.service `passesReadDown`) sees every listed member, so the
 * unfiltered seek list applies to them too. Walks the (few) entities with inheritance off, each by the membership
 * primary key.
 */
export function memberOptsOutSql(groupId: string, type: "asset" | "group"): SQL {
  return sql`select 1 as x from access_inheritance ai
    where ai.inherit = 0 and ai.entity_type = ${type}
      and exists (select 1 from group_members m where m.group_id = ${groupId} and m.el_id = ai.entity_id and m.el_type = ${type})
    limit 1`;
}

/** Runs read statements as one D1 batch: one transaction, so they all see the same state of the database. */
export async function readBatch<T extends unknown[]>(db: Database, statements: readonly SQL[]): Promise<{ [K in keyof T]: T[K][] }> {
  const d1 = db.$client as D1Database;
  const results = await d1.batch(
    statements.map((s) => {
      const q = dialect.sqlToQuery(s);
      return d1.prepare(q.sql).bind(...q.params);
    }),
  );
  return results.map((r) => r.results ?? []) as { [K in keyof T]: T[K][] };
}
