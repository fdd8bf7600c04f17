import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../client";
import type { ReviewStatus } from "../schema/index";

/**
 * Queries of review decisions and requests (decision record 036). Writes are statements for the caller's one
 * `runBatch`, beside the event that announces them.
 */

/**
 * The current review status of a version: its newest decision (an index range on `review_decisions_version_idx`).
 * `assetId` and `version` are columns of the surrounding query.
 */
export function currentReviewStatusSql(assetId: SQL | SQLWrapper, version: SQL | SQLWrapper): SQL<ReviewStatus | null> {
  return sql<ReviewStatus | null>`(select rd.status from review_decisions rd
    where rd.asset_id = ${assetId} and rd.version = ${version} order by rd.at desc, rd.decision_id desc limit 1)`;
}

/** The current review status of an asset's latest version, as a column of a query over `a` (assets). */
export const CURRENT_REVIEW_STATUS = currentReviewStatusSql(sql`a.id`, sql`a.latest_version`);

/** A condition on `a` (assets): its latest version's current status is `status` ("none": no decision yet). */
export function reviewStatusIs(status: ReviewStatus | "none"): SQL {
  return status === "none" ? sql`${CURRENT_REVIEW_STATUS} is null` : sql`${CURRENT_REVIEW_STATUS} = ${status}`;
}

export interface DecisionRow {
  decision_id: string;
  version: number;
  status: ReviewStatus;
  by_id: string;
  by_name: string | null;
  at: number;
  note: string | null;
}

/** The newest decisions of an asset (every version), newest first, with the deciders' names. */
export function selectDecisions(db: Database, assetId: string, limit: number) {
  return db.all<DecisionRow>(sql`select rd.decision_id, rd.version, rd.status, rd.by_id, u.name as by_name, rd.at, rd.note
    from review_decisions rd left join users u on u.id = rd.by_id
    where rd.asset_id = ${assetId} order by rd.at desc, rd.decision_id desc limit ${limit}`);
}

export interface RequestRow {
  request_id: string;
  version: number;
  requester_id: string;
  requester_name: string | null;
  reviewer_id: string;
  reviewer_name: string | null;
  due: number | null;
  note: string | null;
  ctime: number;
}

/** The newest review requests of an asset, newest first, with names. */
export function selectRequests(db: Database, assetId: string, limit: number) {
  return db.all<RequestRow>(sql`select rq.request_id, rq.version, rq.requester_id, ru.name as requester_name, rq.reviewer_id,
      rv.name as reviewer_name, rq.due, rq.note, rq.ctime
    from review_requests rq left join users ru on ru.id = rq.requester_id left join users rv on rv.id = rq.reviewer_id
    where rq.asset_id = ${assetId} order by rq.ctime desc, rq.request_id desc limit ${limit}`);
}

export function insertDecisionStatement(d: { id: string; assetId: string; version: number; status: ReviewStatus; byId: string; at: number; note: string | null }): SQL {
  return sql`insert into review_decisions (decision_id, asset_id, version, status, by_id, at, note)
    values (${d.id}, ${d.assetId}, ${d.version}, ${d.status}, ${d.byId}, ${d.at}, ${d.note})`;
}

export function insertRequestStatement(r: {
  id: string;
  assetId: string;
  version: number;
  requesterId: string;
  reviewerId: string;
  due: number | null;
  note: string | null;
  ctime: number;
}): SQL {
  return sql`insert into review_requests (request_id, asset_id, version, requester_id, reviewer_id, due, note, ctime)
    values (${r.id}, ${r.assetId}, ${r.version}, ${r.requesterId}, ${r.reviewerId}, ${r.due}, ${r.note}, ${r.ctime})`;
}

/** Whether the asset has this version (a row in asset_versions). */
export async function versionExists(db: Database, assetId: string, version: number): Promise<boolean> {
  const row = await db.get<{ n: number } | undefined>(sql`select 1 as n from asset_versions where asset_id = ${assetId} and version = ${version}`);
  return row !== undefined;
}

/** Whether someone asked `userId` to review this version of the asset. */
export async function isRequestedReviewer(db: Database, assetId: string, version: number, userId: string): Promise<boolean> {
  const row = await db.get<{ n: number } | undefined>(
    sql`select 1 as n from review_requests where asset_id = ${assetId} and version = ${version} and reviewer_id = ${userId} limit 1`,
  );
  return row !== undefined;
}

/** Moves the search epoch (decision 031): a review decision changes what a filter by review status answers. */
export function bumpSearchEpochStatement(): SQL {
  return sql`update search_epoch set n = n + 1 where id = 1`;
}
