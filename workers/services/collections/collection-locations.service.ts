/**
 * A collection's map: its items placed where they were taken (EXIF GPS), never wider than the files' own rights
 * (decision record 034): items the reader may not read are left out without a trace, as on the items page.
 */
import { collectionLocationsPage } from "../../db/repositories/collection.repository";
import { gpsOf, type Bbox } from "../../db/repositories/geo.repository";
import { visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { MAX_MAP_POINTS, type LocatedAsset } from "../library";
import { requireCollection } from "./collection-role";

/**
 * `GET /api/collections/{id}/locations`: the readable items whose latest version carries a position, optionally
 * only inside `bbox`, in collection order; at most MAX_MAP_POINTS (`truncated` says when there are more). Any role
 * on the collection will do; without one, the same 404 as for no collection.
 */
export async function collectionLocations(
  rc: RequestContext,
  actor: Actor,
  id: string,
  o: { bbox?: Bbox; take?: number } = {},
): Promise<{ items: LocatedAsset[]; truncated: boolean }> {
  const take = Math.min(o.take ?? MAX_MAP_POINTS, MAX_MAP_POINTS);
  // The rows are read beside the role check: a caller the check refuses gets its 404 and the rows are dropped unseen.
  const vis = await visibility(rc, actor);
  const [, rows] = await Promise.all([requireCollection(rc, actor, id, "view"), collectionLocationsPage(rc.db, id, vis, { bbox: o.bbox, limit: take + 1 })]);
  const items = rows.slice(0, take).flatMap((r) => {
    const gps = gpsOf(r.gps);
    return gps
      ? [{ asset_id: r.asset_id, name: r.name, mimetype: r.mime, lat: gps.lat, lon: gps.lon, preview: r.has_preview ? `/api/asset/content/preview/${r.asset_id}/${r.ver}/thumb` : null }]
      : [];
  });
  return { items, truncated: rows.length > take };
}
