import { env } from "cloudflare:workers";
import { SignJWT, UnsecuredJWT, decodeJwt, type JWTHeaderParameters } from "jose";
import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { base64url } from "../../workers/lib/crypto";
import { call, expectError, signIn, signInAdmin } from "./factories";

interface Craft {
  sub: string;
  sid: string;
  secret?: string;
  header?: Partial<JWTHeaderParameters>;
  iss?: string;
  aud?: string;
  /** seconds relative to now */
  expIn?: number;
}

/** Signs an access token like the Worker does, with any part replaced. */
function craft({ sub, sid, secret = env.JWT_SECRET, header, iss = "edge-mam", aud = "edge-mam-api", expIn = 600 }: Craft) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sid })
    .setProtectedHeader({ alg: "HS256", typ: "at+jwt", ...header })
    .setSubject(sub)
    .setIssuer(iss)
    .setAudience(aud)
    .setIssuedAt(now - 60)
    .setExpirationTime(now + expIn)
    .sign(new TextEncoder().encode(secret));
}

function whoami(authorization?: string) {
  return call("/api/auth/whoami", { headers: authorization ? { authorization } : {} });
}

async function claimsOfNewSession() {
  const user = await signIn();
  const { sub, sid } = decodeJwt(user.bearer) as { sub: string; sid: string };
  return { user, sub, sid };
}

describe("GET /api/auth/whoami: happy", () => {
  it("describes an ordinary user", async () => {
    const user = await signIn({ name: "Мария" });
    const res = await call("/api/auth/whoami", { bearer: user.bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: user.id, name: "Мария", is_admin: false, any_acls: false });
  });

  it("describes the administrator", async () => {
    const admin = await signInAdmin();
    const body = (await (await call("/api/auth/whoami", { bearer: admin.bearer })).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), name: "Администратор", is_admin: true, any_acls: true });
  });

  it("accepts a token signed the way the Worker signs (control for the forgeries below)", async () => {
    const { sub, sid } = await claimsOfNewSession();
    expect((await whoami(`Bearer ${await craft({ sub, sid })}`)).status).toBe(200);
  });

  it("accepts the scheme name in any case", async () => {
    const user = await signIn();
    expect((await whoami(`bearer ${user.bearer}`)).status).toBe(200);
  });
});

describe("GET /api/auth/whoami: rejected credentials", () => {
  it("answers 401 without an Authorization header", async () => {
    expect((await expectError(await whoami(), 401)).message).toBe(ru.errors.unauthenticated);
  });

  it.each([
    ["Basic scheme", "Basic YWRtaW46YWRtaW4="],
    ["no token", "Bearer "],
    ["not a JWT", "Bearer abc.def"],
    ["token with spaces", "Bearer a.b.c d"],
    ["random three parts", "Bearer aaaa.bbbb.cccc"],
    ["an oversized token", `Bearer ${"a".repeat(3000)}.${"b".repeat(3000)}.c`],
  ])("answers 401 for a token in the wrong format (%s)", async (_what, header) => {
    expect((await expectError(await whoami(header), 401)).message).toBe(ru.errors.invalidToken);
  });

  it("answers 401 for alg none (unsigned and with a fake signature)", async () => {
    const { sub, sid } = await claimsOfNewSession();
    const unsigned = new UnsecuredJWT({ sid })
      .setSubject(sub)
      .setIssuer("edge-mam")
      .setAudience("edge-mam-api")
      .setExpirationTime("10m")
      .encode();
    await expectError(await whoami(`Bearer ${unsigned}`), 401);
    const [, payload] = unsigned.split(".");
    const header = base64url(new TextEncoder().encode(JSON.stringify({ alg: "none", typ: "at+jwt" })));
    await expectError(await whoami(`Bearer ${header}.${payload}.c2lnbmF0dXJl`), 401);
  });

  it("answers 401 for a wrong signature", async () => {
    const { sub, sid } = await claimsOfNewSession();
    const forged = await craft({ sub, sid, secret: "another-secret-of-sufficient-length-0123456789" });
    await expectError(await whoami(`Bearer ${forged}`), 401);
    // A valid token with a tampered payload.
    const valid = await craft({ sub, sid });
    const [h, , s] = valid.split(".");
    const tampered = base64url(new TextEncoder().encode(JSON.stringify({ ...decodeJwt(valid), sub: "f".repeat(32) })));
    await expectError(await whoami(`Bearer ${h}.${tampered}.${s}`), 401);
  });

  it("answers 401 for the wrong audience, issuer or type", async () => {
    const { sub, sid } = await claimsOfNewSession();
    await expectError(await whoami(`Bearer ${await craft({ sub, sid, aud: "another-api" })}`), 401);
    await expectError(await whoami(`Bearer ${await craft({ sub, sid, iss: "someone-else" })}`), 401);
    await expectError(await whoami(`Bearer ${await craft({ sub, sid, header: { typ: "JWT" } })}`), 401);
  });

  it("answers 401 for an expired token", async () => {
    const { sub, sid } = await claimsOfNewSession();
    await expectError(await whoami(`Bearer ${await craft({ sub, sid, expIn: -120 })}`), 401);
  });

  it("answers 401 for a well-signed token whose session does not exist or belongs to someone else", async () => {
    const { sub, sid } = await claimsOfNewSession();
    const other = await claimsOfNewSession();
    await expectError(await whoami(`Bearer ${await craft({ sub, sid: "0".repeat(32) })}`), 401);
    await expectError(await whoami(`Bearer ${await craft({ sub, sid: other.sid })}`), 401);
  });
});
