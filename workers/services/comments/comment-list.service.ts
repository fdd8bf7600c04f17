import {
  commentListStateSql,
  commentPageSql,
  commentTotalSql,
  type CommentListQuery,
  type CommentListState,
  type CommentRow,
} from "../../db/repositories/comment.repository";
import { readBatch } from "../../db/repositories/member-seek.repository";
import { JsonBodyCache, type JsonBody, type KeptJson } from "../../lib/json-body-cache";
import { prefetchAccess, type Actor, type RequestContext } from "../access";
import { readableAsset, view } from "./comment.service";

/**
 * GET /api/asset/{id}/comments answered from memory while nothing it shows has changed (decision 035, «A file's
 * comment list cached per revision»). What every reader of the file sees alike — the total and the items — is kept
 * as UTF-8 under the file, the query (version, skip, take) and the revisions it was read at: the file's comments'
 * and the people's (names, logins), both moved by triggers in the statement of each change (migration 0052). Each
 * answer wraps it in the caller's own fields, read on every request: whether he follows the file, and the file's
 * latest version. The access check runs on every request before the cache is asked.
 */
const lists = new JsonBodyCache<{ total: number }>(256, 8 * 1024 * 1024);

const queryKey = (q: CommentListQuery) => `${q.assetId}:v${q.version ?? "*"}:s${q.skip}:t${q.take}:`;
const listKey = (q: CommentListQuery, r: CommentListState) => `${queryKey(q)}r${r.comments}:p${r.people}`;

interface ListSnapshot {
  state: CommentListState;
  total: number;
  rows: CommentRow[];
}

/** The revisions, the total and the page in one read batch (one transaction): the page is of the revisions read. */
async function readSnapshot(rc: RequestContext, q: CommentListQuery, userId: string): Promise<ListSnapshot> {
  const [states, totals, rows] = await readBatch<[CommentListState, { n: number }, CommentRow]>(rc.db, [
    commentListStateSql(q.assetId, userId),
    commentTotalSql(q),
    commentPageSql(q),
  ]);
  return { state: states[0], total: totals[0]?.n ?? 0, rows };
}

/** Reads the list and keeps its shared part under the revisions it was read at. */
function keep(q: CommentListQuery, s: ListSnapshot): KeptJson<{ total: number }> {
  // The items array is the middle of every answer: `{"total":…,"following":…,"latest_version":…,"items":` + it + `}`.
  return lists.remember(listKey(q, s.state), JSON.stringify(s.rows.map(view)), { total: s.total });
}

/**
 * The file's comments, oldest first, with whether the caller follows the file, as JSON bytes to send.
 * Round trips after sign-in: one when this isolate has not answered this question lately (the list is read beside
 * the access check, as before the cache) or holds its current answer (only the revisions and the caller's follow
 * flag, one statement, are read beside the check); two when it holds an answer from before a change (the revisions
 * say so, then the list is read).
 */
export async function listAssetComments(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  query: { version?: number; skip: number; take: number },
): Promise<JsonBody> {
  const q: CommentListQuery = { assetId, ...query };
  const ahead: Promise<ListSnapshot | CommentListState> = lists.holdsAny(queryKey(q))
    ? rc.db.all<CommentListState>(commentListStateSql(assetId, actor.id)).then((rows) => rows[0])
    : readSnapshot(rc, q, actor.id);
  ahead.catch(() => {});
  prefetchAccess(rc, actor, { id: assetId, type: "asset" });
  // Nothing read above is answered unless the caller may read the file.
  const asset = await readableAsset(rc, actor, assetId);
  const read = await ahead;
  let kept = "rows" in read ? keep(q, read) : lists.get(listKey(q, read));
  let following = ("rows" in read ? read.state : read).following === 1;
  if (!kept) {
    const snapshot = await readSnapshot(rc, q, actor.id);
    kept = keep(q, snapshot);
    following = snapshot.state.following === 1;
  }
  return kept.body(`{"total":${kept.meta.total},"following":${following},"latest_version":${asset.latestVersion},"items":`, "}");
}

/**
 * The same answer read afresh, as JSON text: in a library's shard (a routed read), where a read is a call into its own
 * SQLite rather than a round trip, and where a kept list would be an isolate's memory of another object's rows.
 */
export async function commentListText(
  rc: RequestContext,
  actor: Actor,
  assetId: string,
  query: { version?: number; skip: number; take: number },
): Promise<string> {
  const q: CommentListQuery = { assetId, ...query };
  const asset = await readableAsset(rc, actor, assetId);
  const { state, total, rows } = await readSnapshot(rc, q, actor.id);
  return JSON.stringify({ total, following: state.following === 1, latest_version: asset.latestVersion, items: rows.map(view) });
}
