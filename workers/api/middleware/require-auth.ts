import { createMiddleware } from "hono/factory";
import { ru } from "../../../app/i18n/ru";
import { AppError } from "../../lib/errors";
import { authenticateBearer } from "../../services/auth.service";
import type { AppEnv } from "../types";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Reads `Authorization: Bearer <jwt>` into `c.var.actor`; anything else is a 401. */
export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw new AppError("UNAUTHORIZED", ru.errors.unauthenticated);
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match || match[1].length > 4096 || !JWT_SHAPE.test(match[1])) throw new AppError("UNAUTHORIZED", ru.errors.invalidToken);
  c.set("actor", await authenticateBearer(c.var.rc, match[1]));
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
