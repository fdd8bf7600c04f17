import { SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../workers/lib/config";
import { ACCESS_TOKEN_TYPE, signAccessToken, verifyAccessToken } from "../../workers/lib/jwt";

const SECRET = "unit-test-secret-of-at-least-thirty-two-chars";
const config = getConfig({ JWT_SECRET: SECRET } as unknown as Env);
const claims = { sub: "a".repeat(32), sid: "b".repeat(32) };
const key = new TextEncoder().encode(SECRET);

function forge(header: Record<string, unknown>, payload: Record<string, unknown>, secret = key) {
  return new SignJWT(payload).setProtectedHeader({ alg: "HS256", ...header }).sign(secret);
}

describe("signAccessToken", () => {
  it("signs HS256 with typ at+jwt, issuer, audience and a TTL expiry", async () => {
    const now = Date.UTC(2026, 10, 22, 10, 0, 0);
    const { token, exp } = await signAccessToken(config, claims, now);
    expect(exp).toBe(now / 1000 + 900);
    const [header, payload] = token
      .split(".")
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header).toEqual({ alg: "HS256", typ: ACCESS_TOKEN_TYPE });
    expect(payload).toEqual({ ...claims, iss: "edge-mam", aud: "edge-mam-api", iat: now / 1000, exp });
  });
});

describe("verifyAccessToken", () => {
  it("returns the claims of a valid token", async () => {
    const { token, exp } = await signAccessToken(config, claims);
    // the expiry comes back too: the record that a token was traded is kept until the token would have expired
    expect(await verifyAccessToken(config, token)).toEqual({ ...claims, exp });
  });

  it("rejects an expired token", async () => {
    const { token } = await signAccessToken(config, claims, Date.now() - 3600_000);
    expect(await verifyAccessToken(config, token)).toBeNull();
  });

  it("rejects another key, issuer or audience", async () => {
    const { token } = await signAccessToken(config, claims);
    expect(await verifyAccessToken(getConfig({ JWT_SECRET: `${SECRET}-other` } as unknown as Env), token)).toBeNull();
    expect(await verifyAccessToken(getConfig({ JWT_SECRET: SECRET, JWT_ISSUER: "other" } as unknown as Env), token)).toBeNull();
    expect(await verifyAccessToken(getConfig({ JWT_SECRET: SECRET, JWT_AUDIENCE: "other" } as unknown as Env), token)).toBeNull();
  });

  it("rejects alg none", async () => {
    const unsigned = new UnsecuredJWT({ sid: claims.sid })
      .setSubject(claims.sub)
      .setIssuer("edge-mam")
      .setAudience("edge-mam-api")
      .setExpirationTime("5m")
      .encode();
    expect(await verifyAccessToken(config, unsigned)).toBeNull();
  });

  it("rejects other HMAC algorithms and a wrong type", async () => {
    const base = { ...claims, iss: "edge-mam", aud: "edge-mam-api", exp: Math.floor(Date.now() / 1000) + 300 };
    expect(await verifyAccessToken(config, await forge({ alg: "HS512", typ: ACCESS_TOKEN_TYPE }, base))).toBeNull();
    expect(await verifyAccessToken(config, await forge({ typ: "JWT" }, base))).toBeNull();
    expect(await verifyAccessToken(config, await forge({}, base))).toBeNull();
    expect(await verifyAccessToken(config, await forge({ typ: ACCESS_TOKEN_TYPE }, base))).toEqual({ ...claims, exp: base.exp }); // control
  });

  it("requires sub, sid and exp as strings/numbers", async () => {
    const base = { iss: "edge-mam", aud: "edge-mam-api", exp: Math.floor(Date.now() / 1000) + 300 };
    const header = { typ: ACCESS_TOKEN_TYPE };
    expect(await verifyAccessToken(config, await forge(header, { ...base, sub: claims.sub }))).toBeNull();
    expect(await verifyAccessToken(config, await forge(header, { ...base, sid: claims.sid }))).toBeNull();
    expect(await verifyAccessToken(config, await forge(header, { ...base, sub: claims.sub, sid: 42 }))).toBeNull();
    const { exp: _exp, ...noExp } = base;
    expect(await verifyAccessToken(config, await forge(header, { ...noExp, ...claims }))).toBeNull();
  });

  it("returns null (never throws) for garbage", async () => {
    for (const garbage of ["", "a.b.c", "not a token", "....", "eyJ.eyJ.sig"]) expect(await verifyAccessToken(config, garbage)).toBeNull();
  });
});
