import { apiRequest } from "./api-client";
import type { SearchHit } from "./search-api";

/** How many similar files and folders the «Похожие по смыслу» tab shows. */
export const SIMILAR_TAKE = 50;

export interface SimilarResult {
  /** "vectorize" with Workers AI bound, else the offline embedding (docs/decisions/011-search.md) */
  engine: "vectorize" | "offline";
  hits: SearchHit[];
}

/**
 * Semantic search (GET /api/search/vector/{x}): files and folders nearest in meaning to `q`, only those the caller
 * may read (the API filters by rights in SQL). `like` is the file the search started from, left out of its own list.
 */
export async function similarTo(q: string, filters: Record<string, string>, like: string | null, signal?: AbortSignal): Promise<SimilarResult> {
  const result = await apiRequest<SimilarResult>(`/api/search/vector/${encodeURIComponent(q)}`, {
    query: { ...filters, take: SIMILAR_TAKE },
    signal,
    toast: false,
  });
  return like ? { ...result, hits: result.hits.filter((h) => h.id !== like) } : result;
}

/** The words of a file's name, without the extension and separators: what «Найти похожие» searches by. */
export function nameQuery(name: string): string {
  const words = name
    .replace(/\.[^.\s]{1,8}$/, "")
    .replace(/[_\-.+()[\]{}«»"']+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return (words || name).slice(0, 100);
}

/** The /search address of files similar to a file. */
export function similarHref(asset: { id: string; name: string }): string {
  return `/search?${new URLSearchParams({ tab: "similar", q: nameQuery(asset.name), like: asset.id, like_name: asset.name })}`;
}
