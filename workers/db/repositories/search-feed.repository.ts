import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { runBatch } from "./asset.repository";
import { shardOf, type SearchShards } from "./search-index.repository";

/**
 * Statements of the search index's feed (decision 040): the catalog's triggers only mark documents pending
 * (migration 0056); a slice of them is read from the catalog (`search_doc_asset`, `search_doc_group`) and written to
 * `search_index` in the SEARCH databases (migrations-search/), each document to its shard (decision 042), here.
 */

/** Where the index stands: the answer cache's epoch, and whether documents wait to be indexed. */
export interface IndexState {
  /**
   * The catalog's search epoch: moved by every change to what documents say (the catalog's triggers) and by every
   * feed slice that wrote the index (when it drops its marks), so one read answers for both databases (decision 041).
   */
  epoch: number;
  behind: boolean;
}

const STATE = sql`select coalesce((select n from search_epoch where id = 1), 0) as epoch, exists (select 1 from search_pending) as behind`;

/** The state: one catalog statement. */
export async function indexState(db: Database): Promise<IndexState> {
  const row = await db.get<{ epoch: number; behind: number }>(STATE);
  return { epoch: row?.epoch ?? 0, behind: row?.behind === 1 };
}

/** Whether documents wait to be indexed (the catalog alone: what a changing request checks after it has answered). */
export async function anyPending(db: Database): Promise<boolean> {
  return (await db.get<{ behind: number }>(sql`select exists (select 1 from search_pending) as behind`))?.behind === 1;
}

/** A pending document as the catalog says it is now (`live` 0: its entity is gone, it leaves the index). */
interface FedDocument {
  doc_id: number;
  seq: number;
  live: number;
  name: string | null;
  meta: string | null;
  content: string | null;
  acl: string | null;
}

/** Characters of documents per SEARCH batch: its JSON parameter stays far inside D1's 2 MB. */
const PIECE_CHARS = 900_000;

function piecesOf(docs: FedDocument[]): FedDocument[][] {
  const pieces: FedDocument[][] = [];
  let piece: FedDocument[] = [];
  let chars = 0;
  for (const doc of docs) {
    const size = (doc.name?.length ?? 0) + (doc.meta?.length ?? 0) + (doc.content?.length ?? 0) + (doc.acl?.length ?? 0) + 64;
    if (piece.length > 0 && chars + size > PIECE_CHARS) {
      pieces.push(piece);
      piece = [];
      chars = 0;
    }
    piece.push(doc);
    chars += size;
  }
  if (piece.length > 0) pieces.push(piece);
  return pieces;
}

/**
 * Writes documents to SEARCH in one batch: each only if it comes from a newer mark than the one its row was written
 * from (a feed that read it before a later change leaves the later one alone).
 */
function writeStatements(docs: FedDocument[]): SQL[] {
  const input = sql`(select json_extract(value, '$.doc_id') as doc_id, json_extract(value, '$.seq') as seq,
      json_extract(value, '$.live') as live, json_extract(value, '$.name') as name, json_extract(value, '$.meta') as meta,
      json_extract(value, '$.content') as content, json_extract(value, '$.acl') as acl
    from json_each(${JSON.stringify(docs)}))`;
  const newer = sql`(select j.* from ${input} j left join search_doc_seq q on q.doc_id = j.doc_id where q.seq is null or q.seq < j.seq)`;
  return [
    sql`delete from search_index where rowid in (select doc_id from ${newer})`,
    sql`insert into search_index (rowid, name, meta, content, acl) select doc_id, name, meta, content, acl from ${newer} where live = 1`,
    sql`insert into search_doc_seq (doc_id, seq) select doc_id, seq from ${input} where true
      on conflict (doc_id) do update set seq = excluded.seq where excluded.seq > search_doc_seq.seq`,
  ];
}

/**
 * One slice of the feed: the `size` lowest pending documents read from the catalog as it is now, written to SEARCH,
 * and their marks dropped — each only if no change marked it again meanwhile (it stays pending for the next slice).
 * A slice stopped between the steps redoes nothing wrong: SEARCH skips what it holds already, marks stay until the
 * last step, which also moves the search epoch (the index changed: answers cached before are not served again).
 * Answers the state after the slice and how many documents it took.
 */
export async function indexSlice(db: Database, search: SearchShards, size: number): Promise<IndexState & { indexed: number }> {
  const docs = await db.all<FedDocument & { layout: number | null }>(sql`
    select p.doc_id as doc_id, p.seq as seq, coalesce(sa.entity_id, sg.entity_id) is not null as live,
      coalesce(sa.name, sg.name) as name, coalesce(sa.meta, sg.meta) as meta, coalesce(sa.content, sg.content) as content,
      coalesce(sa.acl, sg.acl) as acl, (select shards from search_layout where id = 1) as layout
    from (select doc_id, seq from search_pending order by doc_id limit ${size}) p
      left join search_docs d on d.doc_id = p.doc_id
      left join search_doc_asset sa on d.entity_type = 'asset' and sa.entity_id = d.entity_id
      left join search_doc_group sg on d.entity_type = 'group' and sg.entity_id = d.entity_id`);
  if (docs.length === 0) return { ...(await indexState(db)), indexed: 0 };
  const layout = docs[0]!.layout;
  if (layout !== null && layout !== search.length) throw new SearchLayoutError(layout, search.length);
  await Promise.all(
    search.map(async (shard, i) => {
      const mine = docs.filter((d) => shardOf(d.doc_id, search.length) === i);
      for (const piece of piecesOf(mine)) await runBatch(shard, writeStatements(piece));
    }),
  );
  const marks = JSON.stringify(docs.map((d) => [d.doc_id, d.seq]));
  const [, , , after] = await runBatch(db, [
    sql`delete from search_pending where (doc_id, seq) in (select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(${marks}))`,
    sql`update search_epoch set n = n + 1 where id = 1`,
    sql`update search_layout set shards = ${search.length} where id = 1 and shards is null`,
    STATE,
  ]);
  const state = after.results[0] as { epoch: number; behind: number } | undefined;
  return { indexed: docs.length, epoch: state?.epoch ?? 0, behind: state?.behind === 1 };
}

/**
 * A feed whose Worker binds another number of shards than the documents were written for (migration 0057): writing
 * would put documents where searches never look, so nothing is written and they stay pending until the root
 * `reindex` records the new number (`adoptLayout`).
 */
export class SearchLayoutError extends Error {
  constructor(recorded: number, bound: number) {
    super(`search index: documents are written for ${recorded} shard(s), this Worker binds ${bound}; start the reindex of the root`);
    this.name = "SearchLayoutError";
  }
}

/** The number of shards documents are written for from now on: the root reindex's first step (it then moves every document). */
export function adoptLayout(db: Database, shards: number) {
  return db.run(sql`update search_layout set shards = ${shards} where id = 1`);
}

/** Marks every document pending, and gives every entity without one a document: the whole index is rebuilt by the feed. */
export function markAllStatements(): SQL[] {
  return markEntitiesStatements(sql`(select entity_id from search_source_asset union all select entity_id from search_source_group)`);
}

/** Marks the documents of the given entities pending (a repair: the feed indexes them again). Entities without a document get one. */
export function markEntitiesStatements(list: SQL): SQL[] {
  return [
    sql`insert into search_docs (entity_id, entity_type)
      select entity_id, entity_type from search_source_asset where entity_id in ${list}
      union all select entity_id, entity_type from search_source_group where entity_id in ${list}
      on conflict (entity_id) do nothing`,
    sql`update search_mark_seq set n = n + 1 where id = 1`,
    sql`insert into search_pending (doc_id, seq) select doc_id, (select n from search_mark_seq where id = 1) from search_docs where entity_id in ${list}
      on conflict (doc_id) do update set seq = excluded.seq`,
  ];
}

/** Documents a shard drops per batch when they belong to another shard. */
const MISPLACED_SLICE = 2000;

/**
 * Drops from each shard up to `MISPLACED_SLICE` documents another shard owns (the number of shards changed since
 * they were written; the rebuild writes them where they belong now). Each indexed document has its row in
 * `search_doc_seq`, which finds them without reading the index. Answers how many were dropped, 0 when none is left.
 */
export async function dropMisplacedSlice(search: SearchShards): Promise<number> {
  if (search.length === 1) return 0;
  const dropped = await Promise.all(
    search.map(async (shard, i) => {
      const misplaced = sql`(select doc_id from search_doc_seq where doc_id % ${search.length} != ${i} order by doc_id limit ${MISPLACED_SLICE})`;
      const [, gone] = await runBatch(shard, [
        sql`delete from search_index where rowid in ${misplaced}`,
        sql`delete from search_doc_seq where doc_id in ${misplaced}`,
      ]);
      return gone.meta.changes ?? 0;
    }),
  );
  return dropped.reduce((sum, n) => sum + n, 0);
}
