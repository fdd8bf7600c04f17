/**
 * Search: full-text and vector search, query parsing (documents' text comes from media's extractor), and grounded answers (RAG).
 *
 * The domain's public face (decision record 025): code outside workers/services/search/ imports only this file.
 */
export { askQuestion } from "./rag.service";
export { autocomplete, indexVector, prefetchSearchEpoch, searchQuery, vectorSearch } from "./search.service";
export type { SearchFilters } from "./search.service";
export { MAX_SEARCH_WALK, searchAssetIdPages } from "./search-pages";
export { feedAfterChange, feedIndex, runIndexFeed } from "./index-feed";
