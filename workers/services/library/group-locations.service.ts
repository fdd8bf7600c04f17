import { ROOT_GROUP_ID } from "../../lib/ids";
import { gpsOf, groupLocationsPage, type Bbox } from "../../db/repositories/geo.repository";
import { passesReadDown, visibility } from "../access";
import type { Actor, RequestContext } from "../access";
import { loadGroup } from "./group-guard";
import { previewRef } from "./pure";

/** Points a folder's map answers at most (past it `truncated` says so; the map asks again for a smaller area). */
export const MAX_MAP_POINTS = 2000;

/** A file of a folder placed on the map. */
export interface LocatedAsset {
  asset_id: string;
  name: string;
  mimetype: string;
  lat: number;
  lon: number;
  /** root-relative thumbnail reference, null without a preview */
  preview: string | null;
}

/**
 * GET /api/group/locations/{id}: the files listed in the group that the caller may read and whose latest version
 * carries a position (EXIF GPS), optionally only inside `bbox`. Read on the group is needed (404 otherwise, as for
 * no group); files the caller may not read are left out without a trace. The virtual root lists none.
 */
export async function groupLocations(
  rc: RequestContext,
  actor: Actor,
  groupId: string,
  o: { bbox?: Bbox; take?: number } = {},
): Promise<{ items: LocatedAsset[]; truncated: boolean }> {
  await loadGroup(rc, actor, groupId, "read");
  if (groupId === ROOT_GROUP_ID) return { items: [], truncated: false };
  const take = Math.min(o.take ?? MAX_MAP_POINTS, MAX_MAP_POINTS);
  const [vis, parentPassesRead] = await Promise.all([visibility(rc, actor), passesReadDown(rc, actor, groupId)]);
  const rows = await groupLocationsPage(rc.db, { groupId, vis, parentPassesRead, bbox: o.bbox, limit: take + 1 });
  const items = rows.slice(0, take).flatMap((r) => {
    const gps = gpsOf(r.gps);
    return gps
      ? [{ asset_id: r.asset_id, name: r.name, mimetype: r.mime, lat: gps.lat, lon: gps.lon, preview: r.has_preview ? previewRef(r.asset_id, r.ver) : null }]
      : [];
  });
  return { items, truncated: rows.length > take };
}
