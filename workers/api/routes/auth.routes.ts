import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import {
  type IssuedSession,
  exchangeToken,
  refreshCookieName,
  signInTokenOwner,
  login,
  logout,
  refresh,
  ACCESS_LEVELS,
  ACCESS_LEVEL_TITLES,
  hasAnyRules,
  userAbilities,
  authenticateBearer,
} from "../../services/access";
import { requireAuth, rejectCrossSite } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { NON_BLANK_PATTERN } from "../schemas";
import type { AppEnv } from "../types";

/** Login payload (SPEC §3): the same schema validates the sign-in form in the browser. */
export const LoginSchema = z
  .object({
    user: z.string().trim().min(1).max(256).openapi({ example: "admin", pattern: NON_BLANK_PATTERN }),
    passwd: z.string().min(1).max(1024).openapi({ example: "secret" }),
  })
  .openapi("LoginPayload");

export const TokensSchema = z
  .object({
    bearer: z.string().openapi({ description: "JWT access token (HS256), about 15 minutes" }),
    expire: z.string().openapi({ description: "expiry of the access token, ISO 8601", example: "2026-11-22T10:15:00.000Z" }),
  })
  .openapi("Tokens");

export const TokenOwnerSchema = z
  .object({ id: z.string(), name: z.string(), login: z.string() })
  .openapi("SignInTokenOwner", { description: "the account a sign-in token would open" });

export const WhoamiSchema = z.object({ id: z.string(), name: z.string(), is_admin: z.boolean(), any_acls: z.boolean() }).openapi("Whoami");

const ExchangeSchema = z
  .object({
    token: z
      .string()
      .min(16)
      .max(4096)
      .openapi({ description: "a one-time sign-in token, or an access token handed over (a session's JWT, a robot's `mamr_…` token)" }),
  })
  .openapi("ExchangeTokenPayload");

function clientInfo(c: Context<AppEnv>) {
  return { ip: c.req.header("cf-connecting-ip") ?? null, userAgent: c.req.header("user-agent") ?? null };
}

/** Sets the refresh cookie: HttpOnly so scripts never see it, Lax so it rides top-level navigations for SSR. */
function answerWithSession(c: Context<AppEnv>, session: IssuedSession) {
  setCookie(c, refreshCookieName(c.req.url), session.refreshToken, {
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(c.req.url).protocol === "https:",
    path: "/",
    expires: new Date(session.refreshExpiresAt),
  });
  c.header("Cache-Control", "no-store");
  return c.json({ bearer: session.bearer, expire: session.expire }, 200);
}

const tokensAnswer = { 200: { description: "Signed in", content: { "application/json": { schema: TokensSchema } } } };

export const authRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/login",
      tags: ["Auth"],
      summary: "Sign in with login and password",
      description: "Sets the HttpOnly refresh cookie. Failures are throttled per account and per client IP (429 with Retry-After).",
      request: { body: { required: true, content: { "application/json": { schema: LoginSchema } } } },
      responses: { ...tokensAnswer, ...errorResponses(400, 401, 415, 429) },
    }),
    async (c) => {
      const { user, passwd } = c.req.valid("json");
      return answerWithSession(c, await login(c.var.rc, user, passwd, clientInfo(c)));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/refresh",
      tags: ["Auth"],
      summary: "Rotate the refresh cookie and get a new access token",
      description: "A refresh token works once; presenting a used one revokes every token of that sign-in.",
      middleware: [rejectCrossSite] as const,
      responses: { ...tokensAnswer, ...errorResponses(401, 403) },
    }),
    async (c) => {
      try {
        return answerWithSession(c, await refresh(c.var.rc, getCookie(c, refreshCookieName(c.req.url)), clientInfo(c)));
      } catch (error) {
        deleteCookie(c, refreshCookieName(c.req.url), { path: "/", secure: new URL(c.req.url).protocol === "https:" });
        throw error;
      }
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/logout",
      tags: ["Auth"],
      summary: "End the session (refresh cookie and the access token's session)",
      middleware: [rejectCrossSite] as const,
      responses: { 204: { description: "Signed out" }, ...errorResponses(403) },
    }),
    async (c) => {
      const bearer = /^Bearer (\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
      const actor = bearer ? await authenticateBearer(c.var.rc, bearer).catch(() => null) : null;
      await logout(c.var.rc, getCookie(c, refreshCookieName(c.req.url)), actor);
      deleteCookie(c, refreshCookieName(c.req.url), { path: "/", secure: new URL(c.req.url).protocol === "https:" });
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/exchange-token",
      tags: ["Auth"],
      summary: "Trade a one-time sign-in token (from SSO or a link), or an access token handed over, for a session",
      middleware: [rejectCrossSite] as const,
      request: { body: { required: true, content: { "application/json": { schema: ExchangeSchema } } } },
      responses: { ...tokensAnswer, ...errorResponses(400, 401, 403) },
    }),
    async (c) => answerWithSession(c, await exchangeToken(c.var.rc, c.req.valid("json").token, clientInfo(c))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/token-owner",
      tags: ["Auth"],
      summary: "Whose a sign-in token is, without trading it",
      description:
        "What the sign-in page shows in «Войти как …?» before trading a token it did not request itself (a link from someone else must not sign a visitor in silently). Spends nothing; refuses exactly what `exchange-token` would refuse.",
      middleware: [rejectCrossSite] as const,
      request: { body: { required: true, content: { "application/json": { schema: ExchangeSchema } } } },
      responses: {
        200: { description: "The account", content: { "application/json": { schema: TokenOwnerSchema } } },
        ...errorResponses(400, 401, 403),
      },
    }),
    async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(await signInTokenOwner(c.var.rc, c.req.valid("json").token), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/whoami",
      tags: ["Auth"],
      summary: "The signed-in user",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: { description: "Current user", content: { "application/json": { schema: WhoamiSchema } } },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const actor = c.var.actor;
      // any_acls: rights beyond the caller's own files (administrators hold them everywhere).
      const anyAcls = actor.isAdmin || (await hasAnyRules(c.var.rc, actor));
      return c.json({ id: actor.id, name: actor.name, is_admin: actor.isAdmin, any_acls: anyAcls }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/list-acl-perms",
      tags: ["Auth"],
      summary: "The access levels rules can grant",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: {
          description: "Access levels",
          content: { "application/json": { schema: z.array(z.object({ perm: z.enum(ACCESS_LEVELS), title: z.string() })) } },
        },
        ...errorResponses(401),
      },
    }),
    (c) =>
      c.json(
        ACCESS_LEVELS.map((perm) => ({ perm, title: ACCESS_LEVEL_TITLES[perm] })),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/user-abilities",
      tags: ["Auth"],
      summary: "What the UI may offer the signed-in user",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: {
        200: {
          description: "Abilities",
          content: {
            "application/json": {
              schema: z
                .object({
                  is_admin: z.boolean(),
                  any_acls: z.boolean().openapi({ description: "a rule names the user or one of their groups" }),
                  chrooted: z.boolean().openapi({ description: "the user is confined to chroot groups" }),
                  abilities: z.record(z.string(), z.boolean()),
                })
                .openapi("UserAbilities"),
            },
          },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => c.json(await userAbilities(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/sso-providers",
      tags: ["Auth"],
      summary: "Configured single sign-on providers",
      responses: {
        200: {
          description: "Providers (empty when none are configured)",
          content: { "application/json": { schema: z.array(z.object({ id: z.string(), name: z.string() })) } },
        },
      },
    }),
    (c) =>
      c.json(
        c.var.rc.config.SSO_PROVIDERS.map(({ id, name }) => ({ id, name })),
        200,
      ),
  );
