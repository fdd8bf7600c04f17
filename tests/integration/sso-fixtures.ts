import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { onTestFinished, vi } from "vitest";
import app from "../../workers/app";
import { newId } from "../../workers/lib/ids";
import { ORIGIN } from "./factories";

/**
 * A stand-in for an OpenID provider's HTTP endpoints (discovery, JWKS, token, userinfo) behind a `fetch` spy, for
 * the integration tier only: the end-to-end test signs in against the real `oidc-provider`. Each fake has its own
 * issuer, so the service's per-issuer caches never mix two tests.
 */
export interface FakeProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** what the next ID token says about the user (besides iss, aud, sub, nonce, iat, exp) */
  claims: Record<string, unknown>;
  /** what userinfo answers (sub is added) */
  userinfo: Record<string, unknown>;
  /** overrides applied to the next ID token's header/claims, to forge bad tokens */
  tamper: { nonce?: string; aud?: string; iss?: string; expired?: boolean; otherKey?: boolean };
  /** the authorization request the browser was sent with (query of the Location) */
  lastAuthorize?: URLSearchParams;
  /** codes the fake has handed out, with the PKCE challenge and nonce they belong to */
  codes: Map<string, { challenge: string; nonce: string; redirectUri: string }>;
  tokenRequests: number;
  /** answer of the token endpoint instead of tokens, e.g. `{ status: 400, body: { error: "invalid_grant" } }` */
  tokenFailure?: { status: number; body: unknown };
  /** when set, every request to the provider fails as if it were unreachable */
  down?: boolean;
  /** issues a code for the last authorization request, as the provider would after the user signed in */
  issueCode(): string;
}

async function sha256b64url(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  let bin = "";
  for (const b of digest) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * Starts a fake provider: spies on `fetch` and answers requests under its issuer; other requests go to the real
 * fetch. The spy is removed when the test finishes.
 */
export async function fakeProvider(): Promise<FakeProvider> {
  const issuer = `https://idp-${newId().slice(-10)}.test`;
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const other = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const provider: FakeProvider = {
    issuer,
    clientId: "mam-client",
    clientSecret: "mam-secret-value",
    claims: {},
    userinfo: {},
    tamper: {},
    codes: new Map(),
    tokenRequests: 0,
    issueCode() {
      const q = provider.lastAuthorize;
      if (!q) throw new Error("no authorization request yet");
      const code = newId();
      provider.codes.set(code, { challenge: q.get("code_challenge")!, nonce: q.get("nonce")!, redirectUri: q.get("redirect_uri")! });
      return code;
    },
  };
  const realFetch = globalThis.fetch;
  const sub = `sub-${newId().slice(-8)}`;

  async function token(request: Request): Promise<Response> {
    provider.tokenRequests++;
    if (provider.tokenFailure) return json(provider.tokenFailure.body, provider.tokenFailure.status);
    const expectedAuth = `Basic ${btoa(`${provider.clientId}:${provider.clientSecret}`)}`;
    if (request.headers.get("authorization") !== expectedAuth) return json({ error: "invalid_client" }, 401);
    const form = new URLSearchParams(await request.text());
    const grant = provider.codes.get(form.get("code") ?? "");
    provider.codes.delete(form.get("code") ?? "");
    if (!grant || form.get("grant_type") !== "authorization_code" || form.get("redirect_uri") !== grant.redirectUri) {
      return json({ error: "invalid_grant" }, 400);
    }
    if ((await sha256b64url(form.get("code_verifier") ?? "")) !== grant.challenge)
      return json({ error: "invalid_grant", error_description: "PKCE" }, 400);
    const now = Math.floor(Date.now() / 1000);
    const t = provider.tamper;
    const idToken = await new SignJWT({ ...provider.claims, nonce: t.nonce ?? grant.nonce })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(t.iss ?? issuer)
      .setAudience(t.aud ?? provider.clientId)
      .setSubject(sub)
      .setIssuedAt(t.expired ? now - 7200 : now)
      .setExpirationTime(t.expired ? now - 3600 : now + 300)
      .sign(t.otherKey ? other.privateKey : privateKey);
    return json({ access_token: "at-" + newId(), token_type: "Bearer", id_token: idToken, expires_in: 300 });
  }

  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== issuer) return realFetch(input, init);
    if (provider.down) throw new TypeError("Network connection lost.");
    switch (url.pathname) {
      case "/.well-known/openid-configuration":
        return json({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          userinfo_endpoint: `${issuer}/me`,
        });
      case "/jwks":
        return json({ keys: [jwk] });
      case "/token":
        return token(request);
      case "/me":
        return request.headers.get("authorization")?.startsWith("Bearer at-")
          ? json({ ...provider.userinfo, sub })
          : json({ error: "invalid_token" }, 401);
      default:
        return json({ error: "not_found" }, 404);
    }
  });
  onTestFinished(() => spy.mockRestore());
  return provider;
}

/** `SSO_PROVIDERS` for the given fakes (id `test` for the first unless named). */
export function ssoConfig(providers: { id: string; fake: FakeProvider; claim?: string; provision?: boolean }[]): string {
  return JSON.stringify(
    providers.map(({ id, fake, claim, provision }) => ({
      id,
      name: `Вход ${id}`,
      issuer: fake.issuer,
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      ...(claim ? { claim } : {}),
      ...(provision !== undefined ? { provision } : {}),
    })),
  );
}

export interface SsoCallOptions {
  ssoProviders: string;
  cookie?: string;
  bearer?: string;
  html?: boolean;
  method?: string;
  json?: unknown;
}

/** One request through the Worker with `SSO_PROVIDERS` set (the test config leaves it empty). */
export async function ssoCall(path: string, o: SsoCallOptions): Promise<Response> {
  const headers = new Headers();
  if (o.cookie) headers.set("cookie", o.cookie);
  if (o.bearer) headers.set("authorization", `Bearer ${o.bearer}`);
  if (o.html) headers.set("accept", "text/html,application/xhtml+xml");
  let body: string | undefined;
  if (o.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(o.json);
  }
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${ORIGIN}${path}`, { method: o.method ?? "GET", headers, body, redirect: "manual" }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    { ...env, SSO_PROVIDERS: o.ssoProviders } as unknown as Env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** The `mam_sso=…` pair a start answer sets, ready for a `cookie` header. */
export function ssoCookie(res: Response): string {
  const line = res.headers.getSetCookie().find((c) => c.startsWith("mam_sso="));
  if (!line) throw new Error("no mam_sso cookie set");
  return line.split(";")[0];
}
