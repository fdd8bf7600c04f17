import { ru } from "../../../shared/i18n/ru";
import type { ReviewStatus } from "../../../shared/review-status";
import { runBatch } from "../../db/repositories/asset.repository";
import * as repo from "../../db/repositories/review.repository";
import { findUserById, findUserByLogin } from "../../db/repositories/user.repository";
import { AppError } from "../../lib/errors";
import { ID_PATTERN, newId } from "../../lib/ids";
import { canAccess } from "../access";
import type { Actor, RequestContext } from "../access";
import { eventStatement } from "../events";
import { requireAsset } from "../library";

/** Decisions a `GET …/review` lists at most (a version is rarely decided more than a few times). */
export const MAX_REVIEW_HISTORY = 500;
/** Requests a `GET …/review` lists at most. */
export const MAX_REVIEW_REQUESTS = 100;
/** Longest note of a decision or a request. */
export const MAX_REVIEW_NOTE = 2000;

/** One decision as the API shows it. */
export interface ReviewDecision {
  status: ReviewStatus;
  version: number;
  by_id: string;
  by_name: string | null;
  at: string;
  note: string | null;
}

/** One request as the API shows it. */
export interface ReviewRequest {
  request_id: string;
  version: number;
  requester_id: string;
  requester_name: string | null;
  reviewer_id: string;
  reviewer_name: string | null;
  due: string | null;
  note: string | null;
  ctime: string;
}

export interface ReviewState {
  /** the newest decision of the file's latest version; null when nobody decided on it yet */
  current: ReviewDecision | null;
  /** every decision on the file (all versions), newest first */
  history: ReviewDecision[];
  /** who was asked to review, newest first */
  requests: ReviewRequest[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function decisionOf(r: repo.DecisionRow): ReviewDecision {
  return { status: r.status, version: r.version, by_id: r.by_id, by_name: r.by_name, at: iso(r.at), note: r.note };
}

/** The version a call is about: the one named (which must exist), else the latest (the file must have one). */
async function targetVersion(rc: RequestContext, asset: { id: string; latestVersion: number }, version: number | undefined): Promise<number> {
  if (version === undefined) {
    if (asset.latestVersion < 1) throw new AppError("BAD_REQUEST", ru.reviews.noVersions);
    return asset.latestVersion;
  }
  if (!(await repo.versionExists(rc.db, asset.id, version))) {
    throw new AppError("BAD_REQUEST", ru.errors.invalidField("version", ru.reviews.versionMissing(version)));
  }
  return version;
}

const noteOf = (note: string | null | undefined) => (note?.trim() ? note.trim() : null);

/**
 * GET /api/asset/{id}/review: the current status of the latest version, the trail of every decision and the
 * requests. Read on the file is needed; without it the answer is the same 404 as for no file.
 */
export async function getReview(rc: RequestContext, actor: Actor, assetId: string): Promise<ReviewState> {
  const asset = await requireAsset(rc, actor, assetId, "read");
  const [decisions, requests] = await Promise.all([
    repo.selectDecisions(rc.db, assetId, MAX_REVIEW_HISTORY),
    repo.selectRequests(rc.db, assetId, MAX_REVIEW_REQUESTS),
  ]);
  const history = decisions.map(decisionOf);
  return {
    current: history.find((d) => d.version === asset.latestVersion) ?? null,
    history,
    requests: requests.map((r) => ({
      request_id: r.request_id,
      version: r.version,
      requester_id: r.requester_id,
      requester_name: r.requester_name,
      reviewer_id: r.reviewer_id,
      reviewer_name: r.reviewer_name,
      due: r.due === null ? null : iso(r.due),
      note: r.note,
      ctime: iso(r.ctime),
    })),
  };
}

export interface SetReviewInput {
  status: ReviewStatus;
  version?: number;
  note?: string | null;
}

/**
 * PUT /api/asset/{id}/review: records a decision on a version (the latest by default), with its `review.decided`
 * event in the same batch (automations and notifications react to it). Allowed with `update` on the file, and to
 * a reader whom someone asked to review that very version (the request is what makes him a reviewer; it never
 * widens what he may read). Others who read the file get 403; those who do not, 404.
 */
export async function setReview(rc: RequestContext, actor: Actor, assetId: string, input: SetReviewInput): Promise<ReviewState> {
  const asset = await requireAsset(rc, actor, assetId, "read");
  const version = await targetVersion(rc, asset, input.version);
  const entity = { id: asset.id, type: "asset" as const, ownerId: asset.ownerId };
  if (!(await canAccess(rc, actor, entity, "update")) && !(await repo.isRequestedReviewer(rc.db, assetId, version, actor.id))) {
    throw new AppError("FORBIDDEN", ru.reviews.decideForbidden);
  }
  const now = Date.now();
  const note = noteOf(input.note);
  await runBatch(rc.db, [
    repo.insertDecisionStatement({ id: newId(now), assetId, version, status: input.status, byId: actor.id, at: now, note }),
    // A filter by review status answers differently now: cached search answers must not be served (decision 031).
    repo.bumpSearchEpochStatement(),
    eventStatement(rc, {
      type: "review.decided",
      entityType: "asset",
      entityId: assetId,
      ownerId: asset.ownerId,
      actorId: actor.id,
      data: { version, status: input.status, note },
    }),
  ]);
  return getReview(rc, actor, assetId);
}

export interface RequestReviewInput {
  /** login or user id */
  reviewer: string;
  version?: number;
  /** epoch ms */
  due?: number | null;
  note?: string | null;
}

/**
 * POST /api/asset/{id}/review-requests: asks one person, by login or id, to review a version by a date, with its
 * `review.requested` event in the same batch (notifications tell him). Needs `update` on the file, as setting a
 * status does: running a review is the editors' job, and a reader could otherwise send anyone notifications. The
 * reviewer must be able to read the file; an unknown user and one who cannot read it get the same 400, so the
 * answer tells nothing about who may read what.
 */
export async function requestReview(rc: RequestContext, actor: Actor, assetId: string, input: RequestReviewInput): Promise<ReviewRequest> {
  const asset = await requireAsset(rc, actor, assetId, "update");
  const version = await targetVersion(rc, asset, input.version);
  const refused = () => new AppError("BAD_REQUEST", ru.errors.invalidField("reviewer", ru.reviews.reviewerRefused));
  const user = ID_PATTERN.test(input.reviewer) ? await findUserById(rc.db, input.reviewer) : await findUserByLogin(rc.db, input.reviewer);
  if (!user || !user.enabled || user.isRobot) throw refused();
  if (user.id === actor.id) throw new AppError("BAD_REQUEST", ru.errors.invalidField("reviewer", ru.reviews.selfRequest));
  const reviewer: Actor = { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily: null };
  if (!(await canAccess(rc, reviewer, { id: asset.id, type: "asset", ownerId: asset.ownerId }, "read"))) throw refused();
  const now = Date.now();
  const id = newId(now);
  const note = noteOf(input.note);
  const due = input.due ?? null;
  await runBatch(rc.db, [
    repo.insertRequestStatement({ id, assetId, version, requesterId: actor.id, reviewerId: user.id, due, note, ctime: now }),
    eventStatement(rc, {
      type: "review.requested",
      entityType: "asset",
      entityId: assetId,
      ownerId: asset.ownerId,
      actorId: actor.id,
      data: { version, reviewer_id: user.id, due: due === null ? null : iso(due), note },
    }),
  ]);
  return {
    request_id: id,
    version,
    requester_id: actor.id,
    requester_name: actor.name,
    reviewer_id: user.id,
    reviewer_name: user.name,
    due: due === null ? null : iso(due),
    note,
    ctime: iso(now),
  };
}
