import { createServer, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import { freePort } from "../../scripts/dev-server.mjs";

/** The one person the local provider knows (its dev login page accepts any password for them). */
export const SSO_ACCOUNT = {
  login: "olga.sso",
  /** what the product receives as `preferred_username`, hence the login it finds or creates */
  username: "olga.sso",
  name: "Ольга Единый-Вход",
  email: "olga@sso.test",
};

export const SSO_PROVIDER_ID = "local";
export const SSO_PROVIDER_NAME = "Local ID";

export interface LocalProvider {
  issuer: string;
  /** the `SSO_PROVIDERS` value pointing the product at this provider */
  ssoProvidersVar: string;
  stop(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, the certified Node implementation) on a free loopback port,
 * with one confidential client whose redirect URI is the product's callback on `appOrigin`, and one account. Its
 * development interaction pages (login, consent) are what the browser signs in at. It runs in the e2e process: it
 * cannot run in workerd.
 */
export async function startLocalProvider(appOrigin: string): Promise<LocalProvider> {
  const port = (await freePort()) as number;
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = randomBytes(24).toString("base64url");
  // Its own signing key and lifetimes, so the provider does not fall back to (and warn about) development defaults.
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "e2e", alg: "RS256", use: "sig" };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "edge-mam",
        client_secret: clientSecret,
        redirect_uris: [`${appOrigin}/api/auth/sso-cb/${SSO_PROVIDER_ID}`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    jwks: { keys: [signingKey] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    claims: { openid: ["sub"], profile: ["name", "preferred_username"], email: ["email"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      if (id !== SSO_ACCOUNT.login) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, preferred_username: SSO_ACCOUNT.username, name: SSO_ACCOUNT.name, email: SSO_ACCOUNT.email };
        },
      };
    },
  });
  // Plain http on loopback: tell the provider not to expect a TLS-terminating proxy.
  provider.proxy = false;
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const ssoProvidersVar = JSON.stringify([
    { id: SSO_PROVIDER_ID, name: SSO_PROVIDER_NAME, issuer, client_id: "edge-mam", client_secret: clientSecret },
  ]);
  return {
    issuer,
    ssoProvidersVar,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
