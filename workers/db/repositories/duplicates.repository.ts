import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { visibleSql, type Visibility } from "./access.repository";
import { inIds } from "./tag.repository";

/**
 * Duplicates in SQL: files whose current bytes (the main variant of the latest version of a live asset) share a
 * SHA-256, and pictures whose difference hash agrees on a band (migrations/0049_duplicates.sql). Every list takes
 * the caller's visibility, so what a caller may not read is never answered, counted or hinted at.
 */

/** A file as the duplicate lists show it. */
export interface DuplicateRow {
  asset_id: string;
  name: string;
  mime: string;
  size: number;
  version: number;
  sha256: string | null;
  group_id: string | null;
  ctime: number;
}

/** A picture's hash as its unsigned 32-bit halves (a JS number cannot hold 64 bits). */
export interface PhashRow extends DuplicateRow {
  hi: number;
  lo: number;
}

/** FROM … WHERE of «the current bytes of a live asset»: `va` the variant, `a` the asset. */
const CURRENT = sql`from variants va
  join assets a on a.id = va.asset_id and a.deleted_at is null
  join asset_versions av on av.id = va.version_id and av.version = a.latest_version
  where va.status = 'ready' and va.variant_type in ('master', 'initial', 'untyped')`;

const COLUMNS = sql`a.id as asset_id, a.name as name, a.mime as mime, va.content_size as size, a.latest_version as version,
  va.sha256 as sha256, a.ctime as ctime,
  (select gm.group_id from group_members gm where gm.el_id = a.id and gm.el_type = 'asset' and gm.trashed_at is null
   order by gm.ctime limit 1) as group_id`;

const visible = (vis: Visibility | null) => visibleSql(vis, "asset", sql`a.id`, sql`a.owner_id`);

/** Readable files (not `exclude`) whose current bytes have one of the hashes; at most `limit` rows. */
export function filesWithHashes(db: Database, hashes: readonly string[], vis: Visibility | null, exclude: string | null, limit: number) {
  if (hashes.length === 0) return Promise.resolve([] as DuplicateRow[]);
  return db.all<DuplicateRow>(
    sql`select distinct ${COLUMNS} ${CURRENT} and ${inIds(sql`va.sha256`, hashes)}
        ${exclude ? sql`and a.id <> ${exclude}` : sql``} and ${visible(vis)}
        order by a.ctime, a.id limit ${limit}`,
  );
}

/** The SHA-256 and the picture hash (halves) of an asset's current bytes; undefined when it has none (or is gone). */
export function currentHashesOf(db: Database, assetId: string) {
  return db.all<{ sha256: string | null; hi: number | null; lo: number | null }>(
    sql`select va.sha256 as sha256, (va.phash >> 32) & 4294967295 as hi, va.phash & 4294967295 as lo
        ${CURRENT} and a.id = ${assetId}`,
  );
}

/** The band condition: a row agrees with `bands` on at least one band (each term matches its expression index). */
function bandMatch(bands: readonly number[]): SQL {
  const terms = [
    sql`(va.phash & 511) = ${bands[0]}`,
    sql`((va.phash >> 9) & 511) = ${bands[1]}`,
    sql`((va.phash >> 18) & 511) = ${bands[2]}`,
    sql`((va.phash >> 27) & 511) = ${bands[3]}`,
    sql`((va.phash >> 36) & 511) = ${bands[4]}`,
    sql`((va.phash >> 45) & 511) = ${bands[5]}`,
    sql`((va.phash >> 54) & 1023) = ${bands[6]}`,
  ];
  return sql`(${sql.join(terms, sql` or `)})`;
}

/** Readable pictures (not `exclude`) whose hash agrees with `bands` on a band: the candidates of a near search. */
export function pictureCandidates(db: Database, bands: readonly number[], vis: Visibility | null, exclude: string, limit: number) {
  return db.all<PhashRow>(
    sql`select ${COLUMNS}, (va.phash >> 32) & 4294967295 as hi, va.phash & 4294967295 as lo
        ${CURRENT} and va.phash is not null and ${bandMatch(bands)} and a.id <> ${exclude} and ${visible(vis)}
        limit ${limit}`,
  );
}

/** Every picture hash of the library, oldest first, at most `limit` (the administrators' page). */
export function allPictureHashes(db: Database, limit: number) {
  return db.all<PhashRow>(
    sql`select ${COLUMNS}, (va.phash >> 32) & 4294967295 as hi, va.phash & 4294967295 as lo
        ${CURRENT} and va.phash is not null order by a.ctime, a.id limit ${limit}`,
  );
}

/**
 * SHA-256 values held by more than one live file, in hash order after `after` (the page's cursor), walking the
 * hash index; at most `limit`.
 */
export function sharedHashes(db: Database, after: string, limit: number) {
  return db.all<{ sha256: string; files: number }>(
    sql`select va.sha256 as sha256, count(distinct a.id) as files ${CURRENT} and va.sha256 is not null and va.sha256 > ${after}
        group by va.sha256 having count(distinct a.id) > 1 order by va.sha256 limit ${limit}`,
  );
}

/** Stores a variant's picture hash from its halves (SQLite's shift wraps to the two's complement 64-bit value). */
export function setPictureHashSql(variantId: string, hi: number, lo: number) {
  return sql`update variants set phash = (${hi} << 32) | ${lo} where id = ${variantId}`;
}

/** Names of groups by id. */
export function groupNames(db: Database, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([] as { id: string; name: string }[]);
  return db.all<{ id: string; name: string }>(sql`select id, name from groups where ${inIds(sql`id`, ids)} and deleted_at is null`);
}
