import { ru } from "../../../shared/i18n/ru";
import {
  commentsPage,
  countComments,
  insertAnswerIfNoneSince,
  lastAnswerAt,
  ratingCounts,
  type PqiPeriod,
  type PqiWindow,
} from "../../db/repositories/pqi.repository";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { Actor, RequestContext } from "../access";
import { summarise, type SurveySummary } from "./pqi-summary";
import { requireAdmin } from "../access";

/**
 * A person answers the survey at most once in this many days (decision 015): the shell asks at most once a month,
 * and the server holds every browser and script to the same rule so one user cannot weigh the score.
 */
export const PQI_ANSWER_INTERVAL_DAYS = 30;
const DAY_MS = 86_400_000;

export interface PqiAnswerInput {
  /** 1..10, or 0 for a refusal */
  rating: number;
  comment?: string | null;
}

/**
 * Records a survey answer of a signed-in person. Robots have no survey (403); a second answer within
 * PQI_ANSWER_INTERVAL_DAYS is refused with 429 and Retry-After up to the day it is allowed again.
 * @example await submitPqi(rc, actor, { rating: 9, comment: "Удобно" })
 */
export async function submitPqi(rc: RequestContext, actor: Actor, input: PqiAnswerInput): Promise<{ id: string; ctime: string }> {
  if (actor.isRobot) throw new AppError("FORBIDDEN", ru.survey.robotsNotAsked);
  const now = Date.now();
  const id = newId(now);
  const comment = input.comment?.trim() ? input.comment.trim() : null;
  const interval = PQI_ANSWER_INTERVAL_DAYS * DAY_MS;
  const written = await insertAnswerIfNoneSince(rc.db, { id, userId: actor.id, ctime: now, rating: input.rating, comment }, now - interval);
  if (!written) {
    const last = (await lastAnswerAt(rc.db, actor.id)) ?? now;
    const seconds = Math.max(1, Math.ceil((last + interval - now) / 1000));
    throw new AppError("TOO_MANY_REQUESTS", ru.survey.alreadyAnswered(new Date(last + interval).toISOString().slice(0, 10)), {
      "Retry-After": String(seconds),
    });
  }
  return { id, ctime: new Date(now).toISOString() };
}

/** Distribution and NPS-style score over the window, overall and per period (administrators only). */
export async function surveySummary(rc: RequestContext, actor: Actor, window: PqiWindow, period: PqiPeriod): Promise<SurveySummary> {
  requireAdmin(actor);
  return summarise(await ratingCounts(rc.db, window, period));
}

export interface PqiCommentInfo {
  id: string;
  ctime: string;
  rating: number;
  comment: string;
  /** null once the author's account is deleted */
  user_id: string | null;
  user_name: string | null;
  user_login: string | null;
}

/** One page of comments, newest first, with the total for the pager (administrators only). */
export async function surveyComments(
  rc: RequestContext,
  actor: Actor,
  query: PqiWindow & { skip: number; take: number },
): Promise<{ items: PqiCommentInfo[]; total: number }> {
  requireAdmin(actor);
  const [rows, total] = await Promise.all([commentsPage(rc.db, query), countComments(rc.db, query)]);
  return {
    items: rows.map(({ answer, userName, userLogin }) => ({
      id: answer.id,
      ctime: new Date(answer.ctime).toISOString(),
      rating: answer.rating,
      comment: answer.comment ?? "",
      user_id: answer.userId,
      user_name: userName,
      user_login: userLogin,
    })),
    total,
  };
}
