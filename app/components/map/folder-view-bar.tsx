import { useCallback } from "react";
import { ru } from "../../i18n/ru";
import { REVIEW_STATUSES } from "../../../shared/review-status";
import { groupLocations } from "../../lib/library-api";
import { useMapTileUrl } from "./map-tile-url";
import { MapView, type MapLoader } from "./map-view";

/**
 * Above a folder's files: the filter by review status and the switch to its map («Карта»). Both stay on the
 * screen's state; the listing asks the server with the filter, so paging stays exact.
 */
export function FolderViewBar({
  review,
  onReview,
  map,
  onMap,
}: {
  review: string | null;
  onReview: (review: string | null) => void;
  map: boolean;
  onMap: (map: boolean) => void;
}) {
  return (
    <div className="folder-view-bar">
      <label className="folder-review-filter">
        <span className="muted">{ru.reviewsUi.filter}</span>
        <select className="input" value={review ?? ""} onChange={(e) => onReview(e.target.value || null)} data-testid="review-filter">
          <option value="">{ru.reviewsUi.filterAll}</option>
          {REVIEW_STATUSES.map((s) => (
            <option key={s} value={s}>
              {ru.reviews.statuses[s]}
            </option>
          ))}
          <option value="none">{ru.reviews.none}</option>
        </select>
      </label>
      <div className="segmented" role="group" aria-label={ru.mapView.tab}>
        <button type="button" className={`btn btn-ghost${map ? "" : " active"}`} aria-pressed={!map} onClick={() => onMap(false)}>
          {ru.mapView.grid}
        </button>
        <button type="button" className={`btn btn-ghost${map ? " active" : ""}`} aria-pressed={map} onClick={() => onMap(true)} data-testid="map-toggle">
          {ru.mapView.tab}
        </button>
      </div>
    </div>
  );
}

/** A folder's photos on the map (GET /api/group/locations/{id}); «Искать в этой области» narrows them to the area. */
export function FolderMap({ groupId }: { groupId: string }) {
  const tileUrl = useMapTileUrl();
  const load = useCallback<MapLoader>(
    async (bbox, signal) => {
      const answer = await groupLocations(groupId, bbox ? bbox.join(",") : null, signal);
      return {
        points: answer.items.map((i) => ({ id: i.asset_id, name: i.name, lat: i.lat, lon: i.lon, href: `/mam/${groupId}/asset/${i.asset_id}` })),
        truncated: answer.truncated,
      };
    },
    [groupId],
  );
  return <MapView load={load} tileUrl={tileUrl} />;
}
