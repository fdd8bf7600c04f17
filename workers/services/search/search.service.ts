import { ru } from "../../../shared/i18n/ru";
import { REVIEW_STATUSES, type ReviewStatus } from "../../../shared/review-status";
import { commentCountsOf, type CommentCounts } from "../../../shared/comment-counts";
import { gpsOf } from "../../db/repositories/geo.repository";
import { filterVisible, type Visibility } from "../../db/repositories/access.repository";
import * as repo from "../../db/repositories/search.repository";
import { MARK_END, MARK_START, type SearchFilters } from "../../db/repositories/search.repository";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { readRuleNodes, requireEntityAccess, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { previewRef, visiblePath } from "../library/pure";
import { cachedAnswer, rememberAnswer } from "./answer-cache";
import { caughtUp, readIndexState } from "./index-feed";
import type { IndexState } from "../../db/repositories/search-feed.repository";
import { indexMatch, visibilityExpression } from "./index-visibility";
import { cosine, embed } from "./embedding";
import { restoreSnippet } from "./snippet";
import { parsePrefix, parseQuery } from "./query-parser";
import { contentWords, normalize, stemPrefix, words } from "./tokenize";

export type { SearchFilters } from "../../db/repositories/search.repository";

/** Why a hit matched: its name, its metadata (tags, fields, class, file names, technical metadata), its text. */
export type MatchedIn = "name" | "meta" | "content";

export interface SearchHit {
  type: "asset" | "group";
  id: string;
  name: string;
  /** the name, HTML-escaped, matched words in `<mark>` */
  name_html: string;
  /** a fragment of the metadata or text around the matched words, HTML-escaped with `<mark>` (empty when only the name matched) */
  snippet: string;
  why: MatchedIn[];
  /** the folder the hit lies in (an asset's first folder, a group's parent) and its path below the root */
  group_id: string | null;
  path: string;
  mime: string | null;
  version: number | null;
  preview: string | null;
  score: number;
  mtime: number;
  /** a file's current review status (decision record 036); null for folders and undecided files */
  review_status: ReviewStatus | null;
  /** a file's comments and its unresolved ones (decision record 035); null for folders */
  comments: CommentCounts | null;
  /** where a photo was taken (its EXIF GPS), for the map view; null without a position */
  lat: number | null;
  lon: number | null;
}

export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

export interface SearchResult {
  total: number;
  /** false when `total` is a lower bound: more than TOTAL_CAP visible matches (see totalOf) */
  total_exact: boolean;
  skip: number;
  take: number;
  hits: SearchHit[];
  facets?: Record<"type" | "tag" | "class" | "owner" | "review", FacetValue[]>;
  /** true when the facets counted fewer visible entries than the total (the best FACET_CANDIDATES matches only) */
  facets_partial?: boolean;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML and turns the index's match markers into `<mark>` elements. */
export function markedHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (c) => ESCAPES[c])
    .replaceAll(MARK_START, "<mark>")
    .replaceAll(MARK_END, "</mark>");
}

/**
 * The real name with the highlight's marks: the index holds the name with ё folded to е, one character for one, so
 * the marks' positions carry over.
 */
export function markName(name: string, highlighted: string): string {
  let out = "";
  let i = 0;
  for (const c of highlighted) {
    if (c === MARK_START || c === MARK_END) out += c;
    else {
      const real = name.slice(i, i + c.length);
      out += real || c;
      i += c.length;
    }
  }
  return out + name.slice(i);
}
const marked = (text: string | null) => Boolean(text && text.includes(MARK_START));

/** The caller's visibility, after checking that a `group` filter names a group they may read. */
async function scopeOf(rc: RequestContext, actor: Actor, filters: SearchFilters): Promise<Visibility | null> {
  if (filters.group && filters.group !== ROOT_GROUP_ID) {
    await requireEntityAccess(rc, actor, { id: filters.group, type: "group", ownerId: null }, "read", ru.search.groupNotFound);
  }
  const f = filters.group === ROOT_GROUP_ID ? { ...filters, group: undefined } : filters;
  Object.assign(filters, f);
  return visibility(rc, actor);
}

/**
 * Where each hit lies, as the caller may know it (issue 24): the path keeps only the unbroken run of folders they
 * read above the hit (`visiblePath`), and a folder they cannot read is not named as the hit's place. Administrators
 * read every folder, so they see the stored paths.
 */
function visiblePlaces(places: readonly repo.PlaceRow[]): { id: string; group_id: string | null; path: string }[] {
  return places.map((place) => {
    const chain = (JSON.parse(place.chain ?? "[]") as [string, string, number][]).map(([id, name, readable]) => ({ id, name, readable }));
    const readable = new Set(chain.filter((a) => a.readable).map((a) => a.id));
    const home = place.group_id && place.home_readable ? place.group_id : null;
    // visiblePath always keeps the last node; a hidden home folder leaves no path at all.
    const kept = home ? visiblePath(chain, readable, ROOT_GROUP_ID) : [];
    return { id: place.id, group_id: home, path: kept.map((a) => a.name).join("/") };
  });
}

/**
 * The extracted text of the page's assets whose text snippet may hold a folded ё (an е inside a mark or around it):
 * the snippet is shown in the original's words (`restoreSnippet`). Read only for those rows.
 */
async function originalTexts(
  rc: RequestContext,
  rows: readonly repo.HitRow[],
  marks: ReadonlyMap<number, { content_snip: string }>,
  known: ReadonlyMap<string, string>,
): Promise<ReadonlyMap<string, string>> {
  const ids = rows
    .filter((r) => r.type === "asset" && !known.has(r.id) && mayHoldFoldedYo(marks.get(r.doc_id)?.content_snip ?? ""))
    .map((r) => r.id);
  if (ids.length === 0) return known;
  return new Map([...known, ...(await repo.contentsOf(rc.db, ids)).map((c) => [c.asset_id, c.text] as const)]);
}

/** Whether a text snippet may hold an ё the index folded to е. */
const mayHoldFoldedYo = (snippet: string) => /[еЕ]/.test(snippet);

/**
 * What a page's hits show, read ahead for the likely page (`hitsAhead`): highlights by document, places and original
 * texts by entity.
 */
interface HitParts {
  marks: ReadonlyMap<number, repo.Highlight>;
  places: ReadonlyMap<string, repo.PlaceRow>;
  originals: ReadonlyMap<string, string>;
}

/**
 * The places and original texts of the documents whose highlights came with the ranked window, read while the
 * catalog pages the window (decision 041): the page is nearly always they, so its hits need no round trip more.
 */
async function hitsAhead(rc: RequestContext, vis: Visibility | null, window: repo.RankedWindow): Promise<HitParts> {
  const docs = window.marks.map((m) => m.doc_id);
  const folded = window.marks.filter((m) => mayHoldFoldedYo(m.content_snip)).map((m) => m.doc_id);
  const [places, originals] = await Promise.all([
    docs.length ? repo.pathsOfDocs(rc.db, docs, ROOT_GROUP_ID, vis) : [],
    folded.length ? repo.contentsOfDocs(rc.db, folded) : [],
  ]);
  return {
    marks: new Map(window.marks.map((m) => [m.doc_id, m])),
    places: new Map(places.map((p) => [p.id, p])),
    originals: new Map(originals.map((c) => [c.asset_id, c.text])),
  };
}

const NOTHING_AHEAD: HitParts = { marks: new Map(), places: new Map(), originals: new Map() };

/**
 * Hits of a page; with `match`, their highlighted names and snippets (read for the page's rows only). What `ahead`
 * holds is not read again.
 */
async function toHits(
  rc: RequestContext,
  vis: Visibility | null,
  rows: repo.HitRow[],
  match?: string,
  ahead: HitParts = NOTHING_AHEAD,
): Promise<SearchHit[]> {
  if (rows.length === 0) return [];
  const unplaced = rows.filter((r) => !ahead.places.has(r.id));
  const unmarked = match ? rows.filter((r) => !ahead.marks.has(r.doc_id)).map((r) => r.doc_id) : [];
  const [paths, marks] = await Promise.all([
    unplaced.length ? repo.pathsOf(rc.db, unplaced, ROOT_GROUP_ID, vis) : [],
    match && unmarked.length ? repo.highlightsOf(rc.search, match, unmarked) : [],
  ]);
  const marksByDoc = new Map([...ahead.marks, ...marks.map((m) => [m.doc_id, m] as const)]);
  const originals = await originalTexts(rc, rows, marksByDoc, ahead.originals);
  const placed = rows.flatMap((r) => ahead.places.get(r.id) ?? []);
  const pathById = new Map(visiblePlaces([...placed, ...paths]).map((p) => [p.id, p]));
  return rows.map((r) => {
    const m = marksByDoc.get(r.doc_id) ?? { name_hl: r.name, meta_snip: "", content_snip: "" };
    const why: MatchedIn[] = [];
    if (marked(m.name_hl)) why.push("name");
    if (marked(m.meta_snip)) why.push("meta");
    if (marked(m.content_snip)) why.push("content");
    const original = originals.get(r.id);
    const snippet = marked(m.content_snip) ? (original ? restoreSnippet(original, m.content_snip) : m.content_snip) : marked(m.meta_snip) ? m.meta_snip : "";
    const place = pathById.get(r.id);
    const gps = gpsOf(r.gps);
    return {
      type: r.type,
      id: r.id,
      name: r.name,
      name_html: markedHtml(markName(r.name, m.name_hl)),
      snippet: markedHtml(snippet),
      why,
      group_id: place?.group_id ?? null,
      path: place?.path ?? "",
      mime: r.mime,
      version: r.type === "asset" ? r.latest_version : null,
      preview: r.type === "asset" && r.has_preview && r.latest_version ? previewRef(r.id, r.latest_version) : null,
      score: Math.round(-r.rank * 1000) / 1000,
      mtime: r.mtime,
      review_status: r.type === "asset" ? (r.review_status ?? null) : null,
      comments: r.type === "asset" ? commentCountsOf(r) : null,
      lat: gps?.lat ?? null,
      lon: gps?.lon ?? null,
    };
  });
}

type Facets = NonNullable<SearchResult["facets"]>;
/** The review facet's values in the order a review moves through them. */
const REVIEW_FACET_ORDER = [...REVIEW_STATUSES, "none"] as const;
const FACET_TOP = 20;

/** Facet counts over the visible candidates: every type, and the `FACET_TOP` most frequent tags, classes and owners. */
function facetsOf(rows: readonly repo.FacetSourceRow[]): Facets {
  const counts = {
    type: new Map<string, number>(),
    tag: new Map<string, number>(),
    class: new Map<string, number>(),
    owner: new Map<string, number>(),
    review: new Map<string, number>(),
  };
  const labels = new Map<string, string>();
  const add = (facet: keyof typeof counts, value: string | null, label?: string | null) => {
    if (!value) return;
    counts[facet].set(value, (counts[facet].get(value) ?? 0) + 1);
    if (label) labels.set(`${facet}:${value}`, label);
  };
  for (const r of rows) {
    add("type", r.type);
    add("owner", r.owner_id, r.owner_name);
    add("class", r.class_id, r.class_name);
    for (const [tag, name] of JSON.parse(r.tags) as [string, string | null][]) add("tag", tag, name);
    // Files only: a folder has no review status, and "none" is a value a filter can ask for.
    if (r.type === "asset") add("review", r.review_status ?? "none");
  }
  const facets: Facets = { type: [], tag: [], class: [], owner: [], review: [] };
  facets.review = REVIEW_FACET_ORDER.filter((value) => counts.review.has(value)).map((value) => ({
    value,
    label: value === "none" ? ru.reviews.none : ru.reviews.statuses[value],
    count: counts.review.get(value) ?? 0,
  }));
  for (const facet of ["type", "tag", "class", "owner"] as const) {
    const entries = [...counts[facet]].map(([value, count]) => ({
      value,
      label: facet === "type" ? (ru.search.types[value] ?? value) : (labels.get(`${facet}:${value}`) ?? value),
      count,
    }));
    if (facet === "type") facets.type = entries.sort((a, b) => a.value.localeCompare(b.value));
    else facets[facet] = entries.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label, "ru")).slice(0, FACET_TOP);
  }
  return facets;
}

/** Index matches whose visibility is checked first, to size the window of ranked candidates. */
const SAMPLE = 200;
/** Over more matches than this, facets count the best this many. */
const FACET_CANDIDATES = 1000;
/** The smallest first window of ranked candidates. */
const MIN_CANDIDATES = 200;
/** Past this many candidates, widening ranks every match at once. */
const MAX_CANDIDATES = 50_000;

/**
 * Runs a ranked query over the best `first` index matches (every match when null), widening ×8 until it returns
 * `want` rows or the window held every match; a window with no visible row goes straight to every match.
 */
export async function widening<T extends { candidates: number }>(
  first: number | null,
  want: number,
  run: (candidates: number | null) => Promise<T[]>,
): Promise<T[]> {
  let limit = first;
  for (;;) {
    const rows = await run(limit);
    if (limit === null || rows.length >= want || (rows.length > 0 && rows[0].candidates < limit)) return rows;
    limit = rows.length === 0 || limit * 8 > MAX_CANDIDATES ? null : limit * 8;
  }
}

/** The first window for `want` visible rows when `share` of the matches are visible (a margin of half again). */
export function firstWindow(want: number, share: number): number {
  return Math.max(MIN_CANDIDATES, Math.ceil((want / Math.max(share, 0.01)) * 1.5));
}

/**
 * A tag filter as an index condition too: the tag's words as a phrase of the metadata column, so a filtered query
 * ranks only entities that can carry the tag (the exact tag check stays in SQL). Tags without words add nothing.
 */
function tagPhrase(tag: string | undefined): string | null {
  const list = tag ? words(tag) : [];
  return list.length ? `meta : "${list.join(" ")}"` : null;
}

/** Visible matches counted exactly up to this many; past it the total is "1000+" (`total_exact: false`). */
export const TOTAL_CAP = 1000;

/**
 * The total of a query, over the entries the caller may see only (issue 24: an estimate from every match, visible
 * or not, told how many hidden files hold a word). Exact when the page ends the list or its window of candidates held
 * every match; else the visible matches counted up to TOTAL_CAP; past the cap, a lower bound ("1000+", never below
 * what paging has shown, one more than the page when the list goes on) with `total_exact: false`.
 */
async function totalOf(
  found: repo.HitRow[],
  o: { skip: number; want: number; heldAll: boolean; count: () => Promise<number> },
): Promise<{ total: number; total_exact: boolean }> {
  if (found.length < o.want && (found.length > 0 || o.skip === 0)) return { total: o.skip + found.length, total_exact: true };
  const head = found[0];
  if (head && o.heldAll) return { total: head.window_visible, total_exact: true };
  const visible = await o.count();
  if (visible <= TOTAL_CAP) return { total: visible, total_exact: true };
  return { total: Math.max(TOTAL_CAP, o.skip + found.length), total_exact: false };
}

/** Index state reads started before the caller was authenticated (`prefetchSearchEpoch`), by request. */
const prefetched = new WeakMap<RequestContext, Promise<IndexState>>();

/**
 * Starts reading the search epoch (and whether the index is behind) alongside authentication, so the read costs no
 * round trip of its own (decision 031). Read earlier than the answer's statements is still safe: an answer stored
 * under an older epoch is never served.
 */
export function prefetchSearchEpoch(rc: RequestContext): void {
  const read = readIndexState(rc);
  read.catch(() => {});
  prefetched.set(rc, read);
}

/** The index state for this request (the prefetched read, else read now), caught up with pending changes first (decision 040). */
function indexStateOf(rc: RequestContext): Promise<IndexState> {
  return caughtUp(rc, prefetched.get(rc));
}

/**
 * GET /api/search/query/{x}: visible, live assets and groups matching every word of `text` (stemmed), best first
 * (bm25, names above metadata above text), one page with the total and, when asked, facet counts (decision 011).
 */
export async function searchQuery(
  rc: RequestContext,
  actor: Actor,
  text: string,
  filters: SearchFilters,
  o: { skip: number; take: number; facets: boolean },
): Promise<SearchResult> {
  const { match } = parseQuery(text);
  // Read before the answer's own statements, so a cached answer is never older than its epoch (decision 031).
  const [vis, index, rules] = await Promise.all([scopeOf(rc, actor, filters), indexStateOf(rc), readRuleNodes(rc, actor)]);
  const key = JSON.stringify(["query", accessClass(vis), match, filters, o.skip, o.take, o.facets]);
  const known = cachedAnswer<SearchResult>(key, index.epoch);
  if (known) return known;
  const answer = await computeQuery(rc, vis, indexVisibility(vis, rules, index), match, filters, o);
  rememberAnswer(key, index.epoch, answer);
  return answer;
}

/**
 * Who an answer may be shown to: every administrator alike (null visibility), otherwise the one user with their
 * chroot, rules and token scope (a robot token's scope narrows what its user sees).
 */
function accessClass(vis: Visibility | null): string {
  return vis === null ? "admin" : JSON.stringify([vis.userId, vis.chroot, vis.scope ?? [], vis.rules, vis.deny ?? null]);
}

/**
 * The caller's visibility as the index decides it (decision 039): null for administrators (everything), for the
 * rare reader whose rules are too many for one expression, and while documents wait to be indexed (decision 040:
 * their tokens may be stale) — SQL decides then, as before.
 */
function indexVisibility(vis: Visibility | null, rules: Awaited<ReturnType<typeof readRuleNodes>>, index: IndexState): string | null {
  return vis === null || rules === null || index.behind ? null : visibilityExpression(vis, rules);
}

/**
 * The answer of `searchQuery`, computed from the index and the live tables (decision 011). With `inIndex`, the
 * index drops what the caller may not see and SQL checks only liveness and filters, as for an administrator.
 */
async function computeQuery(
  rc: RequestContext,
  vis: Visibility | null,
  inIndex: string | null,
  match: string | null,
  filters: SearchFilters,
  o: { skip: number; take: number; facets: boolean },
): Promise<SearchResult> {
  const empty: SearchResult = { total: 0, total_exact: true, skip: o.skip, take: o.take, hits: [], ...(o.facets ? { facets: { type: [], tag: [], class: [], owner: [], review: [] }, facets_partial: false } : {}) };
  if (!match) return empty;
  const phrase = tagPhrase(filters.tag);
  const q = { match: indexMatch(phrase ? `(${match}) AND ${phrase}` : match, inIndex), vis: inIndex ? null : vis, filters };
  // One row past the page tells whether the list goes on.
  const want = o.take + 1;
  const window = await firstCandidates(rc, q, o.skip + want, o.facets);
  if (window === "none") return empty;
  let last = window;
  let ahead: Promise<HitParts> | null = null;
  let counting: Promise<number> | null = null;
  const ranked = async (candidates: number | null) => {
    last = candidates;
    // The index ranks (SEARCH) with the page's likely highlights and a total's first chunk; the catalog walks the
    // ranked window beside the likely page's places and that count (decisions 040, 041).
    const found = await repo.rankedWindow(rc.search, q.match, {
      limit: candidates,
      marked: { skip: o.skip, take: want },
      scan: repo.countChunk(TOTAL_CAP + 1),
    });
    if (!ahead) {
      ahead = hitsAhead(rc, vis, found);
      ahead.catch(() => {});
    }
    // A window that did not hold every match leaves a total to count: begun now, beside the page.
    if (!counting && found.ranked.length === (candidates ?? repo.ALL_MATCHES)) {
      counting = repo.countVisible(rc.db, rc.search, { ...q, cap: TOTAL_CAP, first: found.firstMatches });
      counting.catch(() => {});
    }
    const window = { ranked: found.ranked, vis: q.vis, filters: q.filters };
    return o.facets ? repo.searchWindow(rc.db, window) : repo.searchPage(rc.db, { ...window, skip: o.skip, take: want });
  };
  // With facets, every visible candidate of the window comes back (the page is cut here), so the page and the facets
  // share one ranking of the index.
  const windowRows = await widening(window, o.facets ? o.skip + want : want, ranked);
  const found = o.facets ? windowRows.slice(o.skip, o.skip + want) : windowRows;
  const heldAll = last === null || (windowRows.length > 0 && windowRows[0].candidates < last);
  const rows = found.slice(0, o.take);
  const [total, hits, facets] = await Promise.all([
    totalOf(found, { skip: o.skip, want, heldAll, count: () => counting ?? repo.countVisible(rc.db, rc.search, { ...q, cap: TOTAL_CAP }) }),
    (ahead ?? Promise.resolve(NOTHING_AHEAD)).then((known) => toHits(rc, vis, rows, match, known)),
    o.facets ? facetsOf((windowRows as repo.FacetedHitRow[]).filter((r) => r.pos <= FACET_CANDIDATES)) : undefined,
  ]);
  // Partial only when the facets counted fewer visible entries than there are (each is counted once by type), so
  // the flag says nothing about matches the caller cannot see.
  const counted = facets ? facets.type.reduce((sum, t) => sum + t.count, 0) : 0;
  return {
    ...total,
    skip: o.skip,
    take: o.take,
    hits,
    ...(facets ? { facets, facets_partial: !total.total_exact || counted < total.total } : {}),
  };
}

/**
 * The first window of ranked candidates for `need` visible rows, or "none" when no match is visible. Administrators
 * see every live match, so their window is sized without looking; others' from the visible share of a sample of the
 * index's matches (one statement more, but a reader who sees a tenth of the corpus is not ranked twice). A faceted
 * query needs the best FACET_CANDIDATES matches anyway.
 */
async function firstCandidates(
  rc: RequestContext,
  q: { match: string; vis: Visibility | null; filters: SearchFilters },
  need: number,
  facets = false,
): Promise<number | null | "none"> {
  const atLeast = (n: number) => (facets ? Math.max(n, FACET_CANDIDATES) : n);
  if (q.vis === null) return atLeast(firstWindow(need, 1));
  const sample = await repo.matchSample(rc.db, rc.search, { ...q, size: SAMPLE });
  if (sample.seen === sample.matches) return sample.visible === 0 ? "none" : null;
  return atLeast(firstWindow(need, sample.visible / sample.seen));
}

export interface Suggestion {
  text: string;
  kind: "name" | "tag" | "field";
  /** for names: the entity the suggestion opens */
  id?: string;
  type?: "asset" | "group";
}

/** Whether some word of `text` starts with `prefix` (both normalized). */
const hasWordStarting = (text: string, prefix: string) => words(text).some((w) => w.startsWith(prefix));

/**
 * GET /api/search/autocomplete/{x}: up to 10 suggestions for what is being typed — names of visible entities, and
 * the tags and text field values they carry — whose words start with the last word typed. Candidates are the newest
 * 30 visible matches (no ranking of every match: it has to answer within a keystroke on a large corpus).
 */
export async function autocomplete(rc: RequestContext, actor: Actor, text: string): Promise<{ suggestions: Suggestion[] }> {
  const parsed = parsePrefix(text);
  if (!parsed.match) return { suggestions: [] };
  const [vis, index, rules] = await Promise.all([visibility(rc, actor), indexStateOf(rc), readRuleNodes(rc, actor)]);
  const key = JSON.stringify(["autocomplete", accessClass(vis), parsed.match, normalize(parsed.prefix)]);
  const known = cachedAnswer<{ suggestions: Suggestion[] }>(key, index.epoch);
  if (known) return known;
  const inIndex = indexVisibility(vis, rules, index);
  const answer = await computeAutocomplete(rc, inIndex ? null : vis, { ...parsed, match: inIndex ? `${parsed.match} AND ${inIndex}` : parsed.match });
  rememberAnswer(key, index.epoch, answer);
  return answer;
}

async function computeAutocomplete(
  rc: RequestContext,
  vis: Visibility | null,
  parsed: ReturnType<typeof parsePrefix>,
): Promise<{ suggestions: Suggestion[] }> {
  if (!parsed.match) return { suggestions: [] };
  const rows = await repo.searchTexts(rc.db, rc.search, { match: parsed.match, vis, filters: {}, limit: 30, contentChars: 0, order: "newest" });
  const prefix = normalize(parsed.prefix);
  const out: Suggestion[] = [];
  const seen = new Set<string>();
  const push = (s: Suggestion) => {
    const key = normalize(s.text);
    if (out.length < 10 && !seen.has(key)) {
      seen.add(key);
      out.push(s);
    }
  };
  for (const r of rows) if (hasWordStarting(r.name, prefix)) push({ text: r.name, kind: "name", id: r.id, type: r.type });
  const ids = rows.map((r) => r.id);
  if (out.length < 10 && ids.length) {
    const [tags, fields] = await Promise.all([repo.tagsOfEntities(rc.db, ids), repo.fieldTextsOfEntities(rc.db, ids)]);
    for (const t of tags) if (hasWordStarting(t.name, prefix)) push({ text: t.name, kind: "tag" });
    for (const f of fields)
      if (typeof f.value === "string" && f.value.length <= 200 && hasWordStarting(f.value, prefix)) push({ text: f.value, kind: "field" });
  }
  return { suggestions: out };
}

/** Optional remote bindings (decision 011): present only when configured in wrangler.toml on a deployed Worker. */
interface RemoteSearchBindings {
  AI?: { run(model: string, input: Record<string, unknown>): Promise<unknown> };
  VECTORIZE?: {
    query(vector: number[], options: { topK: number }): Promise<{ matches: { id: string; score: number }[] }>;
    upsert(vectors: { id: string; values: number[] }[]): Promise<unknown>;
  };
}

/** The multilingual embedding model used with Workers AI. */
export const AI_EMBEDDING_MODEL = "@cf/baai/bge-m3";
/** The model that writes RAG answers with Workers AI. */
export const AI_ANSWER_MODEL = "@cf/meta/llama-3.1-8b-instruct";

function remote(rc: RequestContext): RemoteSearchBindings {
  return rc.env as unknown as RemoteSearchBindings;
}

async function aiEmbedding(rc: RequestContext, text: string): Promise<number[] | null> {
  const ai = remote(rc).AI;
  if (!ai) return null;
  const out = (await ai.run(AI_EMBEDDING_MODEL, { text: [text] })) as { data?: number[][] };
  return out.data?.[0] ?? null;
}

/**
 * Puts an asset's embedding into Vectorize when Workers AI and Vectorize are bound (called by text extraction);
 * nothing to do otherwise: the offline ranking needs no stored vector.
 */
export async function indexVector(rc: RequestContext, assetId: string, text: string): Promise<void> {
  const index = remote(rc).VECTORIZE;
  if (!index) return;
  const values = await aiEmbedding(rc, text.slice(0, 4000));
  if (values) await index.upsert([{ id: assetId, values }]);
}

/** How many visible candidates the offline vector ranking scores (recall set from the full-text index). */
const VECTOR_CANDIDATES = 300;

/**
 * GET /api/search/vector/{x}: semantic ranking. With Workers AI and Vectorize bound, the nearest vectors there,
 * access-filtered; otherwise (and locally, in tests) the offline embedding: the visible entities sharing any
 * word piece with the query are scored by the cosine of their hashed n-gram vectors (decision 011).
 */
export async function vectorSearch(
  rc: RequestContext,
  actor: Actor,
  text: string,
  filters: SearchFilters,
  o: { take: number },
): Promise<{ engine: "vectorize" | "offline"; hits: SearchHit[] }> {
  const vis = await scopeOf(rc, actor, filters);
  const bindings = remote(rc);
  if (bindings.AI && bindings.VECTORIZE) {
    const vector = await aiEmbedding(rc, text);
    if (vector) {
      const { matches } = await bindings.VECTORIZE.query(vector, { topK: 100 });
      const visible = await filterVisible(
        rc.db,
        vis,
        "asset",
        matches.map((m) => m.id),
      );
      const ids = matches.filter((m) => visible.has(m.id)).slice(0, o.take);
      return { engine: "vectorize", hits: await hitsByIds(rc, vis, filters, ids) };
    }
  }
  // Recall: any query word's first letters (a word piece), so near forms are candidates too.
  await indexStateOf(rc);
  const pieces = [...new Set(contentWords(text, 16).map((w) => stemPrefix(w).slice(0, Math.max(3, Math.min(5, w.length - 1)))))];
  if (pieces.length === 0) return { engine: "offline", hits: [] };
  const match = pieces.map((p) => `"${p}"*`).join(" OR ");
  const rows = await widening(MIN_CANDIDATES * 4, VECTOR_CANDIDATES, (candidates) =>
    repo.searchTexts(rc.db, rc.search, { match, vis, filters, limit: VECTOR_CANDIDATES, contentChars: 2000, candidates }),
  );
  const q = embed(text);
  const scored = rows
    .map((r) => ({ id: r.id, score: cosine(q, embed(`${r.name} ${r.name} ${r.meta} ${r.content}`)) }))
    .filter((r) => r.score > 0.05)
    .sort((a, b) => b.score - a.score)
    .slice(0, o.take);
  return { engine: "offline", hits: await hitsByIds(rc, vis, filters, scored) };
}

/** Full hits for ranked ids (names, paths, previews), keeping the given order and scores. */
async function hitsByIds(
  rc: RequestContext,
  vis: Visibility | null,
  filters: SearchFilters,
  ranked: { id: string; score: number }[],
): Promise<SearchHit[]> {
  if (ranked.length === 0) return [];
  // The ids' rows through the same visible, live, filtered conditions as `query` (Vectorize knows no permissions).
  const rows = await repo.pageOfIds(rc.db, { ids: ranked.map((r) => r.id), vis, filters });
  const hits = await toHits(rc, vis, rows);
  const byId = new Map(hits.map((h) => [h.id, h]));
  return ranked.flatMap((r) => {
    const hit = byId.get(r.id);
    return hit ? [{ ...hit, score: Math.round(r.score * 1000) / 1000 }] : [];
  });
}
