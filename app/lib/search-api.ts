import type { ReviewStatus } from "../../shared/review-status";
import type { CommentCounts } from "../../shared/comment-counts";
import { apiRequest } from "./api-client";

/** Client of /api/search (decision 011); the shapes mirror workers/api/routes/search.routes.ts. */

export interface SearchHit {
  type: "asset" | "group";
  id: string;
  name: string;
  name_html: string;
  snippet: string;
  why: ("name" | "meta" | "content")[];
  group_id: string | null;
  path: string;
  mime: string | null;
  version: number | null;
  preview: string | null;
  /** a file's current review status */
  review_status?: ReviewStatus | null;
  /** a file's comments and its unresolved ones; null for folders */
  comments?: CommentCounts | null;
  /** where a photo was taken (EXIF GPS) */
  lat?: number | null;
  lon?: number | null;
}

export interface FacetValue {
  value: string;
  label: string;
  count: number;
}

export type FacetName = "type" | "tag" | "class" | "owner" | "review";

export interface SearchResult {
  total: number;
  /** false when `total` is an estimate (many matches) */
  total_exact: boolean;
  skip: number;
  take: number;
  hits: SearchHit[];
  facets?: Record<FacetName, FacetValue[]>;
  /** true when the facets count the best matches only */
  facets_partial?: boolean;
}

export interface Suggestion {
  text: string;
  kind: "name" | "tag" | "field";
  id?: string;
  type?: "asset" | "group";
}

export interface RagAnswer {
  found: boolean;
  mode: "extractive" | "llm" | "none";
  answer: string;
  citations: { n: number; asset_id: string; version: number; name: string; snippet: string }[];
}

/** The filters the /search screen keeps in its URL and passes on. */
export const FILTER_PARAMS = ["type", "tag", "class", "owner", "mime", "group", "from", "to", "review", "bbox"] as const;

/** Results per page on the /search screen. */
export const PAGE_SIZE = 50;

export function searchQuery(q: string, filters: Record<string, string>, skip: number, signal?: AbortSignal): Promise<SearchResult> {
  return apiRequest<SearchResult>(`/api/search/query/${encodeURIComponent(q)}`, {
    query: { ...filters, facets: true, skip, take: PAGE_SIZE },
    signal,
    toast: false,
  });
}

/** Results a map of a search places at most (the best matches; the rest are counted in `total`). */
export const MAP_SEARCH_TAKE = 200;

/** The best matches of `q` for the map (no facets): hits carry `lat`/`lon` when the file has a position. */
export function searchPoints(q: string, filters: Record<string, string>, signal?: AbortSignal): Promise<SearchResult> {
  return apiRequest<SearchResult>(`/api/search/query/${encodeURIComponent(q)}`, {
    query: { ...filters, type: "asset", skip: 0, take: MAP_SEARCH_TAKE },
    signal,
    toast: false,
  });
}

export async function suggest(q: string, signal?: AbortSignal): Promise<Suggestion[]> {
  const { suggestions } = await apiRequest<{ suggestions: Suggestion[] }>(`/api/search/autocomplete/${encodeURIComponent(q)}`, {
    signal,
    toast: false,
  });
  return suggestions;
}

export function askQuestion(question: string): Promise<RagAnswer> {
  return apiRequest<RagAnswer>("/api/search/rag", { method: "POST", body: { question } });
}

/** The name of the folder a search is limited to; null when the caller cannot read it (no toast: the screen says so). */
export function folderName(id: string, signal?: AbortSignal): Promise<string | null> {
  return apiRequest<{ group_name: string }>(`/api/group/get/${id}`, { signal, toast: false }).then(
    (g) => g.group_name,
    () => null,
  );
}

/** Where a hit opens: a folder's page, or the viewer of a file within its folder (or by id). */
export function hitHref(hit: Pick<SearchHit, "type" | "id" | "group_id">): string {
  if (hit.type === "group") return `/mam/${hit.id}`;
  return hit.group_id ? `/mam/${hit.group_id}/asset/${hit.id}` : `/asset/${hit.id}`;
}
