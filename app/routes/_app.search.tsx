import { MetadataCsvActions } from "../components/metadata/metadata-csv-actions";
import type { MetaFunction } from "@remix-run/cloudflare";
import { useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { PageHeader } from "../components/page-header";
import { SearchAsk } from "../components/search/search-ask";
import { SearchFacets } from "../components/search/search-facets";
import { SearchMap } from "../components/map/search-map";
import { SearchResults } from "../components/search/search-results";
import { AddToCollectionButton } from "../components/collections/add-to-collection-dialog";
import { ru } from "../i18n/ru";
import { ApiError } from "../lib/api-error";
import { FILTER_PARAMS, folderName, PAGE_SIZE, searchQuery, type FacetName, type SearchResult } from "../lib/search-api";
import { similarTo, type SimilarResult } from "../lib/similar-search";

export const meta: MetaFunction = () => [{ title: `${ru.search.title} — ${ru.app.name}` }];

type State =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "done"; result: SearchResult }
  | { kind: "similar"; result: SimilarResult }
  | { kind: "error"; message: string; status: number };

/**
 * Search (SPEC §2 /search): results of `q` with facets and filters kept in the URL, «Похожие по смыслу» (the vector
 * search; `like` is the file «Найти похожие» started from, left out) and the "Спросить" tab.
 */
export default function SearchRoute() {
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const tabParam = params.get("tab");
  const tab = tabParam === "ask" ? "ask" : tabParam === "similar" ? "similar" : tabParam === "map" ? "map" : "results";
  const like = params.get("like");
  const likeName = params.get("like_name");
  const skip = Math.max(0, Number(params.get("skip")) || 0);
  const filters = Object.fromEntries(FILTER_PARAMS.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const filterKey = JSON.stringify(filters);
  const [state, setState] = useState<State>({ kind: "idle" });
  const [folder, setFolder] = useState<{ name: string | null; loading: boolean } | null>(null);

  useEffect(() => {
    if (!filters.group) return setFolder(null);
    const controller = new AbortController();
    setFolder({ name: null, loading: true });
    folderName(filters.group, controller.signal).then((name) => !controller.signal.aborted && setFolder({ name, loading: false }));
    return () => controller.abort();
  }, [filters.group]);

  useEffect(() => {
    if (tab === "ask" || !q.trim()) return setState({ kind: "idle" });
    const controller = new AbortController();
    setState({ kind: "loading" });
    const filtersNow = JSON.parse(filterKey) as Record<string, string>;
    (tab === "similar"
      ? similarTo(q, filtersNow, like, controller.signal).then((result): State => ({ kind: "similar", result }))
      : searchQuery(q, filtersNow, skip, controller.signal).then((result): State => ({ kind: "done", result }))
    ).then(
      (next) => setState(next),
      (error: Error) =>
        !controller.signal.aborted && setState({ kind: "error", message: error.message, status: error instanceof ApiError ? error.status : 0 }),
    );
    return () => controller.abort();
  }, [q, filterKey, skip, tab, like]);

  /** Changes URL parameters (a new filter or query starts at the first page). */
  function update(changes: Record<string, string | null>) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) v === null ? next.delete(k) : next.set(k, v);
    if (!("skip" in changes)) next.delete("skip");
    setParams(next);
  }

  const result = state.kind === "done" ? state.result : null;
  const similar = state.kind === "similar" ? state.result : null;
  const activeFilters = Object.keys(filters).length > 0;
  return (
    <div className="search-screen">
      <PageHeader
        title={
          tab === "similar" && likeName
            ? ru.similar.titleLike(likeName)
            : q && tab !== "ask"
            ? `${tab === "similar" ? ru.similar.tab : ru.search.title}: «${q}»`
            : ru.search.title
        }
        subtitle={
          result && tab === "results"
            ? ru.search.found(result.total, result.total_exact)
            : similar && tab === "similar"
            ? ru.similar.found(similar.hits.length)
            : undefined
        }
      />
      <nav className="tabs search-tabs" aria-label={ru.search.title}>
        {(["results", "similar", "map", "ask"] as const).map((t) => (
          <button
            key={t}
            type="button"
            aria-current={tab === t ? "page" : undefined}
            aria-label={t === "similar" ? ru.similar.tab : undefined}
            className={`tab${tab === t ? " active" : ""}`}
            onClick={() => update({ tab: t === "results" ? null : t, ...(t !== "similar" ? { like: null, like_name: null } : {}) })}
          >
            {t === "ask" ? (
              ru.search.tabAsk
            ) : t === "similar" ? (
              <>
                <span className="tab-full">{ru.similar.tab}</span>
                <span className="tab-short" aria-hidden="true">
                  {ru.similar.tabShort}
                </span>
              </>
            ) : t === "map" ? (
              ru.mapView.tab
            ) : (
              ru.search.tabResults
            )}
          </button>
        ))}
      </nav>
      {activeFilters && tab !== "ask" && (
        <div className="search-active-filters">
          {filters.group && <span className="chip active">{`${ru.search.inFolder}: ${folder?.name ?? (folder?.loading ? "…" : ru.search.folderUnavailable)}`}</span>}
          {Object.entries(filters)
            .filter(([k]) => k !== "group")
            .map(([k, v]) => (
              <span key={k} className="chip active">{`${ru.search.facets[k as FacetName] ?? ru.search.filterActive}: ${
                k === "review" ? (ru.reviews.statuses[v] ?? ru.reviews.none) : k === "bbox" ? ru.mapView.areaChip : (ru.search.types[v] ?? v)
              }`}</span>
            ))}
          <button type="button" className="btn btn-ghost" onClick={() => update(Object.fromEntries(FILTER_PARAMS.map((k) => [k, null])))}>
            {ru.search.clearFilters}
          </button>
        </div>
      )}
      {tab === "ask" ? (
        <SearchAsk initial={q} />
      ) : tab === "map" ? (
        <SearchMap q={q} filters={filters} onArea={(bbox) => update({ bbox: bbox ? bbox.join(",") : null })} />
      ) : tab === "similar" ? (
        <div className="search-main" data-testid="similar-results">
          <p className="muted similar-hint">{ru.similar.hint}</p>
          {state.kind === "idle" && <Empty title={ru.search.enterQuery} hint={ru.similar.enterHint} />}
          {state.kind === "loading" && <p className="muted">{ru.common.loading}</p>}
          {state.kind === "error" && <Empty title={state.message} hint={state.status === 404 ? ru.search.noAccessHint : undefined} />}
          {similar && similar.hits.length === 0 && <Empty title={ru.similar.nothing} hint={ru.search.nothingHint} />}
          {similar && similar.hits.length > 0 && <SearchResults hits={similar.hits} />}
        </div>
      ) : (
        <div className="search-layout">
          {result?.facets && result.total > 0 && (
            <SearchFacets facets={result.facets} partial={result.facets_partial === true} active={filters} onPick={(facet, value) => update({ [facet]: value })} />
          )}
          <div className="search-main">
            {state.kind === "idle" && <Empty title={ru.search.enterQuery} hint={filters.group ? ru.search.enterQueryInFolder : ru.search.enterQueryHint} />}
            {state.kind === "loading" && <p className="muted">{ru.common.loading}</p>}
            {state.kind === "error" && <Empty title={state.message} hint={state.status === 404 ? ru.search.noAccessHint : undefined} />}
            {result && result.total === 0 && <Empty title={ru.search.nothing} hint={ru.search.nothingHint} />}
            {result && result.hits.length > 0 && (
              <div className="csv-search-actions">
                {result.hits.some((h) => h.type === "asset") && (
                  // the files of the page shown, all at once: search results have no selection of their own
                  <AddToCollectionButton assetIds={result.hits.filter((h) => h.type === "asset").map((h) => h.id)} className="btn btn-ghost" />
                )}
                <MetadataCsvActions source={{ q }} name={q} />
              </div>
            )}
            {result && result.hits.length > 0 && <SearchResults hits={result.hits} />}
            {result && result.total > PAGE_SIZE && (
              <div className="search-pager">
                <button
                  type="button"
                  className="btn"
                  disabled={skip === 0}
                  onClick={() => update({ skip: String(Math.max(0, skip - PAGE_SIZE)) })}
                >
                  {ru.search.prev}
                </button>
                <span className="muted">{ru.search.page(Math.floor(skip / PAGE_SIZE) + 1, Math.ceil(result.total / PAGE_SIZE), result.total_exact)}</span>
                <button
                  type="button"
                  className="btn"
                  disabled={skip + PAGE_SIZE >= result.total && result.total_exact}
                  onClick={() => update({ skip: String(skip + PAGE_SIZE) })}
                >
                  {ru.search.next}
                </button>
              </div>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

function Empty({ title, hint }: { title: string; hint?: string }) {
  return (
    <section className="panel empty" data-testid="search-empty">
      <span className="empty-icon">
        <Icon name="search" size={26} />
      </span>
      <div className="empty-title">{title}</div>
      {hint && <div>{hint}</div>}
    </section>
  );
}
