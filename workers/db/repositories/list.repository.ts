import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../client";
import { fieldTemplates, listRecords, lists } from "../schema/index";
import type { Reach } from "./library-crossing.repository";
import { foldedSql, foldName } from "./tag.repository";

const recordCount = sql<number>`(select count(*) from ${listRecords} where ${listRecords.listId} = ${lists.id})`.mapWith(Number);

export function listListsWithCounts(db: Database) {
  return db
    .select({ id: lists.id, name: lists.name, count: recordCount })
    .from(lists)
    .orderBy(asc(foldedSql(lists.name)), asc(lists.id));
}

export function findList(db: Database, id: string) {
  return db.select().from(lists).where(eq(lists.id, id)).get();
}

export async function insertListIfNameFree(db: Database, row: { id: string; name: string; now: number }): Promise<boolean> {
  const result = await db.run(
    sql`insert or ignore into ${lists} (id, name, ctime, mtime) select ${row.id}, ${row.name}, ${row.now}, ${row.now}
        where not exists (select 1 from ${lists} where ${foldedSql(lists.name)} = ${foldName(row.name)})`,
  );
  return result.meta.changes > 0;
}

export async function renameListIfNameFree(db: Database, id: string, name: string, now: number): Promise<boolean> {
  const result = await db.run(
    sql`update ${lists} set name = ${name}, mtime = ${now} where ${lists.id} = ${id}
        and not exists (select 1 from ${lists} l2 where l2.id <> ${id} and ${foldedSql(sql`l2.name`)} = ${foldName(name)})`,
  );
  return result.meta.changes > 0;
}

/** Templates whose setup names the list as their source. */
export async function templatesUsingList(db: Database, listId: string): Promise<number> {
  const row = await db.get<{ n: number }>(
    sql`select count(*) as n from ${fieldTemplates} where json_extract(${fieldTemplates.setup}, '$.list_id') = ${listId}`,
  );
  return Number(row?.n ?? 0);
}

/** The templates whose setup names the list as their source. */
export async function templateIdsOfList(db: Database, listId: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    sql`select id from ${fieldTemplates} where json_extract(${fieldTemplates.setup}, '$.list_id') = ${listId}`,
  );
  return rows.map((r) => r.id);
}

/** The values that hold a record's key in fields `templateIds` (its list's): its uses, counted in each library. */
export const recordValues = (templateIds: readonly string[], recId: string): Reach => ({
  entities: "SELECT entity_id FROM field_values WHERE def_id IN (SELECT value FROM json_each(?1)) AND value_text = ?2",
  binds: [JSON.stringify(templateIds), recId.toLowerCase()],
});

export function deleteListStatements(db: Database, id: string) {
  return [db.delete(listRecords).where(eq(listRecords.listId, id)), db.delete(lists).where(eq(lists.id, id))];
}

export function recordsOfList(db: Database, listId: string) {
  return db.select().from(listRecords).where(eq(listRecords.listId, listId)).orderBy(asc(listRecords.position), asc(listRecords.recId));
}

/** The records among (list_id, rec_id) pairs: one statement whatever the number of pairs. */
export function recordsByPairs(db: Database, pairs: readonly { list_id: string; rec_id: string }[]) {
  return db.all<{ list_id: string; rec_id: string; rec_data: string; position: number }>(
    sql`select r.list_id, r.rec_id, r.rec_data, r.position from ${listRecords} r
        join json_each(${JSON.stringify(
          pairs,
        )}) p on r.list_id = json_extract(p.value, '$.list_id') and r.rec_id = json_extract(p.value, '$.rec_id')
        order by r.list_id, r.position, r.rec_id`,
  );
}

/** Inserts or replaces a record; a new record goes to the end of the list. */
export function upsertRecordStatement(db: Database, row: { listId: string; recId: string; recData: Record<string, unknown>; now: number }) {
  return sql`insert into ${listRecords} (list_id, rec_id, rec_data, position, ctime)
    values (${row.listId}, ${row.recId}, ${JSON.stringify(row.recData)},
            (select coalesce(max(position), -1) + 1 from ${listRecords} where list_id = ${row.listId}), ${row.now})
    on conflict (list_id, rec_id) do update set rec_data = excluded.rec_data`;
}

export function deleteRecordStatement(db: Database, listId: string, recId: string) {
  return db.delete(listRecords).where(and(eq(listRecords.listId, listId), eq(listRecords.recId, recId)));
}

export function touchListStatement(db: Database, listId: string, now: number) {
  return db.update(lists).set({ mtime: now }).where(eq(lists.id, listId));
}
