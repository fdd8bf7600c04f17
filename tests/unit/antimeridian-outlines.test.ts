import { feature } from "topojson-client";
import { describe, expect, it } from "vitest";
import world from "world-atlas/countries-110m.json";
import { drawableGeometry, drawableOutlines, unwrapRing } from "../../app/lib/antimeridian-outlines";

/** The longest step in longitude between neighbouring points of any ring of the geometry. */
function longestStep(geometry: GeoJSON.Geometry): number {
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.type === "MultiPolygon" ? geometry.coordinates : [];
  let longest = 0;
  for (const rings of polygons)
    for (const ring of rings) for (let i = 1; i < ring.length; i++) longest = Math.max(longest, Math.abs(ring[i][0] - ring[i - 1][0]));
  return longest;
}

function polygons(geometry: GeoJSON.Geometry): GeoJSON.Position[][][] {
  if (geometry.type !== "MultiPolygon") throw new Error(`expected a MultiPolygon, got ${geometry.type}`);
  return geometry.coordinates;
}

// Chukotka's tip as world-atlas stores it: the ring steps from 179° to −180° and back.
const CHUKOTKA: GeoJSON.Polygon = {
  type: "Polygon",
  coordinates: [
    [
      [178, 69],
      [179.5, 69.5],
      [-180, 69],
      [-177.5, 68.2],
      [-179.4, 65.4],
      [-180, 65],
      [179.9, 64.9],
      [178, 64.5],
      [178, 69],
    ],
  ],
};

// A ring around the south pole, as world-atlas stitches Antarctica: −180 and 180 are the same meridian.
const POLAR: GeoJSON.Polygon = {
  type: "Polygon",
  coordinates: [
    [
      [-180, -84.7],
      [-90, -72],
      [0, -70],
      [90, -66],
      [180, -84.7],
      [-180, -84.7],
    ],
  ],
};

describe("country outlines drawn on a flat map", () => {
  it("a ring crossing the antimeridian has no segment longer than 180° of longitude", () => {
    expect(longestStep(CHUKOTKA)).toBeGreaterThan(180);
    const drawn = drawableGeometry(CHUKOTKA);
    expect(longestStep(drawn)).toBeLessThanOrEqual(180);
    // Unwrapped east of 180°, then repeated a world to the west, where the part beyond −180° shows.
    const [west, middle, east] = polygons(drawn);
    expect(Math.max(...middle[0].map((p) => p[0]))).toBeCloseTo(182.5);
    expect(west[0].map((p) => p[0])).toEqual(middle[0].map((p) => p[0] - 360));
    expect(east[0].map((p) => p[0])).toEqual(middle[0].map((p) => p[0] + 360));
  });

  it("unwraps longitudes without moving the first point or the latitudes", () => {
    expect(unwrapRing([[179, 65], [-179, 66], [-178, 64], [179, 65]])).toEqual([[179, 65], [181, 66], [182, 64], [179, 65]]);
    expect(unwrapRing([[-179, 1], [179, 2], [-179, 3]])).toEqual([[-179, 1], [-181, 2], [-179, 3]]);
    // a ring that never comes near the antimeridian is left as it is
    const moscow = [[37, 55], [38, 55], [38, 56], [37, 55]];
    expect(unwrapRing(moscow)).toEqual(moscow);
  });

  it("closes a ring around a pole through that pole instead of across the map", () => {
    const [, middle] = polygons(drawableGeometry(POLAR));
    const ring = middle[0];
    expect(longestStep({ type: "Polygon", coordinates: [ring] })).toBeLessThanOrEqual(180);
    expect(ring.slice(-6)).toEqual([[180, -90], [90, -90], [0, -90], [-90, -90], [-180, -90], [-180, -84.7]]);
  });

  it("world-atlas 110 m: Russia, Fiji and Antarctica drawn without a line across the world", () => {
    const topology = world as unknown as Parameters<typeof feature>[0] & { objects: { countries: Parameters<typeof feature>[1] } };
    const countries = feature(topology, topology.objects.countries) as GeoJSON.FeatureCollection;
    const crossing = countries.features.filter((f) => f.geometry && longestStep(f.geometry) > 180).map((f) => f.properties?.name);
    expect(crossing.sort()).toEqual(["Antarctica", "Fiji", "Russia"]);
    const drawn = drawableOutlines(countries);
    expect(drawn.features).toHaveLength(countries.features.length);
    for (const f of drawn.features) if (f.geometry) expect(longestStep(f.geometry), String(f.properties?.name)).toBeLessThanOrEqual(180);
  });
});
