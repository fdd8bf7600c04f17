/**
 * Country outlines made drawable on a flat (Web Mercator) map.
 *
 * world-atlas stitches Natural Earth's shapes back together across the 180th meridian (d3-geo clips spherical
 * polygons itself), so a ring like Chukotka's runs …179.9, −180, −179.5…: drawn on a plane, that step becomes a line
 * across the whole world, and Antarctica, which circles the pole, gets a seam along its coast. Here every ring's
 * longitudes are unwrapped (no step between neighbours exceeds 180°, so Chukotka runs on to 190°), a ring that
 * circles a pole is closed through that pole, and the layer is repeated one world to the west and one to the east:
 * the parts beyond ±180° then show on the far side, and the world copies Leaflet scrolls through are drawn too.
 */

type Position = GeoJSON.Position;
type Ring = Position[];

/** Whole worlds (360° of longitude) the outlines are repeated by: west, the world itself, east. */
export const WORLD_SHIFTS = [-360, 0, 360] as const;

/** Most points in one ring: a budget on the loops over a shape, far above Natural Earth's largest (10 m Russia). */
const MAX_RING_POINTS = 200_000;

/**
 * The ring with each longitude moved by whole turns so that no step between neighbours is longer than 180°; the
 * first point stays where it is.
 *
 * @example unwrapRing([[179, 65], [-179, 66], [-178, 64], [179, 65]]) // → [[179,65],[181,66],[182,64],[179,65]]
 */
export function unwrapRing(ring: readonly Position[]): Ring {
  const out: Ring = [];
  let offset = 0;
  const count = Math.min(ring.length, MAX_RING_POINTS);
  for (let i = 0; i < count; i++) {
    const [lon, lat, ...rest] = ring[i];
    if (i > 0) {
      const step = lon + offset - out[i - 1][0];
      if (step > 180) offset -= 360 * Math.ceil((step - 180) / 360);
      else if (step < -180) offset += 360 * Math.ceil((-180 - step) / 360);
    }
    out.push([lon + offset, lat, ...rest]);
  }
  return out;
}

/**
 * A ring that, unwrapped, ends a whole turn away from where it started goes round a pole (Antarctica): it is
 * closed along the map's edge through that pole (Leaflet's Mercator stops at ±85°, so ±90 lands on the edge).
 */
function closeAroundPole(ring: Ring): Ring {
  if (ring.length < 2) return ring;
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (Math.abs(last[0] - first[0]) <= 180) return ring;
  const meanLat = ring.reduce((sum, p) => sum + p[1], 0) / ring.length;
  const pole = meanLat < 0 ? -90 : 90;
  // along the pole in quarter turns, so that no segment, even the map's edge, spans more than 180°
  const edge: Ring = [];
  const steps = Math.ceil(Math.abs(last[0] - first[0]) / 90);
  for (let i = 0; i <= steps; i++) edge.push([last[0] + ((first[0] - last[0]) * i) / steps, pole]);
  return [...ring, ...edge, [first[0], first[1]]];
}

/** The polygon's rings unwrapped, its holes moved by whole turns to sit beside its outer ring. */
function unwrapPolygon(rings: readonly Position[][]): Ring[] {
  const [outer, ...holes] = rings.map(unwrapRing);
  if (!outer || outer.length === 0) return [];
  const west = Math.min(...outer.map((p) => p[0]));
  const closedOuter = closeAroundPole(outer);
  return [
    closedOuter,
    ...holes.map((hole) => {
      if (hole.length === 0) return hole;
      const turns = Math.floor((hole[0][0] - west) / 360);
      return turns === 0 ? hole : hole.map(([lon, ...rest]) => [lon - turns * 360, ...rest]);
    }),
  ];
}

function shiftPolygon(rings: Ring[], by: number): Ring[] {
  return by === 0 ? rings : rings.map((ring) => ring.map(([lon, ...rest]) => [lon + by, ...rest]));
}

/** One geometry made drawable: polygons unwrapped and repeated by WORLD_SHIFTS; other kinds repeated as they are. */
export function drawableGeometry(geometry: GeoJSON.Geometry): GeoJSON.Geometry {
  switch (geometry.type) {
    case "Polygon":
    case "MultiPolygon": {
      const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
      const unwrapped = polygons.map(unwrapPolygon).filter((rings) => rings.length > 0);
      return { type: "MultiPolygon", coordinates: WORLD_SHIFTS.flatMap((by) => unwrapped.map((rings) => shiftPolygon(rings, by))) };
    }
    case "GeometryCollection":
      return { type: "GeometryCollection", geometries: geometry.geometries.map(drawableGeometry) };
    default:
      return geometry;
  }
}

/**
 * The outlines as a flat map can draw them: no segment spans more than 180° of longitude, and every shape appears
 * in the world and its copies west and east.
 */
export function drawableOutlines(outlines: GeoJSON.FeatureCollection): GeoJSON.FeatureCollection {
  return {
    type: "FeatureCollection",
    features: outlines.features.map((f) => (f.geometry ? { ...f, geometry: drawableGeometry(f.geometry) } : f)),
  };
}
