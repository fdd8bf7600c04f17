import { sql } from "drizzle-orm";
import type { Database } from "../client";
import { assetVersions, healCandidates, previews, users, variants, type HealCandidateRow, type HealKind } from "../schema/index";
import { inIds } from "./tag.repository";

/** A pending heal as the repositories answer it (snake_case, raw SQL through `runBatch` or `db.all`). */
export interface CandidateSqlRow {
  id: string;
  asset_id: string;
  version_id: string;
  kind: HealKind;
  made_by: string;
  storage_id: string;
  storage_key: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  content_size: number;
  sha256: string | null;
  maker: string | null;
  ctime: number;
}

const COLUMNS = sql`id, asset_id, version_id, kind, made_by, storage_id, storage_key, mime_type, width, height, content_size, sha256, maker, ctime`;

/**
 * Stores a maker's pending heal for a version and kind, replacing his earlier one (one per version, kind and maker,
 * so a reader cannot pile up candidates): the first statement deletes the earlier row answering its storage (its
 * object goes after the batch commits), the second inserts. Raw SQL with parameters: run with `runBatch`.
 */
export function putCandidateStatements(row: HealCandidateRow) {
  return [
    sql`delete from ${healCandidates} where version_id = ${row.versionId} and kind = ${row.kind} and made_by = ${row.madeBy}
        returning storage_id, storage_key`,
    sql`insert into ${healCandidates} (${COLUMNS})
        values (${row.id}, ${row.assetId}, ${row.versionId}, ${row.kind}, ${row.madeBy}, ${row.storageId}, ${row.storageKey},
                ${row.mimeType}, ${row.width}, ${row.height}, ${row.contentSize}, ${row.sha256}, ${row.maker}, ${row.ctime})`,
  ];
}

/** The maker's own pending heal of a version and kind, if any. */
export function findOwnCandidate(db: Database, versionId: string, kind: HealKind, madeBy: string) {
  return db.get<CandidateSqlRow>(
    sql`select ${COLUMNS} from ${healCandidates} where version_id = ${versionId} and kind = ${kind} and made_by = ${madeBy}`,
  );
}

/** The maker's own pending heal of version number `version` of an asset and kind, if any (what he is shown). */
export function ownCandidateOfVersion(db: Database, assetId: string, version: number, kind: HealKind, madeBy: string) {
  return db.get<CandidateSqlRow>(
    sql`select c.id, c.asset_id, c.version_id, c.kind, c.made_by, c.storage_id, c.storage_key, c.mime_type, c.width, c.height,
               c.content_size, c.sha256, c.maker, c.ctime
        from ${healCandidates} c join ${assetVersions} v on v.id = c.version_id
        where c.asset_id = ${assetId} and v.version = ${version} and c.kind = ${kind} and c.made_by = ${madeBy}`,
  );
}

/** A pending heal by id (a maker's stream link names his proxy by its candidate id). */
export function findCandidateById(db: Database, id: string) {
  return db.get<CandidateSqlRow & { version: number }>(
    sql`select c.id, c.asset_id, c.version_id, c.kind, c.made_by, c.storage_id, c.storage_key, c.mime_type, c.width, c.height,
               c.content_size, c.sha256, c.maker, c.ctime, v.version as version
        from ${healCandidates} c join ${assetVersions} v on v.id = c.version_id where c.id = ${id}`,
  );
}

/** Every pending heal of a version with its maker's name, oldest first (for the viewer's maker line and «Принять»). */
export function candidatesOfVersion(db: Database, versionId: string) {
  return db.all<{ kind: HealKind; made_by: string; maker_name: string | null; ctime: number }>(
    sql`select c.kind as kind, c.made_by as made_by, u.name as maker_name, c.ctime as ctime
        from ${healCandidates} c left join ${users} u on u.id = c.made_by
        where c.version_id = ${versionId} order by c.ctime, c.id`,
  );
}

/**
 * The maker's pending pictures of `kind` for the latest version of each of `assetIds` (the grid's thumb links of
 * files that have none shared yet); one query.
 */
export function ownCandidatesOfLatest(db: Database, assetIds: readonly string[], kind: HealKind, madeBy: string) {
  return db.all<{ asset_id: string; id: string }>(
    sql`select c.asset_id as asset_id, c.id as id
        from ${healCandidates} c join ${assetVersions} v on v.id = c.version_id
        where ${inIds(sql`c.asset_id`, assetIds)} and c.kind = ${kind} and c.made_by = ${madeBy}
          and v.version = (select a.latest_version from assets a where a.id = c.asset_id)`,
  );
}

/**
 * Who made the shared picture of each size and the shared proxy of a version (null makers: the Worker or an
 * upload), with the names of maker and acceptor.
 */
export function sharedMakersOfVersion(db: Database, versionId: string) {
  return db.all<{ kind: string; made_by: string | null; maker_name: string | null; accepted_by: string | null; accepted_name: string | null }>(
    sql`select p.size as kind, p.made_by as made_by, mu.name as maker_name, p.accepted_by as accepted_by, au.name as accepted_name
        from ${previews} p left join ${users} mu on mu.id = p.made_by left join ${users} au on au.id = p.accepted_by
        where p.version_id = ${versionId}
        union all
        select 'proxy' as kind, va.made_by, mu.name, va.accepted_by, au.name
        from ${variants} va left join ${users} mu on mu.id = va.made_by left join ${users} au on au.id = va.accepted_by
        where va.version_id = ${versionId} and va.variant_type = 'proxy_lowres' and va.status = 'ready'`,
  );
}

/** Deletes every pending heal of a version and kind (after one was accepted), answering their storage. */
export function deleteCandidatesOfSlotStatement(versionId: string, kind: HealKind) {
  return sql`delete from ${healCandidates} where version_id = ${versionId} and kind = ${kind} returning storage_id, storage_key`;
}

/** Deletes every pending heal of the given assets (the purge), answering their storage. */
export function deleteCandidatesOfAssetsStatement(assetIds: readonly string[]) {
  return sql`delete from ${healCandidates} where ${inIds(sql`asset_id`, assetIds)} returning storage_id, storage_key`;
}
