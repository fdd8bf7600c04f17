import { useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import type * as Leaflet from "leaflet";
import { ru } from "../../i18n/ru";
import { countryOutlines, loadLeaflet } from "./leaflet-loader.client";

/** A file placed on the map. */
export interface MapPoint {
  id: string;
  name: string;
  lat: number;
  lon: number;
  /** where a click on it leads (the viewer) */
  href: string;
}

/** The visible area: west, south, east, north (the search API's `bbox`). */
export type MapBbox = [number, number, number, number];

/** What the map asks its list call for: every point, or those inside the area «Искать в этой области» fixed. */
export type MapLoader = (bbox: MapBbox | null, signal: AbortSignal) => Promise<{ points: MapPoint[]; truncated: boolean }>;

/** Where Web Mercator stops (the world's square ends) and how far east and west the map may be dragged. */
const WORLD_EDGE_LAT = 85.0511;
const WORLD_SPAN = 3600;
/** The closest the map opens to its points over the offline outlines (about a region of a country). */
const OUTLINE_FIT_ZOOM = 5;

/** The map's bounds as the API takes them: latitudes clamped to ±90, longitudes wrapped into ±180. */
export function bboxOf(bounds: Leaflet.LatLngBounds): MapBbox {
  const clampLat = (v: number) => Math.max(-90, Math.min(90, v));
  const west = bounds.getWest();
  const east = bounds.getEast();
  // A view wider than the world is the whole world.
  if (east - west >= 360) return [-180, clampLat(bounds.getSouth()), 180, clampLat(bounds.getNorth())];
  const wrap = (v: number) => ((((v + 180) % 360) + 360) % 360) - 180;
  const round = (v: number) => Math.round(v * 1e5) / 1e5;
  return [round(wrap(west)), round(clampLat(bounds.getSouth())), round(wrap(east)), round(clampLat(bounds.getNorth()))];
}

/**
 * A map of files with a position, clustered, over an offline base layer of country outlines (world-atlas), or the
 * tile server an administrator configured (MAP_TILE_URL). Leaflet touches `window`, so it is imported in an effect:
 * the server renders only the frame. `load` is the list call (a folder's locations, a search): the same component
 * serves every list that can say where its files were taken.
 */
export function MapView({ load, tileUrl, area, onArea }: { load: MapLoader; tileUrl?: string | null; area?: MapBbox | null; onArea?: (bbox: MapBbox | null) => void }) {
  const navigate = useNavigate();
  const box = useRef<HTMLDivElement>(null);
  const map = useRef<Leaflet.Map | null>(null);
  const layer = useRef<Leaflet.MarkerClusterGroup | null>(null);
  const lib = useRef<typeof Leaflet | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [result, setResult] = useState<{ count: number; truncated: boolean } | null>(null);
  const [filter, setFilter] = useState<MapBbox | null>(area ?? null);
  // An area that came with the page (search's `bbox` in the URL) is where the map opens.
  const openingArea = useRef(area ?? null);

  // Leaflet, the clustering plugin and the outlines, once, in the browser only.
  useEffect(() => {
    let alive = true;
    (async () => {
      const L = await loadLeaflet();
      if (!alive || !box.current) return;
      const m = L.map(box.current, {
        worldCopyJump: true,
        minZoom: 1,
        maxZoom: 18,
        zoomControl: false,
        attributionControl: true,
        // Web Mercator ends at ±85.05°: no dragging past the world's top or bottom into empty space.
        maxBounds: L.latLngBounds([-WORLD_EDGE_LAT, -WORLD_SPAN], [WORLD_EDGE_LAT, WORLD_SPAN]),
        maxBoundsViscosity: 1,
      }).setView([30, 10], 2);
      // Zoomed out no further than the world fills the frame's height: below that a band of nothing shows under it.
      const fillHeight = () => m.setMinZoom(Math.max(1, Math.ceil(Math.log2(m.getSize().y / 256))));
      fillHeight();
      m.on("resize", fillHeight);
      const opening = openingArea.current;
      if (opening) {
        const [west, south, east, north] = opening;
        // east below west crosses the antimeridian: Leaflet wants it as a longitude past 180
        m.fitBounds(L.latLngBounds([south, west], [north, east < west ? east + 360 : east]), { animate: false });
      }
      // Leaflet's own control titles are English («Zoom in»); the prefix drops its flag, out of place in this UI.
      L.control.zoom({ zoomInTitle: ru.mapView.zoomIn, zoomOutTitle: ru.mapView.zoomOut }).addTo(m);
      m.attributionControl.setPrefix(`<a href="https://leafletjs.com" target="_blank" rel="noopener noreferrer">Leaflet</a>`);
      if (tileUrl) {
        L.tileLayer(tileUrl, { maxZoom: 18 }).addTo(m);
      } else {
        const countries = await countryOutlines();
        if (!alive) return void m.remove();
        L.geoJSON(countries, {
          style: { color: "#5b6478", weight: 1, fillColor: "#262b38", fillOpacity: 1 },
          interactive: false,
        }).addTo(m);
        m.attributionControl.addAttribution(ru.mapView.attributionOffline);
      }
      const clusters = L.markerClusterGroup({ showCoverageOnHover: false, maxClusterRadius: 50 });
      clusters.addTo(m);
      lib.current = L;
      map.current = m;
      layer.current = clusters;
      setReady(true);
    })().catch(() => alive && setFailed(true));
    return () => {
      alive = false;
      map.current?.remove();
      map.current = null;
      layer.current = null;
    };
  }, [tileUrl]);

  // The points of the list call, again whenever the area filter changes.
  useEffect(() => {
    if (!ready) return;
    const controller = new AbortController();
    load(filter, controller.signal).then(
      ({ points, truncated }) => {
        const L = lib.current;
        const clusters = layer.current;
        if (!L || !clusters || controller.signal.aborted) return;
        clusters.clearLayers();
        const icon = L.divIcon({ className: "map-pin", html: "<span></span>", iconSize: [18, 18], iconAnchor: [9, 9] });
        for (const p of points) {
          const marker = L.marker([p.lat, p.lon], { icon, title: p.name, alt: p.name, keyboard: true });
          marker.on("click", () => navigate(p.href));
          clusters.addLayer(marker);
        }
        setResult({ count: points.length, truncated });
        // Over bare country outlines a closer view shows one flat fill and no context; tiles carry streets.
        if (points.length > 0 && !filter) map.current?.fitBounds(clusters.getBounds(), { padding: [30, 30], maxZoom: tileUrl ? 12 : OUTLINE_FIT_ZOOM });
      },
      () => !controller.signal.aborted && setFailed(true),
    );
    return () => controller.abort();
  }, [ready, load, filter, navigate, tileUrl]);

  const searchHere = () => {
    if (!map.current) return;
    const next = bboxOf(map.current.getBounds());
    setFilter(next);
    onArea?.(next);
  };
  const reset = () => {
    setFilter(null);
    onArea?.(null);
  };

  const empty = !failed && result?.count === 0;
  return (
    <section className="map-view" data-testid="map-view" data-points={result?.count ?? undefined}>
      <div className="map-bar">
        {/* an empty or failed map says so over the map itself (below), not twice */}
        {!(empty || failed) && (
          <span className="muted" role="status">
            {!result ? ru.mapView.loading : ru.mapView.count(result.count)}
          </span>
        )}
        {result?.truncated && <span className="muted">{ru.mapView.truncated}</span>}
        <span className="map-bar-actions">
          {filter && (
            <button type="button" className="btn btn-ghost" onClick={reset} data-testid="map-reset-area">
              {ru.mapView.resetArea}
            </button>
          )}
          {/* With nothing placed and no area chosen there is nothing an area could narrow. */}
          {!(empty && !filter) && (
            <button type="button" className="btn" onClick={searchHere} disabled={!ready} data-testid="map-search-area">
              {ru.mapView.searchArea}
            </button>
          )}
        </span>
      </div>
      <div className="map-frame">
        <div ref={box} className="map-canvas" />
        {(empty || failed) && (
          <div className="map-empty" role="status" data-testid="map-empty">
            <p className="map-empty-title">{failed ? ru.mapView.failed : filter ? ru.mapView.emptyArea : ru.mapView.empty}</p>
            <p className="muted">{failed ? ru.mapView.failedHint : filter ? ru.mapView.emptyAreaHint : ru.mapView.emptyHint}</p>
          </div>
        )}
      </div>
    </section>
  );
}
