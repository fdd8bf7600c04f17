import { eq, lt } from "drizzle-orm";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { z } from "zod";
import { ru } from "../../../shared/i18n/ru";
import { safeReturnPath } from "../../../shared/return-path";
import { findUserByLogin, insertUserStatement, isUniqueViolation } from "../../db/repositories/user.repository";
import { ssoStates, type UserRow } from "../../db/schema/index";
import type { SsoProvider } from "../../lib/config";
import { base64url, randomToken, sha256Hex } from "../../lib/crypto";
import { AppError, type ErrorCode } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { auditStatement } from "./audit.service";
import { oneTimeTokenStatement } from "./auth.service";
import type { RequestContext } from "./context";

/** Why an SSO sign-in failed: the code `/login?sso_error=` carries, each with its Russian message in `ru.sso.errors`. */
export const SSO_ERRORS = {
  unknown_provider: "NOT_FOUND",
  provider_error: "BAD_REQUEST",
  provider_unavailable: "SERVICE_UNAVAILABLE",
  bad_callback: "BAD_REQUEST",
  state_mismatch: "BAD_REQUEST",
  state_expired: "BAD_REQUEST",
  id_token_invalid: "BAD_REQUEST",
  claim_missing: "BAD_REQUEST",
  not_registered: "FORBIDDEN",
  account_disabled: "FORBIDDEN",
} as const satisfies Record<string, ErrorCode>;

export type SsoErrorReason = keyof typeof SSO_ERRORS;

/** An SSO failure: an `AppError` (for API callers) that also knows its reason code (for the login page). */
export class SsoError extends AppError {
  constructor(readonly reason: SsoErrorReason, detail?: string) {
    super(SSO_ERRORS[reason], detail ? `${ru.sso.errors[reason]} (${detail})` : ru.sso.errors[reason]);
  }
}

/** How long a started sign-in may take at the provider. */
const STATE_TTL_MS = 10 * 60_000;
/** Discovery documents are re-read this often (key rotation is handled by the JWKS cache itself). */
const DISCOVERY_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;

/** Name of the short-lived cookie binding a sign-in to the browser that started it. */
export const SSO_BROWSER_COOKIE = "mam_sso";
export const SSO_STATE_TTL_SECONDS = STATE_TTL_MS / 1000;

const DiscoverySchema = z.object({
  issuer: z.string().url(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  jwks_uri: z.string().url(),
  userinfo_endpoint: z.string().url().optional(),
});
type Discovery = z.infer<typeof DiscoverySchema>;

// Per-isolate caches of public documents (no bindings, no secrets): a discovery document per issuer and a JWKS
// fetcher per key set URL, which itself caches keys and refetches on an unknown `kid`.
const discoveryCache = new Map<string, { doc: Discovery; until: number }>();
const jwksCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

const trimSlash = (url: string) => url.replace(/\/+$/, "");

/** The configured provider with this id, or a 404 `unknown_provider`. */
export function findProvider(rc: RequestContext, id: string): SsoProvider {
  const provider = rc.config.SSO_PROVIDERS.find((p) => p.id === id);
  if (!provider) throw new SsoError("unknown_provider");
  return provider;
}

async function fetchJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: "application/json", ...init?.headers },
    });
  } catch {
    throw new SsoError("provider_unavailable");
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new SsoError(res.ok ? "provider_error" : "provider_unavailable");
  }
}

/** The provider's discovery document, cached; its `issuer` must be the configured one. */
async function discover(provider: SsoProvider): Promise<Discovery> {
  const issuer = trimSlash(provider.issuer);
  const cached = discoveryCache.get(issuer);
  if (cached && cached.until > Date.now()) return cached.doc;
  const { status, body } = await fetchJson(`${issuer}/.well-known/openid-configuration`);
  if (status !== 200) throw new SsoError("provider_unavailable");
  const parsed = DiscoverySchema.safeParse(body);
  if (!parsed.success || trimSlash(parsed.data.issuer) !== issuer) throw new SsoError("provider_error");
  discoveryCache.set(issuer, { doc: parsed.data, until: Date.now() + DISCOVERY_TTL_MS });
  return parsed.data;
}

function jwksFor(uri: string) {
  let jwks = jwksCache.get(uri);
  if (!jwks) {
    jwks = createRemoteJWKSet(new URL(uri), { timeoutDuration: FETCH_TIMEOUT_MS });
    jwksCache.set(uri, jwks);
  }
  return jwks;
}

/**
 * Starts a sign-in: stores state, nonce and PKCE verifier (hashed state as key, bound to `browserBinding`) and
 * answers the provider's authorization URL. `to` is where the user goes afterwards (a local path only).
 */
export async function startSso(
  rc: RequestContext,
  providerId: string,
  opts: { to?: string; origin: string; browserBinding: string; pageNonce?: string },
): Promise<{ location: string }> {
  const provider = findProvider(rc, providerId);
  const doc = await discover(provider);
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken(32);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier))));
  const redirectUri = `${opts.origin}/api/auth/sso-cb/${provider.id}`;
  const now = Date.now();
  await rc.db.batch([
    rc.db.delete(ssoStates).where(lt(ssoStates.expiresAt, now)),
    rc.db.insert(ssoStates).values({
      stateHash: await sha256Hex(state),
      provider: provider.id,
      nonce,
      codeVerifier,
      browserHash: await sha256Hex(opts.browserBinding),
      returnTo: safeReturnPath(opts.to),
      redirectUri,
      pageNonce: opts.pageNonce ?? null,
      ctime: now,
      expiresAt: now + STATE_TTL_MS,
    }),
  ]);
  const url = new URL(doc.authorization_endpoint);
  const scope = ["openid", "profile", "email", ...(provider.scope ? provider.scope.split(/\s+/).filter(Boolean) : [])];
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.client_id);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("scope", [...new Set(scope)].join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", challenge);
  url.searchParams.set("code_challenge_method", "S256");
  return { location: url.toString() };
}

/** The state row, deleted as it is read so a state works once; `state_mismatch` for anything that does not fit. */
async function takeState(rc: RequestContext, providerId: string, state: string, browserBinding: string | undefined) {
  const row = await rc.db
    .delete(ssoStates)
    .where(eq(ssoStates.stateHash, await sha256Hex(state)))
    .returning()
    .get();
  if (!row || row.provider !== providerId) throw new SsoError("state_mismatch");
  if (!browserBinding || (await sha256Hex(browserBinding)) !== row.browserHash) throw new SsoError("state_mismatch");
  if (row.expiresAt <= Date.now()) throw new SsoError("state_expired");
  return row;
}

const TokenAnswerSchema = z.object({ id_token: z.string().min(1), access_token: z.string().optional() });

/** Form-urlencoding as RFC 6749 §2.3.1 wants it for client_secret_basic credentials. */
const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, "+");

/** Trades the code for tokens at the token endpoint (client_secret_basic, or a public client with PKCE only). */
async function exchangeCode(provider: SsoProvider, doc: Discovery, code: string, redirectUri: string, codeVerifier: string) {
  const body = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (provider.client_secret) {
    headers.authorization = `Basic ${btoa(`${formEncode(provider.client_id)}:${formEncode(provider.client_secret)}`)}`;
  } else {
    body.set("client_id", provider.client_id);
  }
  const { status, body: answer } = await fetchJson(doc.token_endpoint, { method: "POST", headers, body: body.toString() });
  if (status >= 500) throw new SsoError("provider_unavailable");
  const parsed = TokenAnswerSchema.safeParse(answer);
  if (status !== 200 || !parsed.success) {
    const error = (answer as { error?: unknown } | null)?.error;
    throw new SsoError("provider_error", typeof error === "string" ? error.slice(0, 100) : undefined);
  }
  return parsed.data;
}

/** Verifies the ID token: signature against the provider's JWKS, `iss`, `aud`, `exp`, and our `nonce`. */
async function verifyIdToken(provider: SsoProvider, doc: Discovery, idToken: string, nonce: string): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, jwksFor(doc.jwks_uri), {
      issuer: doc.issuer,
      audience: provider.client_id,
      algorithms: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"],
      requiredClaims: ["sub", "exp", "iat"],
    }));
  } catch {
    throw new SsoError("id_token_invalid");
  }
  if (payload.nonce !== nonce) throw new SsoError("id_token_invalid");
  // With several audiences the token must have been issued to us (OIDC Core 3.1.3.7).
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== provider.client_id) throw new SsoError("id_token_invalid");
  return payload;
}

/** Claims of the ID token, completed from the userinfo endpoint when the login claim is not in the token. */
async function claimsFor(doc: Discovery, idClaims: JWTPayload, wanted: string[], accessToken: string | undefined) {
  if (wanted.some((c) => typeof idClaims[c] === "string" && idClaims[c] !== "") || !doc.userinfo_endpoint || !accessToken) return idClaims;
  const { status, body } = await fetchJson(doc.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  if (status !== 200 || typeof body !== "object" || body === null) return idClaims;
  // A userinfo answer about another subject must never be merged (OIDC Core 5.3.2).
  if ((body as { sub?: unknown }).sub !== idClaims.sub) throw new SsoError("id_token_invalid");
  return { ...(body as Record<string, unknown>), ...idClaims };
}

function loginFrom(provider: SsoProvider, claims: Record<string, unknown>): string {
  const names = provider.claim ? [provider.claim] : ["preferred_username", "email"];
  for (const name of names) {
    const value = claims[name];
    if (typeof value === "string" && value.trim() !== "" && value.length <= 256) return value.trim();
  }
  throw new SsoError("claim_missing", names.join(", "));
}

/**
 * Completes a sign-in at the callback: checks the state (once, this browser, not expired), exchanges the code,
 * verifies the ID token, finds the user by the configured claim or provisions one, and answers a one-time token for
 * `/login?token=…` plus where to go. The user's creation, the token and the audit entry are one batch.
 */
export async function finishSso(
  rc: RequestContext,
  providerId: string,
  query: { code?: string; state?: string; error?: string; iss?: string },
  opts: { browserBinding: string | undefined; ip: string | null },
): Promise<{ token: string; to: string; pageNonce: string | null }> {
  const provider = findProvider(rc, providerId);
  if (!query.state) throw new SsoError("bad_callback");
  const stored = await takeState(rc, provider.id, query.state, opts.browserBinding);
  if (query.error) throw new SsoError("provider_error", query.error.slice(0, 100));
  if (!query.code) throw new SsoError("bad_callback");
  const doc = await discover(provider);
  // Mix-up defence (RFC 9207): a provider that names itself must be the one this state was sent to, so a code another
  // provider issued is never spent at this provider's token endpoint.
  if (query.iss !== undefined && trimSlash(query.iss) !== trimSlash(doc.issuer)) throw new SsoError("bad_callback");
  const tokens = await exchangeCode(provider, doc, query.code, stored.redirectUri, stored.codeVerifier);
  const idClaims = await verifyIdToken(provider, doc, tokens.id_token, stored.nonce);
  const claims = await claimsFor(doc, idClaims, provider.claim ? [provider.claim] : ["preferred_username", "email"], tokens.access_token);
  const login = loginFrom(provider, claims);

  for (let attempt = 0; attempt < 2; attempt++) {
    const user = await findUserByLogin(rc.db, login);
    if (user && (!user.enabled || user.isRobot)) throw new SsoError("account_disabled");
    if (!user && !provider.provision) throw new SsoError("not_registered");
    const now = Date.now();
    const created: UserRow | undefined = user
      ? undefined
      : {
          id: newId(now),
          login,
          name: displayName(claims, login),
          passwordHash: null,
          isAdmin: false,
          isRobot: false,
          enabled: true,
          chrootGroups: [],
          defaultStorage: null,
          ctime: now,
          mtime: now,
        };
    const userId = (user ?? created)!.id;
    const { token, statement } = await oneTimeTokenStatement(rc, userId);
    const signIn = auditStatement(rc, {
      action: "auth.sso_login",
      actorId: userId,
      objectType: "user",
      objectId: userId,
      details: { provider: provider.id, subject: String(idClaims.sub), login, provisioned: created !== undefined },
      ip: opts.ip,
    });
    try {
      if (created) {
        const audit = auditStatement(rc, {
          action: "user.create",
          actorId: null,
          objectType: "user",
          objectId: created.id,
          details: { login, provider: provider.id, via: "sso" },
          ip: opts.ip,
        });
        await rc.db.batch([insertUserStatement(rc.db, created), audit, statement, signIn]);
      } else {
        await rc.db.batch([statement, signIn]);
      }
      return { token, to: stored.returnTo, pageNonce: stored.pageNonce };
    } catch (error) {
      // Someone else provisioned the same login a moment ago: take that user on the second pass.
      if (!(created && isUniqueViolation(error))) throw error;
    }
  }
  throw new SsoError("not_registered");
}

function displayName(claims: Record<string, unknown>, login: string): string {
  const name = typeof claims.name === "string" ? claims.name.trim() : "";
  const joined = [claims.given_name, claims.family_name].filter((v): v is string => typeof v === "string" && v.trim() !== "").join(" ");
  return (name || joined || login).slice(0, 200);
}

/** For tests: forget cached discovery documents and key sets. */
export function clearSsoCaches(): void {
  discoveryCache.clear();
  jwksCache.clear();
}
