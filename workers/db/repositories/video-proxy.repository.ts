import { sql } from "drizzle-orm";
import type { VariantRow } from "../schema/index";
import { variants } from "../schema/index";

/** The columns of a browser-made proxy row (a ready `proxy_lowres` variant of one version). */
export type ProxyRow = Pick<
  VariantRow,
  | "id"
  | "assetId"
  | "versionId"
  | "name"
  | "mimeType"
  | "format"
  | "fileName"
  | "contentSize"
  | "sha256"
  | "storageId"
  | "storageKey"
  | "userId"
  | "madeBy"
  | "acceptedBy"
  | "ctime"
> & { versionId: string; techProps: Record<string, unknown> };

function insertSql(row: ProxyRow) {
  return sql`insert into ${variants} (id, asset_id, version_id, variant_type, status, name, mime_type, format, file_name, content_size,
                                      sha256, storage_id, storage_key, tech_props, user_id, made_by, accepted_by, ctime)
             select ${row.id}, ${row.assetId}, ${row.versionId}, 'proxy_lowres', 'ready', ${row.name}, ${row.mimeType}, ${row.format},
                    ${row.fileName}, ${row.contentSize}, ${row.sha256}, ${row.storageId}, ${row.storageKey},
                    ${JSON.stringify(row.techProps)}, ${row.userId}, ${row.madeBy}, ${row.acceptedBy}, ${row.ctime}`;
}

/**
 * Heal on view (decision 029): inserts the proxy only when the version has no `proxy_lowres` yet, in one statement,
 * so of two browsers storing at once exactly one wins. Answers the new id, or no row when another proxy was there.
 * Raw SQL with parameters: run with `runBatch`.
 */
export function healProxyStatements(row: ProxyRow) {
  return [
    sql`${insertSql(row)}
        where not exists (select 1 from ${variants} o where o.version_id = ${row.versionId} and o.variant_type = 'proxy_lowres')
        returning id`,
  ];
}

/**
 * Replaces the version's proxy (a caller with `update`): one batch that deletes the previous `proxy_lowres` rows
 * (answering their storage, so only objects nobody references are removed afterwards) and inserts the new one.
 */
export function replaceProxyStatements(row: ProxyRow) {
  return [
    sql`delete from ${variants} where version_id = ${row.versionId} and variant_type = 'proxy_lowres' and id <> ${row.id}
        returning storage_id, storage_key`,
    sql`${insertSql(row)} returning id`,
  ];
}
