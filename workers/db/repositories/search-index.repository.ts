import { sql } from "drizzle-orm";
import type { Database } from "../client";

/**
 * Queries of the search index itself, in the SEARCH database (decision 040): `search_index` holds one FTS5 row per
 * document of the catalog's `search_docs` (rowid = doc_id). It answers which documents match, in what order and
 * with what highlights; what they are, whether they are live and pass the filters, the catalog says
 * (search.repository).
 */

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

/** The best `limit` matches by bm25 (ALL_MATCHES when null), best first. */
export function rankedDocs(search: Database, match: string, limit: number | null): Promise<RankedDoc[]> {
  return search.all<RankedDoc>(sql`select rowid as doc_id, ${RANK} as rank from search_index where search_index match ${match}
    order by rank, rowid limit ${limit ?? ALL_MATCHES}`);
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
 * `rankedDocs` with the highlights of the window's documents at the page's positions (the page an administrator, or
 * a reader whose visibility the index decides, is shown is nearly always they) and the first `scan` matches in index
 * order (where a total starts counting): one round trip instead of three. The extras ride on one row after the
 * window's.
 */
export async function rankedWindow(
  search: Database,
  match: string,
  o: { limit: number | null; marked: { skip: number; take: number }; scan: number },
): Promise<RankedWindow> {
  const rows = await search.all<{ doc_id: number | null; rank: number | null; marks: string | null; matches: string | null }>(sql`
    with r as materialized (select rowid as doc_id, ${RANK} as rank from search_index where search_index match ${match}
      order by rank, rowid limit ${o.limit ?? ALL_MATCHES}),
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
  search: Database,
  match: string,
  o: { limit: number; after?: number; before?: number },
): Promise<number[]> {
  const rows =
    o.before !== undefined
      ? await search.all<{ doc_id: number }>(sql`select rowid as doc_id from search_index where search_index match ${match}
          and rowid < ${o.before} order by rowid desc limit ${o.limit}`)
      : await search.all<{ doc_id: number }>(sql`select rowid as doc_id from search_index where search_index match ${match}
          and rowid > ${o.after ?? -1} order by rowid limit ${o.limit}`);
  return rows.map((r) => r.doc_id);
}

/** The first `size` matches in index order, and how many matches there are (counted only past the sample). */
export async function sampleOfMatches(search: Database, match: string, size: number): Promise<{ docs: number[]; matches: number }> {
  const row = await search.get<{ docs: string; matches: number }>(sql`
    with c as materialized (select rowid as doc_id from search_index where search_index match ${match} limit ${size})
    select (select json_group_array(doc_id) from c) as docs,
      case when (select count(*) from c) < ${size} then (select count(*) from c)
        else (select count(*) from search_index where search_index match ${match}) end as matches`);
  return { docs: JSON.parse(row?.docs ?? "[]") as number[], matches: row?.matches ?? 0 };
}

/** The highlighted name and the snippets of metadata and text of the given documents (a page's hits). */
export function highlightsOf(search: Database, match: string, docIds: readonly number[]) {
  return search.all<Highlight>(sql`select ${HIGHLIGHT_COLUMNS} from search_index
    where search_index match ${match} and rowid in (select value from json_each(${JSON.stringify(docIds)}))`);
}

/** The indexed metadata and the first `contentChars` of the text of the given documents. */
export function textsOf(search: Database, docIds: readonly number[], contentChars: number) {
  return search.all<{ doc_id: number; meta: string; content: string }>(sql`
    select rowid as doc_id, meta, substr(content, 1, ${contentChars}) as content from search_index
    where rowid in (select value from json_each(${JSON.stringify(docIds)}))`);
}
