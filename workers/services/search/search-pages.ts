import type { Actor, RequestContext } from "../access";
import { searchQuery } from "./search.service";

/** Most search hits a walk over all pages visits (the search pages by relevance, not by id, so it stays bounded). */
export const MAX_SEARCH_WALK = 10_000;
const PAGE = 200;

/**
 * The files a search finds, as pages of asset ids (the search already shows only what the caller may see): the
 * source of a metadata CSV export of search results.
 */
export async function* searchAssetIdPages(rc: RequestContext, actor: Actor, q: string): AsyncGenerator<readonly string[]> {
  for (let skip = 0; skip < MAX_SEARCH_WALK; skip += PAGE) {
    const page = await searchQuery(rc, actor, q, { type: "asset" }, { skip, take: PAGE, facets: false });
    const ids = page.hits.filter((h) => h.type === "asset").map((h) => h.id);
    if (ids.length > 0) yield ids;
    if (page.hits.length < PAGE) return;
  }
}
