import { and, eq, gt, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import { sessions, users, type SessionRow, type UserRow } from "../schema/index";

export function insertSession(db: Database, row: typeof sessions.$inferInsert) {
  return db.insert(sessions).values(row);
}

export function findSessionByHash(db: Database, tokenHash: string): Promise<SessionRow | undefined> {
  return db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)).get();
}

/**
 * Whether the source a session was made from still stands (true for sessions signed in directly): the family of the
 * access token traded for it has a live refresh token, and the robot token traded for it is neither revoked nor
 * expired. Part of every lookup that lets a session act (bearer, page loaders, refresh, WOPI), so ending the source
 * ends the session at the next request, with no list of derived sessions to keep in step.
 */
export function sessionSourceLive(now: number): SQL {
  return sql`(${sessions.parentFamilyId} is null or exists (select 1 from sessions parent where parent.family_id = ${sessions.parentFamilyId} and parent.revoked_at is null and parent.used_at is null and parent.expires_at > ${now}))
    and (${sessions.robotTokenId} is null or exists (select 1 from robot_tokens source where source.id = ${sessions.robotTokenId} and source.revoked_at is null and (source.expires_at is null or source.expires_at > ${now})
      and exists (select 1 from users robot where robot.id = source.user_id and robot.is_robot = 1 and robot.enabled = 1)))`;
}

/** A refresh token's session with its user and whether its source still stands, in one statement (the page loaders' actor lookup). */
export async function findSessionWithUser(
  db: Database,
  tokenHash: string,
  now: number,
): Promise<{ session: SessionRow; user: UserRow; sourceLive: boolean } | undefined> {
  const row = await db
    .select({ session: sessions, user: users, sourceLive: sql<number>`${sessionSourceLive(now)}` })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.tokenHash, tokenHash))
    .get();
  return row && { session: row.session, user: row.user, sourceLive: Number(row.sourceLive) === 1 };
}

/** Marks a refresh token used if nobody has yet; the returned change count tells who won a race. */
export function markSessionUsed(db: Database, id: string, now: number) {
  return db
    .update(sessions)
    .set({ usedAt: now })
    .where(and(eq(sessions.id, id), isNull(sessions.usedAt), isNull(sessions.revokedAt)));
}

/** What a session family was made from (null fields: signed in directly); undefined for an unknown family. */
export function findFamilySource(db: Database, familyId: string) {
  return db
    .select({ parentFamilyId: sessions.parentFamilyId, robotTokenId: sessions.robotTokenId })
    .from(sessions)
    .where(eq(sessions.familyId, familyId))
    .limit(1)
    .get();
}

export function revokeFamily(db: Database, familyId: string, now: number) {
  return db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.familyId, familyId), isNull(sessions.revokedAt)));
}

/**
 * The user behind an access token's session family, if the family still has a live refresh token: one query per
 * request, so logout, reuse detection and expiry of the session end its access tokens at once.
 */
export async function findLiveFamilyUser(db: Database, userId: string, familyId: string, now: number): Promise<UserRow | undefined> {
  const row = await db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.familyId, familyId),
        eq(sessions.userId, userId),
        isNull(sessions.revokedAt),
        isNull(sessions.usedAt),
        gt(sessions.expiresAt, now),
        sessionSourceLive(now),
      ),
    )
    .limit(1)
    .get();
  return row?.user;
}

/** Deletes refresh tokens that expired or were revoked more than `olderThan` ago (housekeeping). */
export function deleteDeadSessions(db: Database, olderThan: number) {
  return db.delete(sessions).where(or(lt(sessions.expiresAt, olderThan), lt(sessions.revokedAt, olderThan)));
}
