import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import type { Database } from "../client";
import { searchShardName } from "../search-shards";

/**
 * Queries of the search index itself, in the SEARCH databases (decisions 040, 042): `search_index` holds one FTS5 row
 * per document of the catalog's `search_docs` (rowid = doc_id), in shard `doc_id mod n` of n. It answers which
 * documents match, in what order and with what highlights; what they are, whether they are live and pass the
 * filters, the catalog says (search.repository). Every query here asks each shard at once and merges: with one
 * shard the answer is the shard's own.
 */

/** The index's shards, shard i holding the documents whose id is i mod their number (decision 042). */
export type SearchShards = readonly Database[];

/** The shard of a document among `n`. */
export const shardOf = (docId: number, n: number) => docId % n;

/** The given documents by shard (index i: those of shard i). */
export function docsByShard(docIds: readonly number[], n: number): number[][] {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const id of docIds) out[shardOf(id, n)]!.push(id);
  return out;
}

/**
 * The first `limit` of lists each sorted by `before`, in that order, each document once (while a rebuild moves
 * documents to other shards, a shard may still hold an old copy): a k-way merge (k is a handful of shards).
 */
export function mergeSorted<T>(
  lists: readonly (readonly T[])[],
  before: (a: T, b: T) => number,
  limit: number,
  docOf: (item: T) => number,
): T[] {
  if (lists.length === 1) return lists[0]!.slice(0, limit);
  const at = lists.map(() => 0);
  const seen = new Set<number>();
  const out: T[] = [];
  while (out.length < limit) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i]! < lists[i]!.length && (best === -1 || before(lists[i]![at[i]!]!, lists[best]![at[best]!]!) < 0)) best = i;
    }
    if (best === -1) break;
    const item = lists[best]![at[best]!++]!;
    if (seen.has(docOf(item))) continue;
    seen.add(docOf(item));
    out.push(item);
  }
  return out;
}

const byRank = (a: RankedDoc, b: RankedDoc) => a.rank - b.rank || a.doc_id - b.doc_id;
const ascending = (a: number, b: number) => a - b;
const itself = (doc: number) => doc;
const docIdOf = (r: RankedDoc) => r.doc_id;
const descending = (a: number, b: number) => b - a;

/**
 * One shard's answer. An answer needs every shard: one that fails (unreachable, overloaded, its database missing)
 * ends the request with 503 naming it — never a 500, never an answer quietly missing a part of the library — and is
 * logged with the cause.
 */
async function fromShard<T>(search: SearchShards, i: number, ask: (shard: Database) => Promise<T>): Promise<T> {
  try {
    return await ask(search[i]!);
  } catch (error) {
    console.error(JSON.stringify({ level: "error", op: "search-shard", shard: searchShardName(i), message: String(error) }));
    throw new AppError("SERVICE_UNAVAILABLE", ru.search.shardDown(i, search.length), { "Retry-After": "5" });
  }
}

/** Every shard's answer, asked at once. */
function eachShard<T>(search: SearchShards, ask: (shard: Database, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(search.map((_, i) => fromShard(search, i, (shard) => ask(shard, i))));
}

/** Each shard's answer for the documents of that shard, flattened (shards without any are not asked). */
async function perShard<T>(search: SearchShards, docIds: readonly number[], ask: (shard: Database, ids: number[]) => Promise<T[]>) {
  const groups = docsByShard(docIds, search.length);
  return (await eachShard(search, (shard, i) => (groups[i]!.length ? ask(shard, groups[i]!) : Promise.resolve([])))).flat();
}

/** Markers around matched words in snippets; the service turns them into escaped `<mark>` HTML. */
export const MARK_START = "\u0002";
export const MARK_END = "\u0003";

/** bm25 with names above metadata (tags, fields, file names) above document text; the visibility column counts for nothing. */
const RANK = sql`bm25(search_index, 10.0, 4.0, 1.0, 0.0)`;

/**
 * An "every match" window holds at most this many, the best by bm25: their ids go to the catalog as one JSON
 * parameter (about 8 bytes each), far inside D1's 2 MB.
 */
export const ALL_MATCHES = 100_000;

export interface RankedDoc {
  doc_id: number;
  rank: number;
}

/**
 * The best `limit` matches by bm25 (ALL_MATCHES when null), best first: each shard's best, merged. A shard scores by
 * its own statistics; documents are spread over the shards by id, so those are alike (decision 042).
 */
export async function rankedDocs(search: SearchShards, match: string, limit: number | null): Promise<RankedDoc[]> {
  const lists = await eachShard(search, (shard) =>
    shard.all<RankedDoc>(sql`select rowid as doc_id, ${RANK} as rank from search_index where search_index match ${match}
      order by rank, rowid limit ${limit ?? ALL_MATCHES}`),
  );
  return mergeSorted(lists, byRank, limit ?? ALL_MATCHES, docIdOf);
}

export interface Highlight {
  doc_id: number;
  name_hl: string;
  meta_snip: string;
  content_snip: string;
}

/** A ranked window with what the answer needs next from the index, read in the same statement. */
export interface RankedWindow {
  ranked: RankedDoc[];
  /** the highlights of the ranked documents `marked` names (by position) */
  marks: Highlight[];
  /** the first `scan` matches in index order (a total's first chunk) */
  firstMatches: number[];
}

const HIGHLIGHT_COLUMNS = sql`rowid as doc_id, highlight(search_index, 0, ${MARK_START}, ${MARK_END}) as name_hl,
  snippet(search_index, 1, ${MARK_START}, ${MARK_END}, '…', 12) as meta_snip,
  snippet(search_index, 2, ${MARK_START}, ${MARK_END}, '…', 24) as content_snip`;

/**
 * Where a page's rows lie in one shard's ranking of `n`: a row at merged position p is at most at p in its shard,
 * and about at p / n; the slack (a few standard deviations of that share) makes a miss rare, and a missed row's
 * highlights are read afterwards (search.service `toHits`). When many documents tie, the page may come from one
 * shard (the one whose statistics score them a little higher) and that trip is taken; highlighting the whole page in
 * every shard instead cost more (measured: cold searches 15–80 % slower at 1,000,000 files).
 */
export function shardPositions(marked: { skip: number; take: number }, n: number): { skip: number; take: number } {
  if (n === 1) return marked;
  const slack = Math.ceil(Math.sqrt(marked.skip + marked.take)) + 2;
  const from = Math.max(0, Math.floor(marked.skip / n) - slack);
  return { skip: from, take: Math.min(marked.skip + marked.take, Math.ceil((marked.skip + marked.take) / n) + slack) - from };
}

/**
 * `rankedDocs` with the highlights of the window's documents at the page's positions (the page an administrator, or
 * a reader whose visibility the index decides, is shown is nearly always they) and the first `scan` matches in index
 * order (where a total starts counting): one round trip instead of three, to every shard at once. The extras ride on
 * one row after the window's.
 */
export async function rankedWindow(
  search: SearchShards,
  match: string,
  o: { limit: number | null; marked: { skip: number; take: number }; scan: number },
): Promise<RankedWindow> {
  const limit = o.limit ?? ALL_MATCHES;
  const marked = shardPositions(o.marked, search.length);
  // Each shard sends the whole window: when many documents tie, as names of a few words do, the shard whose
  // statistics score them a little higher holds all of the best (decision 042).
  const answers = await eachShard(search, (shard) => windowOfShard(shard, match, { limit, marked, scan: o.scan }));
  const ranked = mergeSorted(
    answers.map((a) => a.ranked),
    byRank,
    limit,
    docIdOf,
  );
  const page = new Set(ranked.slice(o.marked.skip, o.marked.skip + o.marked.take).map((r) => r.doc_id));
  return {
    ranked,
    marks: answers.flatMap((a) => a.marks).filter((m) => page.has(m.doc_id)),
    firstMatches: mergeSorted(
      answers.map((a) => a.firstMatches),
      ascending,
      o.scan,
      itself,
    ),
  };
}

async function windowOfShard(
  shard: Database,
  match: string,
  o: { limit: number; marked: { skip: number; take: number }; scan: number },
): Promise<RankedWindow> {
  const rows = await shard.all<{ doc_id: number | null; rank: number | null; marks: string | null; matches: string | null }>(sql`
    with r as materialized (select rowid as doc_id, ${RANK} as rank from search_index where search_index match ${match}
      order by rank, rowid limit ${o.limit}),
    h as materialized (select ${HIGHLIGHT_COLUMNS} from search_index where search_index match ${match}
      and rowid in (select doc_id from r order by rank, doc_id limit ${o.marked.take} offset ${o.marked.skip})),
    m as materialized (select rowid as doc_id from search_index where search_index match ${match} order by rowid limit ${o.scan})
    select * from (select doc_id, rank, null as marks, null as matches from r order by rank, doc_id)
    union all
    select null, null,
      (select json_group_array(json_object('doc_id', doc_id, 'name_hl', name_hl, 'meta_snip', meta_snip, 'content_snip', content_snip)) from h),
      (select json_group_array(doc_id) from m)`);
  const extras = rows.pop();
  return {
    ranked: rows as RankedDoc[],
    marks: JSON.parse(extras?.marks ?? "[]") as Highlight[],
    firstMatches: JSON.parse(extras?.matches ?? "[]") as number[],
  };
}

/** Up to `limit` matching documents in index order (ascending after `after`, or descending below `before`): no ranking. */
export async function matchedDocs(
  search: SearchShards,
  match: string,
  o: { limit: number; after?: number; before?: number },
): Promise<number[]> {
  const lists = await eachShard(search, async (shard) => {
    const rows =
      o.before !== undefined
        ? await shard.all<{ doc_id: number }>(sql`select rowid as doc_id from search_index where search_index match ${match}
              and rowid < ${o.before} order by rowid desc limit ${o.limit}`)
        : await shard.all<{ doc_id: number }>(sql`select rowid as doc_id from search_index where search_index match ${match}
              and rowid > ${o.after ?? -1} order by rowid limit ${o.limit}`);
    return rows.map((r) => r.doc_id);
  });
  return mergeSorted(lists, o.before !== undefined ? descending : ascending, o.limit, itself);
}

/** The first `size` matches in index order, and how many matches there are (each shard counts only past its sample). */
export async function sampleOfMatches(search: SearchShards, match: string, size: number): Promise<{ docs: number[]; matches: number }> {
  const samples = await eachShard(search, async (shard) => {
    const row = await shard.get<{ docs: string; matches: number }>(sql`
        with c as materialized (select rowid as doc_id from search_index where search_index match ${match} limit ${size})
        select (select json_group_array(doc_id) from c) as docs,
          case when (select count(*) from c) < ${size} then (select count(*) from c)
            else (select count(*) from search_index where search_index match ${match}) end as matches`);
    return { docs: JSON.parse(row?.docs ?? "[]") as number[], matches: row?.matches ?? 0 };
  });
  return {
    docs: mergeSorted(
      samples.map((s) => s.docs.sort(ascending)),
      ascending,
      size,
      itself,
    ),
    matches: samples.reduce((sum, s) => sum + s.matches, 0),
  };
}

/** The highlighted name and the snippets of metadata and text of the given documents (a page's hits). */
export function highlightsOf(search: SearchShards, match: string, docIds: readonly number[]) {
  return perShard(search, docIds, (shard, ids) =>
    shard.all<Highlight>(sql`select ${HIGHLIGHT_COLUMNS} from search_index
      where search_index match ${match} and rowid in (select value from json_each(${JSON.stringify(ids)}))`),
  );
}

/** The indexed metadata and the first `contentChars` of the text of the given documents. */
export function textsOf(search: SearchShards, docIds: readonly number[], contentChars: number) {
  return perShard(search, docIds, (shard, ids) =>
    shard.all<{ doc_id: number; meta: string; content: string }>(sql`
      select rowid as doc_id, meta, substr(content, 1, ${contentChars}) as content from search_index
      where rowid in (select value from json_each(${JSON.stringify(ids)}))`),
  );
}
