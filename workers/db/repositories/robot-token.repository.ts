import { and, desc, eq, isNull } from "drizzle-orm";
import type { Database } from "../client";
import { robotTokens, users } from "../schema/index";

/** Queries of robot API tokens. */

export function insertRobotTokenStatement(db: Database, row: typeof robotTokens.$inferInsert) {
  return db.insert(robotTokens).values(row);
}

/** A robot's tokens, newest first (hashes are never read out). */
export function listRobotTokens(db: Database, userId: string) {
  return db
    .select({
      id: robotTokens.id,
      name: robotTokens.name,
      prefix: robotTokens.prefix,
      scopeGroups: robotTokens.scopeGroups,
      ctime: robotTokens.ctime,
      expiresAt: robotTokens.expiresAt,
      revokedAt: robotTokens.revokedAt,
      lastUsedAt: robotTokens.lastUsedAt,
    })
    .from(robotTokens)
    .where(eq(robotTokens.userId, userId))
    .orderBy(desc(robotTokens.ctime), desc(robotTokens.id));
}

export type RobotTokenListRow = Awaited<ReturnType<typeof listRobotTokens>>[number];

export function findRobotToken(db: Database, userId: string, tokenId: string) {
  return db
    .select()
    .from(robotTokens)
    .where(and(eq(robotTokens.id, tokenId), eq(robotTokens.userId, userId)))
    .get();
}

/** The token with this prefix and its user, in one query: what every robot request reads. */
export function findRobotTokenByPrefix(db: Database, prefix: string) {
  return db
    .select({ token: robotTokens, user: users })
    .from(robotTokens)
    .innerJoin(users, eq(users.id, robotTokens.userId))
    .where(eq(robotTokens.prefix, prefix))
    .get();
}

/** A robot's token by id and its user, in one query (a WOPI token minted by the robot names the token). */
export function findRobotTokenById(db: Database, userId: string, tokenId: string) {
  return db
    .select({ token: robotTokens, user: users })
    .from(robotTokens)
    .innerJoin(users, eq(users.id, robotTokens.userId))
    .where(and(eq(robotTokens.id, tokenId), eq(robotTokens.userId, userId)))
    .get();
}

/** Revokes a token unless it already is; the change count tells whether this call revoked it. */
export function revokeRobotTokenStatement(db: Database, tokenId: string, now: number) {
  return db
    .update(robotTokens)
    .set({ revokedAt: now })
    .where(and(eq(robotTokens.id, tokenId), isNull(robotTokens.revokedAt)));
}

export function touchRobotToken(db: Database, tokenId: string, now: number) {
  return db.update(robotTokens).set({ lastUsedAt: now }).where(eq(robotTokens.id, tokenId));
}
