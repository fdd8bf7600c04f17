import { ru } from "../../../shared/i18n/ru";
import {
  findRobotToken,
  findRobotTokenById,
  findRobotTokenByPrefix,
  insertRobotTokenStatement,
  listRobotTokens,
  revokeRobotTokenStatement,
  touchRobotToken,
  type RobotTokenListRow,
} from "../../db/repositories/robot-token.repository";
import { findUserById, liveGroupIds } from "../../db/repositories/user.repository";
import type { RobotTokenRow, UserRow } from "../../db/schema/index";
import { randomToken, sha256Hex, timingSafeEqual } from "../../lib/crypto";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { auditByActor } from "./audit.service";
import type { Actor, RequestContext } from "./context";
import { requireAdmin } from "./user.service";

/** Every robot token starts with this, so scanners and people recognise one (and the auth middleware routes it). */
export const ROBOT_TOKEN_PREFIX = "mamr_";

/** `mamr_` + 43 base64url characters (256 random bits). */
export const ROBOT_TOKEN_PATTERN = /^mamr_[A-Za-z0-9_-]{43}$/;

/** Characters of the token kept in clear: the lookup key and what lists show ("mamr_AbCdEfGhIjKl…"). */
const PREFIX_LENGTH = ROBOT_TOKEN_PREFIX.length + 12;

/** Recording `last_used_at` at most this often keeps robot requests from writing on every call. */
const TOUCH_INTERVAL_MS = 60_000;

/** A token as lists show it: never the secret. */
export interface RobotTokenInfo {
  token_id: string;
  name: string;
  /** the first characters of the token, to recognise it */
  prefix: string;
  /** group ids the token is confined to; null: the robot's full rights */
  scope_groups: string[] | null;
  ctime: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** active, expired or revoked, as of the answer */
  status: "active" | "expired" | "revoked";
}

const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());

function toInfo(row: RobotTokenListRow, now = Date.now()): RobotTokenInfo {
  return {
    token_id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope_groups: row.scopeGroups ?? null,
    ctime: new Date(row.ctime).toISOString(),
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    last_used_at: iso(row.lastUsedAt),
    status: row.revokedAt != null ? "revoked" : row.expiresAt != null && row.expiresAt <= now ? "expired" : "active",
  };
}

async function requireRobot(rc: RequestContext, userId: string) {
  const user = await findUserById(rc.db, userId);
  if (!user) throw new AppError("NOT_FOUND", ru.users.notFound);
  if (!user.isRobot) throw new AppError("CONFLICT", ru.users.notRobot);
  return user;
}

/**
 * Creates an API token for a robot account (administrators). The answer is the only time the token is shown: only
 * its SHA-256 is stored. `expires_at` must be in the future; `scope_groups` confines the token to those groups.
 * @example const { token } = await createRobotToken(rc, admin, robotId, { name: "CI" }) // "mamr_…"
 */
export async function createRobotToken(
  rc: RequestContext,
  actor: Actor,
  userId: string,
  input: { name: string; expires_at?: string; scope_groups?: string[] },
): Promise<RobotTokenInfo & { token: string }> {
  requireAdmin(actor);
  await requireRobot(rc, userId);
  const now = Date.now();
  const expiresAt = input.expires_at === undefined ? null : Date.parse(input.expires_at);
  if (expiresAt !== null && !(expiresAt > now)) throw new AppError("BAD_REQUEST", ru.users.tokenExpiryPast);
  const scope = input.scope_groups === undefined ? null : [...new Set(input.scope_groups)];
  if (scope) {
    if (scope.length === 0) throw new AppError("BAD_REQUEST", ru.users.tokenScopeEmpty);
    const found = new Set((await liveGroupIds(rc.db, scope)).map((r) => r.id));
    const missing = scope.find((id) => !found.has(id));
    if (missing) throw new AppError("NOT_FOUND", ru.users.scopeGroupNotFound(missing));
  }
  const token = ROBOT_TOKEN_PREFIX + randomToken(32);
  const id = newId(now);
  const row = {
    id,
    userId,
    name: input.name,
    prefix: token.slice(0, PREFIX_LENGTH),
    tokenHash: await sha256Hex(token),
    scopeGroups: scope,
    ctime: now,
    expiresAt,
    createdBy: actor.id,
  };
  await rc.db.batch([
    insertRobotTokenStatement(rc.db, row),
    auditByActor(
      rc,
      actor,
      "robot_token.create",
      { type: "user", id: userId },
      {
        token_id: id,
        name: input.name,
        prefix: row.prefix,
        expires_at: iso(expiresAt),
        scope_groups: scope,
      },
    ),
  ]);
  return { ...toInfo({ ...row, revokedAt: null, lastUsedAt: null }, now), token };
}

/** A robot's tokens without their secrets, newest first (administrators). */
export async function listTokens(rc: RequestContext, actor: Actor, userId: string): Promise<RobotTokenInfo[]> {
  requireAdmin(actor);
  const user = await findUserById(rc.db, userId);
  if (!user) throw new AppError("NOT_FOUND", ru.users.notFound);
  const now = Date.now();
  return (await listRobotTokens(rc.db, userId)).map((r) => toInfo(r, now));
}

/** Revokes a token at once (administrators); revoking a revoked token changes nothing and answers it as it is. */
export async function revokeRobotToken(rc: RequestContext, actor: Actor, userId: string, tokenId: string): Promise<RobotTokenInfo> {
  requireAdmin(actor);
  const existing = await findRobotToken(rc.db, userId, tokenId);
  if (!existing) throw new AppError("NOT_FOUND", ru.users.tokenNotFound);
  const now = Date.now();
  if (existing.revokedAt == null) {
    const [revoked] = await rc.db.batch([
      revokeRobotTokenStatement(rc.db, tokenId, now),
      auditByActor(
        rc,
        actor,
        "robot_token.revoke",
        { type: "user", id: userId },
        { token_id: tokenId, name: existing.name, prefix: existing.prefix },
      ),
    ]);
    if (revoked.meta.changes > 0) existing.revokedAt = now;
  }
  return toInfo(existing, now);
}

/**
 * Resolves `Authorization: Bearer mamr_…`: the robot behind a live token, with the token's group scope on the actor
 * (a scoped token of an administrator robot acts without administrator rights).
 * Unknown tokens, revoked and expired ones, and tokens of a disabled account (or one that is no longer a robot) are
 * 401s, each with its own message.
 */
export async function authenticateRobotToken(rc: RequestContext, token: string): Promise<Actor> {
  if (!ROBOT_TOKEN_PATTERN.test(token)) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  const found = await findRobotTokenByPrefix(rc.db, token.slice(0, PREFIX_LENGTH));
  const hash = new TextEncoder().encode(await sha256Hex(token));
  if (!found || !timingSafeEqual(hash, new TextEncoder().encode(found.token.tokenHash))) {
    throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  }
  const now = Date.now();
  const actor = robotActor(found.token, found.user, now);
  if (found.token.lastUsedAt == null || now - found.token.lastUsedAt > TOUCH_INTERVAL_MS) rc.waitUntil(touchRobotToken(rc.db, found.token.id, now).run());
  return actor;
}

/** The actor a live robot token stands for; a revoked or expired token or a disabled (or no longer robot) user is a 401. */
function robotActor(row: RobotTokenRow, user: UserRow, now: number): Actor {
  if (row.revokedAt != null) throw new AppError("UNAUTHORIZED", ru.users.tokenRevoked);
  if (row.expiresAt != null && row.expiresAt <= now) throw new AppError("UNAUTHORIZED", ru.users.tokenExpired);
  if (!user.enabled || !user.isRobot) throw new AppError("UNAUTHORIZED", ru.users.accountDisabled);
  const scope = row.scopeGroups && row.scopeGroups.length > 0 ? row.scopeGroups : null;
  return {
    id: user.id,
    name: user.name,
    login: user.login,
    // Administrators bypass every access check, scope included: a scoped token is least privilege, so it never
    // carries administrator rights, only what the robot's rules and ownership allow inside the scope.
    isAdmin: user.isAdmin && scope === null,
    isRobot: true,
    sessionFamily: null,
    scopeGroups: scope,
    robotTokenId: row.id,
  };
}

/**
 * The actor of a robot token known by id (a WOPI token minted by the robot names it): the same checks and the same
 * scope and administrator flag as `authenticateRobotToken`, one indexed read. 401 when the token no longer works.
 */
export async function actorOfRobotToken(rc: RequestContext, userId: string, tokenId: string): Promise<Actor> {
  const found = await findRobotTokenById(rc.db, userId, tokenId);
  if (!found) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  return robotActor(found.token, found.user, Date.now());
}
