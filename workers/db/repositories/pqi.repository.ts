import { and, count, desc, eq, gte, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { pqiAnswers, users } from "../schema/index";
import type { RatingCount } from "../../services/feedback/pure";

export interface NewPqiAnswer {
  id: string;
  userId: string;
  ctime: number;
  rating: number;
  comment: string | null;
}

/**
 * Appends an answer unless the same user already answered at or after `notBefore`: the check and the insert are one
 * statement, so two answers sent at once cannot both pass. Answers whether the row was written.
 */
export async function insertAnswerIfNoneSince(db: Database, answer: NewPqiAnswer, notBefore: number): Promise<boolean> {
  const result = await db.run(sql`
    insert into pqi_answers (id, user_id, ctime, rating, comment)
    select ${answer.id}, ${answer.userId}, ${answer.ctime}, ${answer.rating}, ${answer.comment}
    where not exists (select 1 from pqi_answers where user_id = ${answer.userId} and ctime >= ${notBefore})`);
  return result.meta.changes > 0;
}

/** Time of the user's latest answer, or undefined. */
export async function lastAnswerAt(db: Database, userId: string): Promise<number | undefined> {
  const row = await db
    .select({ ctime: pqiAnswers.ctime })
    .from(pqiAnswers)
    .where(eq(pqiAnswers.userId, userId))
    .orderBy(desc(pqiAnswers.ctime))
    .limit(1)
    .get();
  return row?.ctime;
}

export interface PqiWindow {
  from?: number;
  to?: number;
}

function windowWhere(w: PqiWindow): SQL | undefined {
  return and(
    w.from !== undefined ? gte(pqiAnswers.ctime, w.from) : undefined,
    w.to !== undefined ? lte(pqiAnswers.ctime, w.to) : undefined,
  );
}

/** SQLite strftime formats of the summary's periods (UTC). */
const PERIOD_FORMAT = { month: "%Y-%m", week: "%Y-W%W" } as const;
export type PqiPeriod = keyof typeof PERIOD_FORMAT;

/** Answers counted per period and rating, inside the window. */
export function ratingCounts(db: Database, w: PqiWindow, period: PqiPeriod): Promise<RatingCount[]> {
  const periodExpr = sql<string>`strftime(${PERIOD_FORMAT[period]}, ${pqiAnswers.ctime} / 1000, 'unixepoch')`;
  return db
    .select({ period: periodExpr, rating: pqiAnswers.rating, count: count() })
    .from(pqiAnswers)
    .where(windowWhere(w))
    .groupBy(periodExpr, pqiAnswers.rating)
    .all();
}

function commentsWhere(w: PqiWindow): SQL | undefined {
  return and(isNotNull(pqiAnswers.comment), windowWhere(w));
}

/** One page of answers that carry a comment, newest first, with the author's name. */
export function commentsPage(db: Database, w: PqiWindow & { skip: number; take: number }) {
  return db
    .select({ answer: pqiAnswers, userName: users.name, userLogin: users.login })
    .from(pqiAnswers)
    .leftJoin(users, eq(users.id, pqiAnswers.userId))
    .where(commentsWhere(w))
    .orderBy(desc(pqiAnswers.ctime), desc(pqiAnswers.id))
    .limit(w.take)
    .offset(w.skip);
}

export async function countComments(db: Database, w: PqiWindow): Promise<number> {
  const row = await db.select({ n: count() }).from(pqiAnswers).where(commentsWhere(w)).get();
  return row?.n ?? 0;
}
