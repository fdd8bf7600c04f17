import type { SQL } from "drizzle-orm";
import type { Database } from "../../db/client";
import { runBatch } from "../../db/repositories/group.repository";
import { type MemberPageOptions } from "../../db/repositories/group-pages.repository";
import {
  buildSeekListStatements,
  memberOptsOutSql,
  readBatch,
  SEEK_REBUILD_SPAN,
  SEEK_SPACING,
  seekListId,
  seekProbeSql,
  type SeekListKey,
  type SeekProbe,
} from "../../db/repositories/member-seek.repository";
import type { ListedType } from "./group-tree";

/**
 * `skip` paging at the cost of a cursor page (decision record 017): a skip of at least `SEEK_SPACING` starts from
 * the nearest checkpoint of the listing's seek list and offsets only the members after it. Results are those of
 * the plain OFFSET query by construction (the checkpoints' counts are exact and the probe and the page run in one
 * read transaction). A seek list counts every listed member, so it serves callers who see them all: administrators,
 * and callers the group passes read down to while no member of the listed type has switched inheritance off (then
 * the access filter keeps every member; the check runs in the page's own transaction). Other callers, and
 * listings filtered by a name substring, page by OFFSET: which rows count depends on who asks or on free text, so
 * no shared checkpoint can say how many lie before it.
 */

/** Whether a page can start from a checkpoint (for a filtered caller, still subject to the opt-out check). */
export function seekable(o: MemberPageOptions): boolean {
  return !o.after && o.skip >= SEEK_SPACING && !o.q && !o.review && (o.vis === null || o.parentPassesRead === true);
}

/**
 * One page of a group listing by `skip`: from a seek list when `seekable`, else the plain query. `pageSql` builds
 * the page statement (assetMembersPageSql or groupMembersPageSql). Builds the list on first use and rebuilds it
 * when inserts have stretched the span the skip falls into beyond `SEEK_REBUILD_SPAN`.
 * @example const rows = await pageBySkip<AssetMemberRow>(rc.db, "asset", options, assetMembersPageSql)
 */
export async function pageBySkip<T>(
  db: Database,
  type: ListedType,
  o: MemberPageOptions,
  pageSql: (o: MemberPageOptions) => SQL,
): Promise<T[]> {
  if (!seekable(o)) return db.all<T>(pageSql(o));
  // A filtered caller reads the unfiltered page, guarded by the opt-out check in the same transaction; a member
  // that opts out (known up front, or switched meanwhile) sends the page back to the filtered OFFSET query.
  const guard = o.vis === null ? null : memberOptsOutSql(o.groupId, type);
  if (guard && (await db.all(guard)).length > 0) return db.all<T>(pageSql(o));
  const shared: MemberPageOptions = { ...o, vis: null, parentPassesRead: false };
  const key: SeekListKey = {
    groupId: o.groupId,
    elType: type,
    col: o.sortColumn,
    desc: o.desc,
    mime: type === "asset" ? o.mime ?? "" : "",
  };
  const listId = seekListId(key);
  let built = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    const statements = [seekProbeSql(listId, o.skip), pageSql({ ...shared, seekList: listId })];
    if (guard) statements.push(guard);
    const [probes, rows, optOut] = await readBatch<[SeekProbe, T, unknown]>(db, statements);
    if (optOut && optOut.length > 0) return db.all<T>(pageSql(o));
    const probe = probes[0];
    const base = probe?.n ?? 0;
    const span = (probe?.next_n ?? base) - base;
    if (!built && (!probe?.live || span > SEEK_REBUILD_SPAN)) {
      await runBatch(db, buildSeekListStatements(key, Date.now()));
      built = true;
      continue;
    }
    if (!probe?.live) continue; // evicted by another listing's build meanwhile
    // No checkpoint at or before `skip` (inserts moved the first one past it): the span from the start is short.
    return probe.n === null ? db.all<T>(pageSql(o)) : rows;
  }
  return db.all<T>(pageSql(o));
}
