import { SignJWT, jwtVerify } from "jose";
import type { Config } from "./config";

export const ACCESS_TOKEN_TYPE = "at+jwt";

export interface AccessClaims {
  /** user id */
  sub: string;
  /** session family the token belongs to; logout and reuse detection end it at once */
  sid: string;
}

/** One imported HMAC key per secret: importing it on every request is measurable work on the hot path. */
const keys = new Map<string, Promise<CryptoKey>>();
function key(config: Config): Promise<CryptoKey> {
  let imported = keys.get(config.JWT_SECRET);
  if (!imported) {
    imported = crypto.subtle.importKey("raw", new TextEncoder().encode(config.JWT_SECRET), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify",
    ]);
    keys.set(config.JWT_SECRET, imported);
  }
  return imported;
}

/** Signs an HS256 access token; returns it with its expiry in epoch seconds. */
export async function signAccessToken(config: Config, claims: AccessClaims, now = Date.now()) {
  const iat = Math.floor(now / 1000);
  const exp = iat + config.ACCESS_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: "HS256", typ: ACCESS_TOKEN_TYPE })
    .setSubject(claims.sub)
    .setIssuer(config.JWT_ISSUER)
    .setAudience(config.JWT_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await key(config));
  return { token, exp };
}

/**
 * Verifies signature (HS256 only, so `alg: none` and key confusion fail), type, issuer, audience and expiry.
 * Returns null for any invalid token.
 */
export async function verifyAccessToken(config: Config, token: string): Promise<(AccessClaims & { exp: number }) | null> {
  try {
    const { payload } = await jwtVerify(token, await key(config), {
      algorithms: ["HS256"],
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      typ: ACCESS_TOKEN_TYPE,
      requiredClaims: ["sub", "exp", "sid"],
    });
    if (typeof payload.sub !== "string" || typeof payload.sid !== "string" || typeof payload.exp !== "number") return null;
    return { sub: payload.sub, sid: payload.sid, exp: payload.exp };
  } catch {
    return null;
  }
}
