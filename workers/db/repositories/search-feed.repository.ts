import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { runBatch } from "./asset.repository";

/**
 * Statements of the search index's feed (migration 0056, decision 040): the triggers only mark documents pending;
 * a slice of them is re-read from the catalog (`search_doc_asset`, `search_doc_group`) into `search_index` here.
 */

/** Where the index stands: the search epoch, and whether documents wait to be indexed. */
export interface IndexState {
  epoch: number;
  behind: boolean;
}

export async function indexState(db: Database): Promise<IndexState> {
  const row = await db.get<{ epoch: number; behind: number }>(
    sql`select coalesce((select n from search_epoch where id = 1), 0) as epoch, exists (select 1 from search_pending) as behind`,
  );
  return { epoch: row?.epoch ?? 0, behind: row?.behind === 1 };
}

/**
 * One slice of the feed, in one batch (one transaction): the `size` lowest pending documents are indexed again from
 * the catalog as it is now (a document whose entity is gone leaves the index), their marks dropped, and the epoch
 * moved so no answer computed before is served. Answers the state after the slice and how many documents it took.
 */
export async function indexSlice(db: Database, size: number): Promise<IndexState & { indexed: number }> {
  const slice = sql`(select doc_id from search_pending order by doc_id limit ${size})`;
  const statements: SQL[] = [
    sql`select count(*) as n from ${slice}`,
    sql`update search_epoch set n = n + 1 where id = 1 and exists (select 1 from search_pending)`,
    sql`delete from search_index where rowid in ${slice}`,
    sql`insert into search_index (rowid, name, meta, content, acl)
      select d.doc_id, s.name, s.meta, s.content, s.acl from search_docs d join search_doc_asset s on s.entity_id = d.entity_id
        where d.doc_id in ${slice} and d.entity_type = 'asset'
      union all select d.doc_id, s.name, s.meta, s.content, s.acl from search_docs d join search_doc_group s on s.entity_id = d.entity_id
        where d.doc_id in ${slice} and d.entity_type = 'group'`,
    sql`delete from search_pending where doc_id in ${slice}`,
    sql`select coalesce((select n from search_epoch where id = 1), 0) as epoch, exists (select 1 from search_pending) as behind`,
  ];
  const results = await runBatch(db, statements);
  const taken = (results[0].results[0] as { n: number } | undefined)?.n ?? 0;
  const after = results[results.length - 1].results[0] as { epoch: number; behind: number } | undefined;
  return { indexed: taken, epoch: after?.epoch ?? 0, behind: after?.behind === 1 };
}

/**
 * Marks the documents of the given entities pending (a repair: the feed indexes them again). Entities that have
 * no document yet get one.
 */
export function markEntitiesStatements(list: SQL): SQL[] {
  return [
    sql`insert into search_docs (entity_id, entity_type)
      select entity_id, entity_type from search_source_asset where entity_id in ${list}
      union all select entity_id, entity_type from search_source_group where entity_id in ${list}
      on conflict (entity_id) do nothing`,
    sql`insert or ignore into search_pending (doc_id) select doc_id from search_docs where entity_id in ${list}`,
  ];
}

/** Marks every document pending: the whole index is rebuilt from the catalog by the feed. */
export function markAllStatements(): SQL[] {
  return [
    sql`insert into search_docs (entity_id, entity_type)
      select entity_id, entity_type from search_source_asset union all select entity_id, entity_type from search_source_group
      on conflict (entity_id) do nothing`,
    sql`insert or ignore into search_pending (doc_id) select doc_id from search_docs`,
  ];
}

/** How many documents wait to be indexed. */
export async function pendingCount(db: Database): Promise<number> {
  return (await db.get<{ n: number }>(sql`select count(*) as n from search_pending`))?.n ?? 0;
}
