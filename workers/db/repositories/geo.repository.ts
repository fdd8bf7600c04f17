import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { visibleMemberSql, type Visibility } from "./access.repository";
import { MAIN_VARIANT } from "./group.repository";

/**
 * Where a photo was taken, as processing stored it: exifr's decimal `latitude` / `longitude` inside the main
 * variant's `tech_fields.exif` (media-probe.ts `readExif`). Expressions over `a` (assets, its latest version).
 */

/** `[lat, lon]` of the latest version's main variant as a JSON array (nulls when the file has no position). */
export const GPS_OF_ASSET = sql`(select json_array(json_extract(gv.tech_fields, '$.exif.latitude'), json_extract(gv.tech_fields, '$.exif.longitude'))
  from variants gv where gv.id = ${MAIN_VARIANT})`;

/** A box of the map: west, south, east, north in degrees; east < west crosses the antimeridian. */
export interface Bbox {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** The condition on `a` that its latest version was taken inside `box`. */
export function insideBboxSql(box: Bbox): SQL {
  const lat = sql`json_extract(gv.tech_fields, '$.exif.latitude')`;
  const lon = sql`json_extract(gv.tech_fields, '$.exif.longitude')`;
  const lonInside = box.west <= box.east ? sql`${lon} between ${box.west} and ${box.east}` : sql`(${lon} >= ${box.west} or ${lon} <= ${box.east})`;
  return sql`exists (select 1 from variants gv where gv.id = ${MAIN_VARIANT}
    and typeof(${lat}) in ('real', 'integer') and typeof(${lon}) in ('real', 'integer')
    and ${lat} between ${box.south} and ${box.north} and ${lonInside})`;
}

/** Parses the `[lat, lon]` JSON of GPS_OF_ASSET: null unless both are numbers in range. */
export function gpsOf(json: string | null | undefined): { lat: number; lon: number } | null {
  if (!json) return null;
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) return null;
  const [lat, lon] = parsed as unknown[];
  if (typeof lat !== "number" || typeof lon !== "number") return null;
  if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) return null;
  return { lat, lon };
}

export interface LocatedAssetRow {
  asset_id: string;
  name: string;
  mime: string;
  ver: number;
  has_preview: number;
  gps: string;
}

/**
 * The readable live files listed in a group whose latest version has a position (inside `bbox` when given), by
 * name: the walk stops at `limit` rows, so a huge folder costs one bounded statement.
 */
export function groupLocationsPage(
  db: Database,
  o: { groupId: string; vis: Visibility | null; parentPassesRead: boolean; bbox?: Bbox; limit: number },
) {
  const where: SQL[] = [];
  if (o.vis) where.push(visibleMemberSql(o.vis, "asset", sql`a.id`, sql`a.owner_id`, o.parentPassesRead));
  if (o.bbox) where.push(insideBboxSql(o.bbox));
  const extra = where.length ? sql` and ${sql.join(where, sql` and `)}` : sql``;
  return db.all<LocatedAssetRow>(sql`select * from (
      select a.id as asset_id, a.name, a.mime, a.latest_version as ver,
        exists (select 1 from previews p where p.asset_id = a.id) as has_preview, ${GPS_OF_ASSET} as gps, m.sort_name
      from group_members m cross join assets a on a.id = m.el_id
      where m.group_id = ${o.groupId} and m.el_type = 'asset' and m.trashed_at is null and a.deleted_at is null${extra}
    ) where json_type(gps, '$[0]') in ('real', 'integer') and json_type(gps, '$[1]') in ('real', 'integer')
    order by sort_name, asset_id limit ${o.limit}`);
}
