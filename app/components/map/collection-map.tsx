import { useCallback } from "react";
import { collectionLocations } from "../../lib/collections-api";
import { useMapTileUrl } from "./map-tile-url";
import { MapView, type MapLoader } from "./map-view";

/**
 * A collection's items on the map (GET /api/collections/{id}/locations): only those the reader may read, as on its
 * grid; a click opens the viewer inside the collection. «Искать в этой области» narrows them to the area.
 */
export function CollectionMap({ collectionId }: { collectionId: string }) {
  const tileUrl = useMapTileUrl();
  const load = useCallback<MapLoader>(
    async (bbox, signal) => {
      const answer = await collectionLocations(collectionId, bbox ? bbox.join(",") : null, signal);
      return {
        points: answer.items.map((i) => ({ id: i.asset_id, name: i.name, lat: i.lat, lon: i.lon, href: `/asset/${i.asset_id}?collection=${collectionId}` })),
        truncated: answer.truncated,
      };
    },
    [collectionId],
  );
  return <MapView load={load} tileUrl={tileUrl} />;
}
