import { ru } from "../../i18n/ru";
import type { FacetName, FacetValue } from "../../lib/search-api";

const ORDER: FacetName[] = ["type", "review", "tag", "class", "owner"];

/**
 * The facet sidebar: counts over what the caller may see; a value sets its filter in the URL, the active one
 * clears it. Tags filter by name, the others by id.
 */
export function SearchFacets({
  facets,
  partial,
  active,
  onPick,
}: {
  facets: Record<FacetName, FacetValue[]>;
  /** the counts cover the best matches only (many matches) */
  partial: boolean;
  active: Record<string, string>;
  onPick: (facet: FacetName, value: string | null) => void;
}) {
  return (
    <aside className="search-facets" aria-label={ru.search.facets.type}>
      {ORDER.filter((name) => (facets[name]?.length ?? 0) > 0).map((name) => (
        <section key={name} className="search-facet">
          <h3>{ru.search.facets[name]}</h3>
          {facets[name].map((f) => {
            const value = name === "tag" ? f.label : f.value;
            const on = active[name] === value;
            return (
              <button
                key={f.value}
                type="button"
                className={`search-facet-value${on ? " active" : ""}`}
                aria-pressed={on}
                onClick={() => onPick(name, on ? null : value)}
              >
                <span className="search-facet-label">{f.label}</span>
                <span className="search-facet-count">{f.count}</span>
              </button>
            );
          })}
        </section>
      ))}
      {partial && <p className="muted search-facets-note">{ru.search.facetsPartial}</p>}
    </aside>
  );
}
