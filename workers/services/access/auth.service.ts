import { and, eq, gt, isNull } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { oneTimeTokens, tradedTokens, users, type UserRow } from "../../db/schema/index";
import { findUserById, findUserByLogin } from "../../db/repositories/user.repository";
import { readCallerCopyAhead, readCallerCopyAheadOfSession } from "../../db/repositories/caller-copy.repository";
import { noLibrarySwitched, placesOfIds } from "../../db/library-directory";
import {
  findFamilySource,
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
import { accountThrottleKey, ipThrottleKey } from "../../../durable-objects/login-throttle.policy";
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

/** What a session was made from, when it was made by trading a handed-over token: it lives only while that does. */
export interface SessionSource {
  parentFamilyId?: string | null;
  robotTokenId?: string | null;
}

interface IssueOptions {
  /** the refresh token being rotated: marked used in the same transaction that adds its successor */
  rotating?: string;
  /** recorded in the same batch as the new token */
  audit?: AuditEntry;
  /** carried by every token of the family (a refresh passes the presented token's on) */
  source?: SessionSource;
}

/**
 * Starts a new refresh token in `familyId` and signs its access token. With `rotating`, the presented token is
 * marked used in the same transaction that adds its successor, so the family always has a live token (no spurious
 * 401s for concurrent requests) and a lost race is detected as reuse.
 */
async function issue(rc: RequestContext, user: UserRow, familyId: string, client: ClientInfo, options: IssueOptions = {}): Promise<IssuedSession> {
  const { rotating, audit, source } = options;
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
    parentFamilyId: source?.parentFamilyId ?? null,
    robotTokenId: source?.robotTokenId ?? null,
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

function throttle(rc: RequestContext, key: string) {
  return rc.env.LOGIN_THROTTLE.get(rc.env.LOGIN_THROTTLE.idFromName(key));
}

function tooManyAttempts(ms: number): AppError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new AppError("TOO_MANY_REQUESTS", ru.errors.tooManyAttempts(seconds), { "Retry-After": String(seconds) });
}

/**
 * Signs in with login and password. Unknown logins, disabled users and wrong passwords all answer the same 401
 * after the same amount of work; repeated failures are throttled with 429 per (account, client address) and per
 * client address, and a failure that starts a lock is audited (`auth.login_locked`) so administrators see it.
 */
export async function login(rc: RequestContext, login: string, password: string, client: ClientInfo): Promise<IssuedSession> {
  const accountKey = login.trim().toLowerCase();
  const account = throttle(rc, accountThrottleKey(accountKey, client.ip));
  const ip = client.ip ? throttle(rc, ipThrottleKey(client.ip)) : null;
  const waits = await Promise.all([account.begin("account"), ip?.begin("ip") ?? 0]);
  const wait = Math.max(...waits);
  if (wait > 0) throw tooManyAttempts(wait);

  const user = await findUserByLogin(rc.db, accountKey);
  const passwordOk = await verifyPassword(password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (!user || !passwordOk || !user.enabled || user.isRobot) {
    // `begin` counted this attempt before the check: a lock in place now is the one this failure started
    const [accountLock, ipLock] = await Promise.all([account.retryAfterMs(), ip?.retryAfterMs() ?? 0]);
    // Never the password; the login as typed (trimmed, bounded) so administrators can see what was tried.
    const typed = login.trim().slice(0, 256);
    const failed: AuditEntry = { action: "auth.login_failed", actorId: null, details: { login: typed }, ip: client.ip };
    const locks: AuditEntry[] = [];
    if (accountLock > 0 || ipLock > 0) {
      locks.push({
        action: "auth.login_locked",
        actorId: null,
        objectType: user ? "user" : undefined,
        objectId: user?.id,
        details: { login: typed, scope: accountLock > 0 ? "account_address" : "address", seconds: Math.ceil(Math.max(accountLock, ipLock) / 1000) },
        ip: client.ip,
      });
    }
    await rc.db.batch([auditStatement(rc, failed), ...locks.map((entry) => auditStatement(rc, entry))]);
    throw new AppError("UNAUTHORIZED", ru.errors.badCredentials);
  }
  rc.waitUntil(Promise.all([account.succeeded("account"), ip?.succeeded("ip")]));
  const familyId = newId();
  return issue(rc, user, familyId, client, {
    audit: {
      action: "auth.login",
      actorId: user.id,
      objectType: "user",
      objectId: user.id,
      details: { method: "password", session: familyId },
      ip: client.ip,
    },
  });
}

/**
 * Trades a refresh token for a new access token and a new refresh token of the same family. Presenting a token
 * that was already used or revoked revokes the whole family (it was stolen or replayed).
 */
export async function refresh(rc: RequestContext, refreshToken: string | undefined, client: ClientInfo): Promise<IssuedSession> {
  if (!refreshToken) throw new AppError("UNAUTHORIZED", ru.errors.refreshMissing);
  const now = Date.now();
  // the session, its user and whether what it was made from still stands: one statement
  const found = await findSessionWithUser(rc.db, await sha256Hex(refreshToken), now);
  const session = found?.session;
  if (!found || !session || session.expiresAt <= now) throw new AppError("UNAUTHORIZED", ru.errors.refreshInvalid);
  if (session.usedAt != null || session.revokedAt != null) {
    await revokeFamily(rc.db, session.familyId, now).run();
    throw new AppError("UNAUTHORIZED", ru.errors.refreshReused);
  }
  const user = found.user;
  if (!user.enabled || !found.sourceLive) {
    await revokeFamily(rc.db, session.familyId, now).run();
    throw new AppError("UNAUTHORIZED", ru.errors.refreshInvalid);
  }
  return issue(rc, user, session.familyId, client, {
    rotating: session.id,
    source: { parentFamilyId: session.parentFamilyId, robotTokenId: session.robotTokenId },
  });
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

/**
 * Resolves an `Authorization: Bearer` access token; throws 401 when the token or its session is not valid.
 * `namesEntity`: the request names a folder or file, whose library's shard may answer it.
 */
export async function authenticateBearer(rc: RequestContext, token: string, namesEntity = false): Promise<Actor> {
  const claims = await verifyAccessToken(rc.config, token);
  if (!claims) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  // the caller's access row is read beside the user (same round trip), so the request's first check needs no extra one;
  // and, for a request naming a folder or file while a library may live in a shard, the copy of him a call into that
  // shard carries (decision 051)
  if (namesEntity && !noLibrarySwitched()) readCallerCopyAhead(rc, rc.db, claims.sub);
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
export async function actorFromRefreshCookie(
  rc: RequestContext,
  refreshToken: string | undefined,
  /** the folder and file the page names: while a library may live in a shard, the page's routed reads need them placed */
  named: readonly string[] = [],
): Promise<Actor | null> {
  if (!refreshToken) return null;
  // the session and its user in one statement: a page pays one round trip to know who renders
  const now = Date.now();
  const hash = await sha256Hex(refreshToken);
  // Beside it, for a page naming a folder or file while a library may live in a shard, the places of those and the
  // copy of the session's user (decision 051): its loader's call into the shard is then its second round trip.
  const ahead = named.length > 0 && !noLibrarySwitched();
  if (ahead) readCallerCopyAheadOfSession(rc, rc.db, hash);
  const [found] = await Promise.all([
    findSessionWithUser(rc.db, hash, now),
    ahead ? placesOfIds(rc.db.$client, named).catch(() => undefined) : undefined,
  ]);
  const session = found?.session;
  // A page request may still carry the token another tab rotated a moment ago: honour it briefly.
  const recentlyRotated = session?.usedAt != null && now - session.usedAt < ROTATION_GRACE_MS;
  if (!session || session.revokedAt != null || session.expiresAt <= now || (session.usedAt != null && !recentlyRotated)) return null;
  return found.user.enabled && found.sourceLive ? toActor(found.user, session.familyId) : null;
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

/** A sign-in token checked but not yet spent: whose it is, what the session will hang on, and how to spend it once. */
interface TradableToken {
  user: UserRow;
  kind: "one_time" | "session" | "robot_token";
  source: SessionSource;
  /** Spends the token atomically; false when someone spent it first. */
  claim(now: number): Promise<boolean>;
}

/** Records an access token as traded; the primary key makes the second claim of the same token change nothing. */
async function claimTraded(rc: RequestContext, token: string, userId: string, now: number, expiresAt: number | null): Promise<boolean> {
  const claimed = await rc.db
    .insert(tradedTokens)
    .values({ tokenHash: await sha256Hex(token), userId, tradedAt: now, expiresAt })
    .onConflictDoNothing()
    .returning({ tokenHash: tradedTokens.tokenHash })
    .get();
  return claimed !== undefined;
}

/**
 * Checks a sign-in token without spending it: a one-time token (SSO callbacks, sign-in links), or an access token
 * handed over in `/login?token=` — a session's JWT or a robot's API token (`mamr_…`), checked exactly as a bearer
 * is. A robot token limited to some groups is refused (a session carries no scope, so it would reach more than the
 * token does); so is the access token of a session that was itself made from a token (the chain would outlive what
 * it hangs on) and an access token already traded once. A used, expired, forged or unknown token is a 401.
 */
async function tradableToken(rc: RequestContext, token: string): Promise<TradableToken> {
  const now = Date.now();
  if (token.startsWith(ROBOT_TOKEN_PREFIX)) {
    const actor = await authenticateRobotToken(rc, token);
    if (actor.scopeGroups) throw new AppError("FORBIDDEN", ru.errors.scopedTokenSession);
    const [user, traded] = await Promise.all([findUserById(rc.db, actor.id), findTraded(rc, token)]);
    if (!user || !user.enabled || !actor.robotTokenId) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
    if (traded) throw new AppError("UNAUTHORIZED", ru.errors.tokenAlreadyTraded);
    return { user, kind: "robot_token", source: { robotTokenId: actor.robotTokenId }, claim: (at) => claimTraded(rc, token, user.id, at, null) };
  }
  if (JWT_SHAPE.test(token)) {
    const claims = await verifyAccessToken(rc.config, token);
    if (!claims) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
    const [user, family, traded] = await Promise.all([
      findLiveFamilyUser(rc.db, claims.sub, claims.sid, now),
      findFamilySource(rc.db, claims.sid),
      findTraded(rc, token),
    ]);
    if (!user || !user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
    if (family && (family.parentFamilyId != null || family.robotTokenId != null)) throw new AppError("FORBIDDEN", ru.errors.derivedSessionToken);
    if (traded) throw new AppError("UNAUTHORIZED", ru.errors.tokenAlreadyTraded);
    return {
      user,
      kind: "session",
      source: { parentFamilyId: claims.sid },
      claim: (at) => claimTraded(rc, token, user.id, at, claims.exp * 1000),
    };
  }
  const hash = await sha256Hex(token);
  const row = await rc.db
    .select({ user: users })
    .from(oneTimeTokens)
    .innerJoin(users, eq(users.id, oneTimeTokens.userId))
    .where(and(eq(oneTimeTokens.tokenHash, hash), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)))
    .get();
  if (!row || !row.user.enabled) throw new AppError("UNAUTHORIZED", ru.errors.exchangeInvalid);
  return {
    user: row.user,
    kind: "one_time",
    source: {},
    claim: async (at) => {
      const claimed = await rc.db
        .update(oneTimeTokens)
        .set({ usedAt: at })
        .where(and(eq(oneTimeTokens.tokenHash, hash), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, at)))
        .returning({ userId: oneTimeTokens.userId })
        .get();
      return claimed !== undefined;
    },
  };
}

function findTraded(rc: RequestContext, token: string) {
  return sha256Hex(token).then((hash) => rc.db.select({ at: tradedTokens.tradedAt }).from(tradedTokens).where(eq(tradedTokens.tokenHash, hash)).get());
}

/**
 * Whose a sign-in token is, without spending it: what the sign-in page shows in «Войти как …?» before trading a token
 * it did not ask for itself. The same refusals as the trade, so a dead link says so before anyone confirms.
 */
export async function signInTokenOwner(rc: RequestContext, token: string): Promise<{ id: string; name: string; login: string }> {
  const { user } = await tradableToken(rc, token);
  return { id: user.id, name: user.name, login: user.login };
}

/**
 * Trades a sign-in token for a new session (a new refresh cookie family), at most once per token. A session made
 * from an access token stays bound to its source (the token's session family, or the robot token): logout, a new
 * password, revocation or expiry of the source ends it (`sessionSourceLive`).
 */
export async function exchangeToken(rc: RequestContext, token: string, client: ClientInfo): Promise<IssuedSession> {
  const tradable = await tradableToken(rc, token);
  const now = Date.now();
  if (!(await tradable.claim(now))) {
    throw new AppError("UNAUTHORIZED", tradable.kind === "one_time" ? ru.errors.exchangeInvalid : ru.errors.tokenAlreadyTraded);
  }
  const familyId = newId(now);
  return issue(rc, tradable.user, familyId, client, {
    source: tradable.source,
    audit: {
      action: "auth.token_exchange",
      actorId: tradable.user.id,
      objectType: "user",
      objectId: tradable.user.id,
      details: {
        kind: tradable.kind,
        session: familyId,
        ...(tradable.source.parentFamilyId ? { from_session: tradable.source.parentFamilyId } : {}),
        ...(tradable.source.robotTokenId ? { robot_token: tradable.source.robotTokenId } : {}),
      },
      ip: client.ip,
    },
  });
}
