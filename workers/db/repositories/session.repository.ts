import { and, eq, gt, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../client";
import { sessions, users, type SessionRow, type UserRow } from "../schema/index";

export function insertSession(db: Database, row: typeof sessions.$inferInsert) {
  return db.insert(sessions).values(row);
}

export function findSessionByHash(db: Database, tokenHash: string): Promise<SessionRow | undefined> {
  return db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)).get();
}

/** A refresh token's session with its user, in one statement (the page loaders' actor lookup). */
export function findSessionWithUser(db: Database, tokenHash: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  return db.select({ session: sessions, user: users }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(eq(sessions.tokenHash, tokenHash)).get();
}

/** Marks a refresh token used if nobody has yet; the returned change count tells who won a race. */
export function markSessionUsed(db: Database, id: string, now: number) {
  return db
    .update(sessions)
    .set({ usedAt: now })
    .where(and(eq(sessions.id, id), isNull(sessions.usedAt), isNull(sessions.revokedAt)));
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
