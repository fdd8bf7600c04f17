import { sql, type SQL } from "drizzle-orm";
import { newId } from "../../lib/ids";
import type { RequestContext } from "./context";

/**
 * What people do to files and folders, as audit actions: `asset.<verb>` for a file, `group.<verb>` for a folder
 * (upload and version are file verbs; create is a folder's).
 */
export const FILE_AUDIT_VERBS = [
  "upload",
  "create",
  "copy",
  "version",
  "restore",
  "rename",
  "update",
  "move",
  "delete",
  "purge",
  "download",
  "tags",
  "fields",
  "share",
] as const;
export type FileAuditVerb = (typeof FILE_AUDIT_VERBS)[number];

/** How the bytes or the change travelled: the web app, the API (scripts, robots), a shared link, a ZIP, an office editor. */
export type AuditChannel = "app" | "api" | "link" | "zip" | "wopi";

/** One file or folder an entry is about. */
export interface FileAuditTarget {
  type: "asset" | "group";
  id: string;
  /** its name at the time; absent: read from the row when the statement runs (so put a purge's entry before the delete) */
  name?: string | null;
  /** the folder it is in (a folder's history lists it); absent: the first folder that lists it when the statement runs */
  folderId?: string | null;
  /** details of this target only (a rename's old name, a restored version's number) */
  details?: Record<string, unknown>;
}

/** Who acted: a user id, or null for an anonymous visitor of a shared link. */
export interface FileAuditEntry {
  actorId: string | null;
  verb: FileAuditVerb;
  targets: FileAuditTarget | readonly FileAuditTarget[];
  /** the request's channel unless given (a link, a ZIP, WOPI) */
  channel?: AuditChannel;
  /** details shared by every target */
  details?: Record<string, unknown>;
  /**
   * A condition the change's own statements make true (an `exists` over the row it wrote): an entry of a batch
   * whose change turned out to change nothing (a lost race, a conditional update) is then not written either.
   */
  when?: SQL;
  /** details read by the statement itself (a field's name by its id): key → a scalar SQL expression */
  readDetails?: Record<string, SQL>;
}

/** Entries of one statement at most (a move of 10,000 files is 10,000 rows of one JSON parameter, well within D1's size). */
const MAX_TARGETS = 50_000;

/**
 * The insert of file and folder audit entries, not yet run: callers put it into the D1 batch that makes the change,
 * so an entry exists exactly when its change does, at no extra round trip. Every entry records the request's address,
 * program (user agent) and channel, and the name of its file or folder at the time (an entry outlives renames and
 * purges). All rows travel as one JSON parameter, so any number of targets stays within D1's bound-parameter limit.
 * @example await runBatch(rc.db, [renameStatement, fileAuditStatement(rc, { actorId: actor.id, verb: "rename", targets: { type: "asset", id, details: { from: old } } })])
 */
export function fileAuditStatement(rc: RequestContext, entry: FileAuditEntry): SQL {
  const list = (Array.isArray(entry.targets) ? entry.targets : [entry.targets]) as readonly FileAuditTarget[];
  if (list.length > MAX_TARGETS) throw new RangeError(`audit: ${list.length} targets in one statement`);
  const now = Date.now();
  const client = rc.client;
  const channel = entry.channel ?? client?.channel;
  const common: Record<string, unknown> = { ...(channel ? { channel } : {}), ...entry.details };
  if (client?.userAgent) common.ua = client.userAgent;
  const payload = list.map((t) => ({
    i: newId(now),
    c: now,
    a: entry.actorId,
    x: `${t.type}.${entry.verb}`,
    t: t.type,
    e: t.id,
    n: t.name ?? null,
    f: t.folderId ?? null,
    d: { ...common, ...t.details },
    p: client?.ip ?? null,
  }));
  const readDetails = sql.join(
    Object.entries(entry.readDetails ?? {}).map(([key, expr]) => sql`, ${`$.${key}`}, (${expr})`),
    sql``,
  );
  // The name and folder come from the rows as they are at this point of the batch when the caller did not know them.
  return sql`insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details, ip, folder_id)
    select json_extract(value, '$.i'), json_extract(value, '$.c'), json_extract(value, '$.a'), json_extract(value, '$.x'),
      json_extract(value, '$.t'), json_extract(value, '$.e'),
      json_set(json_extract(value, '$.d'), '$.name', coalesce(json_extract(value, '$.n'),
        case json_extract(value, '$.t') when 'asset' then (select name from assets where id = json_extract(value, '$.e'))
        else (select name from groups where id = json_extract(value, '$.e')) end)${readDetails}),
      json_extract(value, '$.p'),
      coalesce(json_extract(value, '$.f'), (select group_id from group_members where el_id = json_extract(value, '$.e') limit 1))
    from json_each(${JSON.stringify(payload)})${entry.when ? sql` where ${entry.when}` : sql``}`;
}

/**
 * The entries of downloads, one per file, for any channel that hands out bytes: the download route, shared links,
 * ZIP writers, WOPI. Run it once the answer is known to be served (or put it into the batch the caller writes anyway).
 * @example await rc.db.run(auditDownloadStatement(rc, { actorId: actor.id, channel: "zip", files: [{ id, name, folderId }], details: { zip: "Съёмка.zip" } }))
 */
export function auditDownloadStatement(
  rc: RequestContext,
  d: { actorId: string | null; files: readonly { id: string; name?: string | null; folderId?: string | null }[]; channel?: AuditChannel; details?: Record<string, unknown> },
): SQL {
  return fileAuditStatement(rc, {
    actorId: d.actorId,
    verb: "download",
    channel: d.channel,
    details: d.details,
    targets: d.files.map((f) => ({ type: "asset" as const, id: f.id, name: f.name, folderId: f.folderId })),
  });
}
