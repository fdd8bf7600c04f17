import type * as Leaflet from "leaflet";
import { drawableOutlines } from "../../lib/antimeridian-outlines";

/**
 * Leaflet with its clustering plugin and styles, and the offline country outlines (world-atlas 110 m as GeoJSON).
 * A `.client` module: the server build gets an empty one, so Leaflet (which reads `window` when it loads) never
 * reaches the Worker; the map imports it in an effect.
 */
export async function loadLeaflet(): Promise<typeof Leaflet> {
  const L = (await import("leaflet")).default;
  await import("leaflet/dist/leaflet.css");
  // The plugin is a UMD script that extends the global `L`.
  (window as unknown as { L: typeof Leaflet }).L = L;
  await import("leaflet.markercluster");
  await Promise.all([import("leaflet.markercluster/dist/MarkerCluster.css"), import("leaflet.markercluster/dist/MarkerCluster.Default.css")]);
  return L;
}

/**
 * The world's country outlines as a GeoJSON feature collection, made drawable on a flat map: shapes across the 180th
 * meridian unwrapped instead of spanning the world, and repeated a world to each side (app/lib/antimeridian-outlines.ts).
 */
export async function countryOutlines(): Promise<GeoJSON.FeatureCollection> {
  const [{ feature }, world] = await Promise.all([import("topojson-client"), import("world-atlas/countries-110m.json")]);
  const topology = (world as { default?: unknown }).default ?? world;
  type Topology = Parameters<typeof feature>[0];
  const typed = topology as Topology & { objects: { countries: Parameters<typeof feature>[1] } };
  return drawableOutlines(feature(typed, typed.objects.countries) as GeoJSON.FeatureCollection);
}
