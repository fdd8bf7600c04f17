import { and, eq, gt, isNull } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { oneTimeTokens, type UserRow } from "../../db/schema/index";
import { findUserById, findUserByLogin } from "../../db/repositories/user.repository";
import {
  findLiveFamilyUser,
  findSessionByHash,
  findSessionWithUser,
  insertSession,
  markSessionUsed,
  revokeFamily,
} from "../../db/repositories/session.repository";
import { AppError } from "../../lib/errors";
import { randomToken, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { signAccessToken, verifyAccessToken } from "../../lib/jwt";
import { decoyPasswordHash, verifyPassword } from "../../lib/password";
import type { ThrottleKind } from "../../../durable-objects/login-throttle.do";
import { auditStatement, recordAudit, type AuditEntry } from "./audit.service";
import type { Actor, RequestContext } from "./context";
import { preloadCaller } from "./access.service";
import { ROBOT_TOKEN_PREFIX, authenticateRobotToken } from "./robot-token.service";

/** Name of the HttpOnly cookie holding the opaque refresh token (over plain http, as in a local run). */
export const REFRESH_COOKIE = "mam_refresh";

/**
 * The refresh cookie's name for a request: over https it carries the `__Host-` prefix, so the browser accepts it
 * only as Secure, for Path=/ and without a Domain (no sibling subdomain can set or shadow it).
 */
export function refreshCookieName(requestUrl: string | URL): string {
  return new URL(requestUrl).protocol === "https:" ? `__Host-${REFRESH_COOKIE}` : REFRESH_COOKIE;
}

/** How long a just-rotated refresh token still identifies its user to page loaders (never to /refresh). */
export const ROTATION_GRACE_MS = 60_000;

/** What a sign-in or refresh hands out: the API answer plus the cookie to set. */
export interface IssuedSession {
  bearer: string;
  /** access token expiry, ISO 8601 */
  expire: string;
  refreshToken: string;
  refreshExpiresAt: number;
  user: UserRow;
}

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

function toActor(user: UserRow, sessionFamily: string | null): Actor {
  return { id: user.id, name: user.name, login: user.login, isAdmin: user.isAdmin, isRobot: user.isRobot, sessionFamily };
}

/**
 * Starts a new refresh token in `familyId` and signs its access token. With `rotating`, the presented token is
 * marked used in the same transaction that adds its successor, so the family always has a live token (no spurious
 * 401s for concurrent requests) and a lost race is detected as reuse.
 */
async function issue(
  rc: RequestContext,
  user: UserRow,
  familyId: string,
  client: ClientInfo,
  rotating?: string,
  audit?: AuditEntry,
): Promise<IssuedSession> {
  const now = Date.now();
  const refreshToken = randomToken();
  const refreshExpiresAt = now + rc.config.REFRESH_TOKEN_TTL_SECONDS * 1000;
  const insert = insertSession(rc.db, {
    id: newId(now),
    familyId,
    userId: user.id,
    tokenHash: await sha256Hex(refreshToken),
    ctime: now,
    expiresAt: refreshExpiresAt,
    userAgent: client.userAgent?.slice(0, 400) ?? null,
    ip: client.ip,
  });
  if (rotating) {
    const [, claimed] = await rc.db.batch([insert, markSessionUsed(rc.db, rotating, now)]);
    if (claimed.meta.changes === 0) {
      // Another request used the token between our read and this write: treat it as reuse.
      await revokeFamily(rc.db, familyId, now).run();
      throw new AppError("UNAUTHORIZED", ru.errors.refreshReused);
    }
  } else if (audit) {
    await rc.db.batch([insert, auditStatement(rc, audit)]);
  } else {
    await insert.run();
  }
  const { token, exp } = await signAccessToken(rc.config, { sub: user.id, sid: familyId }, now);
  return { bearer: token, expire: new Date(exp * 1000).toISOString(), refreshToken, refreshExpiresAt, user };
}

function throttle(rc: RequestContext, kind: ThrottleKind, key: string) {
  return rc.env.LOGIN_THROTTLE.get(rc.env.LOGIN_THROTTLE.idFromName(`${kind}:${key}`));
}

function tooManyAttempts(ms: number): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError("TOO_MANY_REQUESTS", ru.errors.tooManyAttempts(seconds), { "Retry-After": String(seconds) });
}

/**
 * Signs in with login and password. Unknown logins, disabled users and wrong passwords all answer the same 401
 * after the same amount of work; repeated failures per account and per client IP are throttled with 429.
 */
export async function login(rc: RequestContext, login: string, password: string, client: ClientInfo): Promise<IssuedSession> {
  const accountKey = login.trim().toLowerCase();
  const account = throttle(rc, "account", accountKey);
  const ip = client.ip ? throttle(rc, "ip", client.ip) : null;
  const waits = await Promise.all([account.begin("account"), ip?.begin("ip") ?? 0]);
  const wait = Math.max(...waits);
  if (wait > 0) throw tooManyAttempts(wait);

  const user = await findUserByLogin(rc.db, accountKey);
  const passwordOk = await verifyPassword(password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (!user || !passwordOk || !user.enabled || user.isRobot) {
    // Never the password; the login as typed (trimmed, bounded) so administrators can see what was tried.
    await recordAudit(rc, { action: "auth.login_failed", actorId: null, details: { login: login.trim().slice(0, 256) }, ip: client.ip });
    throw new AppError("UNAUTHORIZED", ru.errors.badCredentials);
  }
  rc.waitUntil(Promise.all([account.succeeded("account"), ip?.succeeded("ip")]));
  const familyId = newId();
  return issue(rc, user, familyId, client, undefined, {
    action: "auth.login",
    actorId: user.id,
    objectType: "user",
    objectId: user.id,
    details: { method: "password", session: familyId },
    ip: client.ip,
  });
}

/**
 * Trades a refresh token for a new access token and a new refresh token of the same family. Presenting a token
 * that was already used or revoked revokes the whole family (it was stolen or replayed).
 */
export async function refresh(rc: RequestContext, refreshToken: string | undefined, client: ClientInfo): Promise<IssuedSession> {
  if (!refreshToken) throw new AppError("UNAUTHORIZED", ru.errors.refreshMissing);
  const now = Date.now();
  const session = await findSessionByHash(rc.db, await sha256Hex(refreshToken));
  if (!session || session.expiresAt <= now) throw new AppError("UNAUTHORIZED", ru.errors.refreshInvalid);
  if (session.usedAt != null || session.revokedAt != null) {
    await revokeFamily(rc.db, session.familyId, now).run();
    throw new AppError("UNAUTHORIZED", ru.errors.refreshReused);
  }
  const user = await findUserById(rc.db, session.userId);
  if (!user || !user.enabled) {
    await revokeFamily(rc.db, session.familyId, now).run();
    throw new AppError("UNAUTHORIZED", ru.errors.refreshInvalid);
  }
  return issue(rc, user, session.familyId, client, session.id);
}

/** Ends the session family of the refresh cookie and/or of the access token; unknown tokens are ignored. */
export async function logout(
  rc: RequestContext,
  refreshToken: string | undefined,
  actor: Actor | null,
  client?: ClientInfo,
): Promise<void> {
  const now = Date.now();
  const families = new Map<string, string>();
  if (refreshToken) {
    const session = await findSessionByHash(rc.db, await sha256Hex(refreshToken));
    if (session && session.revokedAt == null) families.set(session.familyId, session.userId);
  }
  if (actor?.sessionFamily) families.set(actor.sessionFamily, actor.id);
  if (families.size === 0) return;
  const statements = [...families].flatMap(([family, userId]) => [
    revokeFamily(rc.db, family, now),
    auditStatement(rc, {
      action: "auth.logout",
      actorId: userId,
      objectType: "user",
      objectId: userId,
      details: { session: family },
      ip: client?.ip,
    }),
  ]);
  await rc.db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
}

/** Resolves an `Authorization: Bearer` access token; throws 401 when the token or its session is not valid. */
export async function authenticateBearer(rc: RequestContext, token: string): Promise<Actor> {
  const claims = await verifyAccessToken(rc.config, token);
  if (!claims) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  // the caller's access row is read beside the user (same round trip), so the request's first check needs no extra one
  const [user] = await Promise.all([findLiveFamilyUser(rc.db, claims.sub, claims.sid, Date.now()), preloadCaller(rc, claims.sub)]);
  if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return toActor(user, claims.sid);
}

/**
 * The actor of a session family that is still live (a WOPI token minted in the session names the family): the same
 * one indexed query as every bearer request, so logout, a new password, disabling and reuse detection end it. 401
 * otherwise.
 */
export async function actorOfSession(rc: RequestContext, userId: string, familyId: string): Promise<Actor> {
  const user = await findLiveFamilyUser(rc.db, userId, familyId, Date.now());
  if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return toActor(user, familyId);
}

/**
 * Resolves the signed-in user from the refresh cookie without rotating it: how Remix loaders know who renders.
 * Returns null when there is no live session.
 */
export async function actorFromRefreshCookie(rc: RequestContext, refreshToken: string | undefined): Promise<Actor | null> {
  if (!refreshToken) return null;
  // the session and its user in one statement: a page pays one round trip to know who renders
  const found = await findSessionWithUser(rc.db, await sha256Hex(refreshToken));
  const now = Date.now();
  const session = found?.session;
  // A page request may still carry the token another tab rotated a moment ago: honour it briefly.
  const recentlyRotated = session?.usedAt != null && now - session.usedAt < ROTATION_GRACE_MS;
  if (!session || session.revokedAt != null || session.expiresAt <= now || (session.usedAt != null && !recentlyRotated)) return null;
  return found.user.enabled ? toActor(found.user, session.familyId) : null;
}

/**
 * Creates a single-use token (five minutes) that `exchangeToken` trades for a session: how SSO callbacks and
 * sign-in links reach `/login?token=…` without putting a long-lived credential in a URL.
 */
export async function createOneTimeToken(rc: RequestContext, userId: string, ttlMs = 5 * 60_000): Promise<string> {
  const { token, statement } = await oneTimeTokenStatement(rc, userId, ttlMs);
  await statement.run();
  return token;
}

/** `createOneTimeToken` as a statement not yet run, for a batch that records something with it (an SSO sign-in). */
export async function oneTimeTokenStatement(rc: RequestContext, userId: string, ttlMs = 5 * 60_000) {
  const token = randomToken();
  const now = Date.now();
  const statement = rc.db
    .insert(oneTimeTokens)
    .values({ id: newId(now), tokenHash: await sha256Hex(token), userId, ctime: now, expiresAt: now + ttlMs });
  return { token, statement };
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Trades a sign-in token for a new session (a new refresh cookie family): a one-time token (SSO callbacks, sign-in
 * links), or an access token handed over in `/login?token=` (issue 29): a session's JWT or a robot's API token
 * (`mamr_…`), checked exactly as a bearer is. A robot token limited to some groups is refused: a session carries no
 * scope, so it would reach more than the token does. A used, expired, forged or unknown token is a 401.
 */
export async function exchangeToken(rc: RequestContext, token: string, client: ClientInfo): Promise<IssuedSession> {
  if (token.startsWith(ROBOT_TOKEN_PREFIX) || JWT_SHAPE.test(token)) {
    const actor = token.startsWith(ROBOT_TOKEN_PREFIX) ? await authenticateRobotToken(rc, token) : await authenticateBearer(rc, token);
    if (actor.scopeGroups) throw new AppError("FORBIDDEN", ru.errors.scopedTokenSession);
    const user = await findUserById(rc.db, actor.id);
    if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
    return issue(rc, user, newId(), client);
  }
  const now = Date.now();
  const hash = await sha256Hex(token);
  const claimed = await rc.db
    .update(oneTimeTokens)
    .set({ usedAt: now })
    .where(and(eq(oneTimeTokens.tokenHash, hash), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)))
    .returning({ userId: oneTimeTokens.userId })
    .get();
  const user = claimed ? await findUserById(rc.db, claimed.userId) : undefined;
  if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.exchangeInvalid);
  return issue(rc, user, newId(now), client);
}
