import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { foldedSql, foldName } from "./tag.repository";
import type { ReviewStatus } from "../../../shared/review-status";
import { CURRENT_REVIEW_STATUS, reviewStatusIs } from "./review.repository";
import { COMMENT_COUNTS } from "./comment.repository";
import { GPS_OF_ASSET, insideBboxSql, type Bbox } from "./geo.repository";
import { markAllStatements, markEntitiesStatements } from "./search-feed.repository";
import { matchedDocs, rankedDocs, sampleOfMatches, textsOf, type RankedDoc, type SearchShards } from "./search-index.repository";

/**
 * Queries of search (decision 011). `search_index` holds one row per asset and group (name, meta, content, acl), fed
 * from the catalog (decision 040, `search-feed.repository`); `search_docs` maps its rowid to the entity. Every query joins the live entity
 * rows, so trashed items, moves and permission changes apply at once, and filters with the same `visibleSql` as
 * the group lists.
 */

export interface SearchFilters {
  type?: "asset" | "group";
  /** a MIME family (`image`) or an exact type (`image/png`) */
  mime?: string;
  /** a tag name, case-insensitive */
  tag?: string;
  class?: string;
  /** only entities inside this group's subtree */
  group?: string;
  owner?: string;
  /** creation time bounds, epoch ms */
  from?: number;
  to?: number;
  /** field template id → value */
  fields?: { defId: string; value: string }[];
  /** review status of the latest version ("none": no decision yet); files only */
  review?: ReviewStatus | "none";
  /** taken inside this box (GPS of the latest version); files only */
  bbox?: Bbox;
}

export {
  ALL_MATCHES,
  MARK_END,
  MARK_START,
  highlightsOf,
  rankedWindow,
  type Highlight,
  type RankedWindow,
} from "./search-index.repository";

/** An asset is live when not trashed and listed in at least one live group (or filed nowhere: its owner's). */
const assetLive = sql`a.deleted_at is null and (
  exists (select 1 from group_members m join groups pg on pg.id = m.group_id
    where m.el_id = a.id and m.el_type = 'asset' and m.trashed_at is null and pg.deleted_at is null)
  or not exists (select 1 from group_members m where m.el_id = a.id and m.el_type = 'asset'))`;

function assetFilters(f: SearchFilters): SQL[] {
  const out: SQL[] = [];
  if (f.type === "group") out.push(sql`0`);
  if (f.mime)
    out.push(
      f.mime.includes("/") ? sql`lower(a.mime) like ${`${f.mime.toLowerCase()}%`}` : sql`lower(a.mime) like ${`${f.mime.toLowerCase()}/%`}`,
    );
  if (f.class) out.push(sql`a.class_id = ${f.class}`);
  if (f.owner) out.push(sql`a.owner_id = ${f.owner}`);
  if (f.from !== undefined) out.push(sql`a.ctime >= ${f.from}`);
  if (f.to !== undefined) out.push(sql`a.ctime <= ${f.to}`);
  if (f.review) out.push(reviewStatusIs(f.review));
  if (f.bbox) out.push(insideBboxSql(f.bbox));
  if (f.group)
    out.push(sql`exists (select 1 from group_members gm join group_closure gc on gc.descendant = gm.group_id
      where gm.el_id = a.id and gm.el_type = 'asset' and gm.trashed_at is null and gc.ancestor = ${f.group})`);
  return out;
}

function groupFilters(f: SearchFilters): SQL[] {
  const out: SQL[] = [];
  if (f.type === "asset" || f.mime || f.class || f.review || f.bbox) out.push(sql`0`);
  if (f.owner) out.push(sql`g.owner_id = ${f.owner}`);
  if (f.from !== undefined) out.push(sql`g.ctime >= ${f.from}`);
  if (f.to !== undefined) out.push(sql`g.ctime <= ${f.to}`);
  if (f.group)
    out.push(sql`exists (select 1 from group_closure gc where gc.descendant = g.id and gc.ancestor = ${f.group} and gc.depth > 0)`);
  return out;
}

function commonFilters(f: SearchFilters): SQL[] {
  const out: SQL[] = [];
  if (f.tag)
    out.push(sql`exists (select 1 from entity_tags et join tags t on t.id = et.tag_id
      where et.entity_id = d.entity_id and ${foldedSql(sql`t.name`)} = ${foldName(f.tag)})`);
  for (const field of f.fields ?? [])
    out.push(sql`exists (select 1 from field_values fv where fv.entity_id = d.entity_id and fv.def_id = ${field.defId}
      and (fv.value_text = ${foldName(field.value)} or fv.value_text = ${field.value}
        or (json_valid(fv.data) and json_extract(fv.data, '$') = ${field.value})))`);
  return out;
}

const and = (parts: SQL[]) => (parts.length ? sql` and ${sql.join(parts, sql` and `)}` : sql``);

/**
 * The visible, live, filtered condition on `d` (search_docs), `a` (its asset) and `g` (its group). Visibility,
 * which drops most rows for a reader, is tested before liveness (about a tenth less per row walked).
 */
function allowedSql(vis: Visibility | null, f: SearchFilters): SQL {
  return sql`${and(commonFilters(f))}
      and ((a.id is not null and ${visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`)} and ${assetLive}${and(assetFilters(f))})
        or (g.id is not null and g.deleted_at is null and ${visibleSql(vis, "group", sql`g.id`, sql`g.owner_id`)}${and(groupFilters(f))}))`;
}

const ENTITY_JOINS = sql`left join assets a on d.entity_type = 'asset' and a.id = d.entity_id
    left join groups g on d.entity_type = 'group' and g.id = d.entity_id`;

/**
 * The candidates of a query as the index ranked them (search-index.repository `rankedDocs`), or any documents in a
 * given order: `c(doc_id, pos)`, pos 1 for the first. The visible, live, filtered condition then walks them in that
 * order, so the per-row work (joins, access, snippets) is for the rows a page shows instead of every match.
 */
function candidatesCte(docIds: readonly number[]): SQL {
  return sql`c as materialized (select value as doc_id, key + 1 as pos from json_each(${JSON.stringify(docIds)}))`;
}

/** Rows of a ranked window with their documents' bm25 rank (the index's, not the catalog's). */
function withRanks<T extends { doc_id: number }>(rows: T[], ranked: readonly RankedDoc[]): (T & { rank: number })[] {
  const rank = new Map(ranked.map((r) => [r.doc_id, r.rank]));
  return rows.map((r) => ({ ...r, rank: rank.get(r.doc_id) ?? 0 }));
}

/** The visible, live, filtered candidates joined to their entities (`c`, `d`, `a`, `g`). */
function visibleCandidatesSql(vis: Visibility | null, f: SearchFilters): SQL {
  return sql`from c join search_docs d on d.doc_id = c.doc_id ${ENTITY_JOINS} where 1${allowedSql(vis, f)}`;
}

export interface HitRow {
  doc_id: number;
  id: string;
  type: "asset" | "group";
  rank: number;
  name: string;
  mime: string | null;
  owner_id: string | null;
  latest_version: number | null;
  has_preview: number;
  ctime: number;
  mtime: number;
  review_status: ReviewStatus | null;
  /** a file's comments, and its unresolved ones (0 for folders) */
  comments_total: number;
  comments_open: number;
  /** `[lat, lon]` JSON of the latest version (geo.repository `gpsOf`) */
  gps: string | null;
  /** how many candidates were walked, and how many of them are visible (the same on every row) */
  candidates: number;
  window_visible: number;
}

/** A hit row with what the facets count: its place among the ranked candidates, its class and tags. */
export interface FacetedHitRow extends HitRow, FacetSourceRow {
  /** 1 for the best candidate of the index, visible or not */
  pos: number;
}

const HIT_COLUMNS = sql`coalesce(a.name, g.name) as name, a.mime as mime, coalesce(a.owner_id, g.owner_id) as owner_id,
  a.latest_version as latest_version,
  case when a.id is null then 0 else exists (select 1 from previews p where p.asset_id = a.id) end as has_preview,
  coalesce(a.ctime, g.ctime) as ctime, coalesce(a.mtime, g.mtime) as mtime,
  case when a.id is null then null else ${CURRENT_REVIEW_STATUS} end as review_status,
  case when a.id is null then null else ${GPS_OF_ASSET} end as gps, ${COMMENT_COUNTS}`;

const PAGE_COLUMNS = sql`c.doc_id as doc_id, d.entity_id as id, d.entity_type as type, ${HIT_COLUMNS},
  (select count(*) from c) as candidates, count(*) over () as window_visible`;

/** One page of hits, best first, among the ranked candidates (the whole window is `candidates` on each row). */
export async function searchPage(
  db: Database,
  o: { ranked: readonly RankedDoc[]; vis: Visibility | null; filters: SearchFilters; skip: number; take: number },
): Promise<HitRow[]> {
  const rows = await db.all<Omit<HitRow, "rank">>(sql`
    with ${candidatesCte(o.ranked.map((r) => r.doc_id))}
    select ${PAGE_COLUMNS}
    ${visibleCandidatesSql(o.vis, o.filters)}
    order by c.pos limit ${o.take} offset ${o.skip}`);
  return withRanks(rows, o.ranked);
}

/**
 * Every visible candidate of the ranked window, best first, with what the facets count and its labels: a page and its
 * facets from one ranking of the index instead of two (bm25 scores every match each time), and no statement after.
 */
export async function searchWindow(
  db: Database,
  o: { ranked: readonly RankedDoc[]; vis: Visibility | null; filters: SearchFilters },
): Promise<FacetedHitRow[]> {
  const rows = await db.all<Omit<FacetedHitRow, "rank">>(sql`
    with ${candidatesCte(o.ranked.map((r) => r.doc_id))}
    select ${PAGE_COLUMNS}, c.pos as pos, a.class_id as class_id,
      (select name from asset_classes where id = a.class_id) as class_name,
      (select name from users where id = coalesce(a.owner_id, g.owner_id)) as owner_name,
      (select json_group_array(json_array(et.tag_id, t.name)) from entity_tags et left join tags t on t.id = et.tag_id
        where et.entity_id = d.entity_id) as tags
    ${visibleCandidatesSql(o.vis, o.filters)}
    order by c.pos`);
  return withRanks(rows, o.ranked);
}

/** `searchPage` rows for given ids (vector hits); ids not visible, live or passing the filters drop out. */
export function pageOfIds(db: Database, o: { ids: readonly string[]; vis: Visibility | null; filters: SearchFilters }) {
  return db.all<HitRow>(sql`
    select d.doc_id as doc_id, d.entity_id as id, d.entity_type as type, 0 as rank, ${HIT_COLUMNS}, 0 as candidates, 0 as window_visible
    from search_docs d ${ENTITY_JOINS}
    where d.entity_id in (select value from json_each(${JSON.stringify(o.ids)}))${allowedSql(o.vis, o.filters)}`);
}

export interface MatchSample {
  /** index matches in the sample (the first `size`, in index order) */
  seen: number;
  /** of those, the visible, live ones passing the filters */
  visible: number;
  /** every index match (counted only when the sample did not hold them all) */
  matches: number;
}

/** How many of the given documents the caller sees, live and passing the filters, counting at most `cap`. */
async function visibleAmong(db: Database, docIds: readonly number[], vis: Visibility | null, f: SearchFilters, cap: number): Promise<number> {
  if (docIds.length === 0 || cap <= 0) return 0;
  // The visible count is the statement's own WHERE: D1 caps expression depth at 100, and the tag filter's folding is deep.
  const row = await db.get<{ n: number }>(sql`
    with ${candidatesCte(docIds)}
    select count(*) as n from (select 1 ${visibleCandidatesSql(vis, f)} limit ${cap})`);
  return row?.n ?? 0;
}

/**
 * How many of the first `size` index matches the caller sees, and how many matches there are: the total is exact
 * when the sample holds every match, else estimated from the visible share (decision 011).
 */
export async function matchSample(
  db: Database,
  search: SearchShards,
  o: { match: string; vis: Visibility | null; filters: SearchFilters; size: number },
): Promise<MatchSample> {
  const sample = await sampleOfMatches(search, o.match, o.size);
  const visible = await visibleAmong(db, sample.docs, o.vis, o.filters, o.size);
  return { seen: sample.docs.length, visible, matches: sample.matches };
}

/** Most index matches looked at per statement while counting visible ones in index order. */
const SCAN_CHUNK = 5000;

/** How many matches a count's chunk looks at with `left` still to count: twice that, as most matches are visible. */
export const countChunk = (left: number) => Math.min(SCAN_CHUNK, 2 * left);

/**
 * How many visible, live, filtered matches there are, counting at most `cap + 1` (issue 24: a total is counted over
 * what the caller may see, never estimated from every match): the matches in index order, a chunk at a time. `first`
 * is the first chunk when already read (`rankedWindow`'s `firstMatches`, `countChunk(cap + 1)` of them).
 */
export async function countVisible(
  db: Database,
  search: SearchShards,
  o: { match: string; vis: Visibility | null; filters: SearchFilters; cap: number; first?: readonly number[] },
): Promise<number> {
  let counted = 0;
  let after = -1;
  for (;;) {
    const limit = countChunk(o.cap + 1 - counted);
    const docs = after === -1 && o.first ? o.first : await matchedDocs(search, o.match, { limit, after });
    counted += await visibleAmong(db, docs, o.vis, o.filters, o.cap + 1 - counted);
    if (counted > o.cap || docs.length < limit) return counted;
    after = docs[docs.length - 1];
  }
}

/** One visible candidate as the facets count it: its type, owner, class and tags, with their names (the labels). */
export interface FacetSourceRow {
  type: "asset" | "group";
  owner_id: string | null;
  owner_name: string | null;
  class_id: string | null;
  class_name: string | null;
  /** JSON array of `[tag id, tag name]` */
  tags: string;
  /** a file's current review status */
  review_status: ReviewStatus | null;
}

/**
 * The folder of each entity (an asset's first live group; a group's parent) with its chain of folders below the
 * virtual root, each with whether the caller may read it (`vis`; every folder for administrators), so the places
 * shown can leave out what the caller may not know of without another statement. Only administrators are told that
 * a hit lies in the virtual root itself.
 */
export function pathsOf(db: Database, ids: readonly { id: string; type: "asset" | "group" }[], rootId: string, vis: Visibility | null) {
  const entities = sql`select json_extract(value, '$.id'), json_extract(value, '$.type') from json_each(${JSON.stringify(ids)})`;
  return placesOf(db, entities, rootId, vis);
}

/** `pathsOf` for search documents: a ranked window's best rows, read beside its page (decision 041). */
export function pathsOfDocs(db: Database, docIds: readonly number[], rootId: string, vis: Visibility | null) {
  return placesOf(
    db,
    sql`select entity_id, entity_type from search_docs where doc_id in (select value from json_each(${JSON.stringify(docIds)}))`,
    rootId,
    vis,
  );
}

export interface PlaceRow {
  id: string;
  group_id: string | null;
  home_readable: number;
  chain: string | null;
}

function placesOf(db: Database, entities: SQL, rootId: string, vis: Visibility | null) {
  return db.all<PlaceRow>(sql`
    with e(id, type) as (${entities}),
    home(id, group_id) as (
      select e.id, case when e.type = 'group' then (select parent_id from groups where id = e.id)
        else (select m.group_id from group_members m join groups pg on pg.id = m.group_id
          where m.el_id = e.id and m.el_type = 'asset' and m.trashed_at is null and pg.deleted_at is null order by m.ctime limit 1) end
      from e)
    select h.id, h.group_id,
      coalesce((select ${visibleSql(vis, "group", sql`hg.id`, sql`hg.owner_id`)} from groups hg
        where hg.id = h.group_id${vis === null ? sql`` : sql` and hg.id <> ${rootId}`}), 0) as home_readable,
      (select json_group_array(json_array(id, name, readable)) from (select g.id, g.name,
        ${visibleSql(vis, "group", sql`g.id`, sql`g.owner_id`)} as readable from group_closure c join groups g on g.id = c.ancestor
      where c.descendant = h.group_id and c.ancestor <> ${rootId} order by c.depth desc)) as chain
    from home h`);
}

export interface TextRow {
  id: string;
  type: "asset" | "group";
  name: string;
  meta: string;
  content: string;
  rank: number;
  mime: string | null;
  candidates: number;
}

/** The visible, live, filtered documents among `docIds`, in that order, at most `limit`. */
function visibleInOrder(db: Database, docIds: readonly number[], vis: Visibility | null, f: SearchFilters, limit: number) {
  return db.all<{ doc_id: number; id: string; type: "asset" | "group"; name: string; mime: string | null }>(sql`
    with ${candidatesCte(docIds)}
    select c.doc_id as doc_id, d.entity_id as id, d.entity_type as type, coalesce(a.name, g.name) as name, a.mime as mime
    ${visibleCandidatesSql(vis, f)}
    order by c.pos limit ${limit}`);
}

/**
 * Visible matches with their indexed text, for autocomplete, vector ranking and RAG: the best `limit` by bm25 among
 * the best `candidates` matches of the index (ALL_MATCHES when null), or with `order: "newest"` the newest `limit` —
 * read off the index in rowid order a chunk at a time, so the scan stops at `limit` visible rows (autocomplete on a
 * short prefix matches a large part of the corpus).
 */
export async function searchTexts(
  db: Database,
  search: SearchShards,
  o: {
    match: string;
    vis: Visibility | null;
    filters: SearchFilters;
    limit: number;
    contentChars: number;
    order?: "rank" | "newest";
    candidates?: number | null;
  },
): Promise<TextRow[]> {
  let rows: { doc_id: number; id: string; type: "asset" | "group"; name: string; mime: string | null; rank: number }[] = [];
  let candidates = 0;
  if (o.order === "newest") {
    let before = Number.MAX_SAFE_INTEGER;
    const chunk = Math.max(200, o.limit * 4);
    for (;;) {
      const docs = await matchedDocs(search, o.match, { limit: chunk, before });
      const found = await visibleInOrder(db, docs, o.vis, o.filters, o.limit - rows.length);
      rows = rows.concat(found.map((r) => ({ ...r, rank: 0 })));
      if (rows.length >= o.limit || docs.length < chunk) break;
      before = docs[docs.length - 1];
    }
  } else {
    const ranked = await rankedDocs(search, o.match, o.candidates ?? null);
    candidates = ranked.length;
    rows = withRanks(await visibleInOrder(db, ranked.map((r) => r.doc_id), o.vis, o.filters, o.limit), ranked);
  }
  if (rows.length === 0) return [];
  const texts = new Map((await textsOf(search, rows.map((r) => r.doc_id), o.contentChars)).map((t) => [t.doc_id, t]));
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    name: r.name,
    meta: texts.get(r.doc_id)?.meta ?? "",
    content: texts.get(r.doc_id)?.content ?? "",
    rank: r.rank,
    mime: r.mime,
    candidates: o.order === "newest" ? 0 : candidates,
  }));
}

/** Tags of the given entities whose name has a word starting with `prefix`, most carried first. */
export function tagsOfEntities(db: Database, ids: readonly string[]) {
  return db.all<{ name: string; n: number }>(sql`
    select t.name, count(*) as n from entity_tags et join tags t on t.id = et.tag_id
    where et.entity_id in (select value from json_each(${JSON.stringify(ids)})) group by t.id order by n desc limit 200`);
}

/** Text field values of the given entities. */
export function fieldTextsOfEntities(db: Database, ids: readonly string[]) {
  return db.all<{ value: string }>(sql`
    select distinct json_extract(fv.data, '$') as value from field_values fv
    where fv.entity_id in (select value from json_each(${JSON.stringify(ids)})) and json_valid(fv.data) and json_type(fv.data) = 'text'
    limit 200`);
}

/** Extracted text of the given search documents' assets (a ranked window's best rows, read beside its page). */
export function contentsOfDocs(db: Database, docIds: readonly number[]) {
  return db.all<{ asset_id: string; version: number; text: string }>(sql`
    select c.asset_id, c.version, c.text from search_docs d join search_content c on c.asset_id = d.entity_id
    where d.doc_id in (select value from json_each(${JSON.stringify(docIds)})) and d.entity_type = 'asset'`);
}

/** Extracted text of the given assets, with the version it came from. */
export function contentsOf(db: Database, ids: readonly string[]) {
  return db.all<{ asset_id: string; version: number; text: string }>(sql`
    select asset_id, version, text from search_content where asset_id in (select value from json_each(${JSON.stringify(ids)}))`);
}

/** Stores the extracted text of an asset's version (the triggers mark the asset for the index feed in the same statement). */
export function upsertContentSql(assetId: string, version: number, text: string, now: number) {
  return sql`insert into search_content (asset_id, version, text, mtime) values (${assetId}, ${version}, ${text}, ${now})
    on conflict (asset_id) do update set version = excluded.version, text = excluded.text, mtime = excluded.mtime`;
}

/** Forgets an asset's extracted text (its latest version has none). */
export function deleteContentSql(assetId: string) {
  return sql`delete from search_content where asset_id = ${assetId}`;
}

/** Marks the search documents of the given entities for the feed to rebuild from the live tables (the reindex operation's repair). */
export function refreshDocsStatements(ids: readonly string[]): SQL[] {
  return refreshDocsOf(sql`(select value from json_each(${JSON.stringify(ids)}))`);
}

/**
 * `refreshDocsStatements` for a folder and every folder below it (their files are refreshed in chunks); for the
 * virtual root, every document there is, files listed nowhere included: the whole index is rebuilt from the catalog.
 */
export function refreshFolderDocsStatements(groupId: string, rootId: string): SQL[] {
  if (groupId === rootId) return [sql`update search_epoch set n = n + 1 where id = 1`, ...markAllStatements()];
  return refreshDocsOf(sql`(select descendant from group_closure where ancestor = ${groupId})`);
}

function refreshDocsOf(list: SQL): SQL[] {
  return [
    // a repaired document may answer differently: cached answers computed before it must not be served (decision 031)
    sql`update search_epoch set n = n + 1 where id = 1`,
    ...markEntitiesStatements(list),
  ];
}
