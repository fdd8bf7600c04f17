import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../../lib/crypto";
import { SSO_BROWSER_COOKIE, SSO_STATE_TTL_SECONDS, SsoError, finishSso, startSso } from "../../services/access";
import { createRouter, errorResponses } from "../router";
import type { AppEnv } from "../types";

const ProviderParamsSchema = z.object({
  provider: z
    .string()
    .regex(/^[a-z0-9-]{1,32}$/, "ожидается идентификатор провайдера")
    .openapi({ param: { name: "provider", in: "path" }, example: "corp" }),
});

/** The sign-in page's own nonce (kept in its tab's storage), handed back beside the one-time token. */
export const PAGE_NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

const StartQuerySchema = z.object({
  to: z.string().max(2048).optional().openapi({ description: "local path to open after signing in (default /mam)", example: "/mam" }),
  n: z
    .string()
    .regex(PAGE_NONCE_PATTERN, "ожидается 16–64 символа A–Z, a–z, 0–9, _ или -")
    .optional()
    .openapi({ description: "the sign-in page's nonce: handed back as `n` with the one-time token, so the page trades it without asking" }),
});

const CallbackQuerySchema = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(512).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
  session_state: z.string().max(2048).optional(),
});

const BINDING_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Browsers navigating here get redirects to the login page; scripts and tests calling the API get JSON errors. */
function wantsHtml(c: Context<AppEnv>): boolean {
  return (c.req.header("accept") ?? "").includes("text/html");
}

function loginWithError(c: Context<AppEnv>, reason: string, to?: string) {
  const params = new URLSearchParams({ sso_error: reason });
  if (to) params.set("to", to);
  c.header("Cache-Control", "no-store");
  return c.redirect(`/login?${params}`, 302);
}

const redirectAnswer = (description: string) => ({ 302: { description, headers: { Location: { schema: { type: "string" as const } } } } });

/** OpenID Connect sign-in (SPEC §7 Auth sso, sso-cb). No bearer: these are browser navigations. */
export const ssoRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/sso/{provider}",
      tags: ["Auth"],
      summary: "Start single sign-on with a configured OpenID Connect provider",
      description:
        "Redirects (302) to the provider's authorization endpoint with `state`, `nonce` and a PKCE S256 challenge, and sets a short-lived HttpOnly cookie binding the sign-in to this browser. Browsers (Accept: text/html) are sent to `/login?sso_error=<reason>` on failure; other callers get the JSON error (404 unknown provider, 503 provider unreachable).",
      request: { params: ProviderParamsSchema, query: StartQuerySchema },
      responses: { ...redirectAnswer("To the provider"), ...errorResponses(400, 404, 503) },
    }),
    async (c) => {
      const { provider } = c.req.valid("param");
      const { to, n } = c.req.valid("query");
      // Reusing the browser's binding lets two tabs sign in at once without invalidating each other.
      const existing = getCookie(c, SSO_BROWSER_COOKIE);
      const binding = existing && BINDING_SHAPE.test(existing) ? existing : randomToken();
      try {
        const { location } = await startSso(c.var.rc, provider, { to, origin: new URL(c.req.url).origin, browserBinding: binding, pageNonce: n });
        setCookie(c, SSO_BROWSER_COOKIE, binding, {
          httpOnly: true,
          sameSite: "Lax",
          secure: new URL(c.req.url).protocol === "https:",
          path: "/api/auth/sso-cb",
          maxAge: SSO_STATE_TTL_SECONDS,
        });
        c.header("Cache-Control", "no-store");
        return c.redirect(location, 302);
      } catch (error) {
        if (error instanceof SsoError && wantsHtml(c)) return loginWithError(c, error.reason, to);
        throw error;
      }
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/sso-cb/{provider}",
      tags: ["Auth"],
      summary: "Callback of single sign-on: exchange the code, verify the ID token, sign in",
      description:
        "Checks `state` (once, same browser, 10 minutes), exchanges the code with the PKCE verifier, verifies the ID token against the provider's JWKS (iss, aud, exp, nonce), finds the user by the configured claim or creates one, and redirects to `/login?token=<one-time token>&to=<path>`; the page trades the token through `POST /api/auth/exchange-token`. A disabled user is refused. Failures: browsers go to `/login?sso_error=<reason>`, other callers get 400 (bad state, provider error, invalid ID token, missing claim), 403 (disabled or unknown user without provisioning), 404 (unknown provider) or 503.",
      request: { params: ProviderParamsSchema, query: CallbackQuerySchema },
      responses: {
        ...redirectAnswer("To the login page with a one-time token, or with `sso_error`"),
        ...errorResponses(400, 403, 404, 503),
      },
    }),
    async (c) => {
      const { provider } = c.req.valid("param");
      const query = c.req.valid("query");
      const binding = getCookie(c, SSO_BROWSER_COOKIE);
      try {
        const { token, to, pageNonce } = await finishSso(c.var.rc, provider, query, {
          browserBinding: binding,
          ip: c.req.header("cf-connecting-ip") ?? null,
        });
        c.header("Cache-Control", "no-store");
        const target = new URLSearchParams({ token, to });
        if (pageNonce) target.set("n", pageNonce);
        return c.redirect(`/login?${target}`, 302);
      } catch (error) {
        if (error instanceof SsoError && wantsHtml(c)) return loginWithError(c, error.reason);
        throw error;
      }
    },
  );
