import { useCallback } from "react";
import { ru } from "../../i18n/ru";
import { searchPoints } from "../../lib/search-api";
import { useMapTileUrl } from "./map-tile-url";
import { MapView, type MapBbox, type MapLoader } from "./map-view";

/**
 * The «Карта» tab of search: the placed photos among the results of `q` with the screen's filters. «Искать в этой
 * области» puts the area into the URL's `bbox` filter, so the list tab shows the same narrowed results.
 */
export function SearchMap({ q, filters, onArea }: { q: string; filters: Record<string, string>; onArea: (bbox: MapBbox | null) => void }) {
  const tileUrl = useMapTileUrl();
  const filterKey = JSON.stringify(filters);
  const load = useCallback<MapLoader>(
    async (bbox, signal) => {
      const rest = Object.fromEntries(Object.entries(JSON.parse(filterKey) as Record<string, string>).filter(([k]) => k !== "bbox"));
      const result = await searchPoints(q, bbox ? { ...rest, bbox: bbox.join(",") } : rest, signal);
      const points = result.hits.flatMap((h) =>
        h.type === "asset" && typeof h.lat === "number" && typeof h.lon === "number"
          ? [{ id: h.id, name: h.name, lat: h.lat, lon: h.lon, href: h.group_id ? `/mam/${h.group_id}/asset/${h.id}` : `/asset/${h.id}` }]
          : [],
      );
      return { points, truncated: result.total > result.hits.length };
    },
    [q, filterKey],
  );
  if (!q) return <p className="muted">{ru.search.enterQuery}</p>;
  const area = filters.bbox ? (filters.bbox.split(",").map(Number) as MapBbox) : null;
  return <MapView load={load} tileUrl={tileUrl} area={area} onArea={onArea} />;
}
