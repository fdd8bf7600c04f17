import { createMiddleware } from "hono/factory";
import { ru } from "../../../shared/i18n/ru";
import { AppError } from "../../lib/errors";
import { authenticateBearer, ROBOT_TOKEN_PREFIX, authenticateRobotToken } from "../../services/access";
import type { AppEnv } from "../types";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** A path naming a folder or a file by its id: a read it makes may be answered by the library's shard. */
const NAMES_ENTITY = /\/[0-9a-f]{32}(?:\/|$)/;

/**
 * Reads `Authorization: Bearer <credential>` into `c.var.actor`: a session's access token (JWT) or a robot's API
 * token (`mamr_…`). Anything else is a 401.
 */
export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw new AppError("UNAUTHORIZED", ru.errors.unauthenticated);
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match || match[1].length > 4096) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  const credential = match[1];
  if (credential.startsWith(ROBOT_TOKEN_PREFIX)) c.set("actor", await authenticateRobotToken(c.var.rc, credential));
  else if (JWT_SHAPE.test(credential)) c.set("actor", await authenticateBearer(c.var.rc, credential, NAMES_ENTITY.test(c.req.path)));
  else throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  await next();
});

/** For cookie-authenticated calls: refuse requests that a browser marks as coming from another site. */
export const rejectCrossSite = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header("origin");
  const fetchSite = c.req.header("sec-fetch-site");
  if ((origin && origin !== new URL(c.req.url).origin) || fetchSite === "cross-site") {
    throw new AppError("FORBIDDEN", ru.errors.crossOrigin);
  }
  await next();
});
