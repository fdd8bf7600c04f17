import { describe, expect, it } from "vitest";
import { ru } from "../../app/i18n/ru";
import { newId } from "../../workers/lib/ids";
import { rows } from "./catalog-fixtures";
import { createUser, expectError } from "./factories";
import { fakeProvider, ssoCall, ssoConfig, ssoCookie, type FakeProvider } from "./sso-fixtures";

/** Starts a sign-in like the login page's button: answers the provider's authorization URL and the browser cookie. */
async function start(ssoProviders: string, fake: FakeProvider, to = "/mam", id = "test") {
  const res = await ssoCall(`/api/auth/sso/${id}?to=${encodeURIComponent(to)}`, { ssoProviders, html: true });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  fake.lastAuthorize = location.searchParams;
  return { location, cookie: ssoCookie(res), setCookie: res.headers.getSetCookie().join("\n") };
}

function callbackPath(params: Record<string, string>, id = "test") {
  return `/api/auth/sso-cb/${id}?${new URLSearchParams(params)}`;
}

/** The `/login?…` a browser was redirected to. */
function loginRedirect(res: Response): URLSearchParams {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!, "https://mam.test");
  expect(location.pathname).toBe("/login");
  return location.searchParams;
}

async function exchange(ssoProviders: string, token: string) {
  return ssoCall("/api/auth/exchange-token", { ssoProviders, method: "POST", json: { token } });
}

describe("GET /api/auth/sso/{provider}", () => {
  it("redirects to the provider with code flow, PKCE S256, state, nonce and our callback, and binds the browser", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const { location, setCookie } = await start(config, fake, "/mam/abc");
    expect(location.origin + location.pathname).toBe(`${fake.issuer}/auth`);
    const q = location.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe(fake.clientId);
    expect(q.get("redirect_uri")).toBe("https://mam.test/api/auth/sso-cb/test");
    expect(q.get("scope")).toBe("openid profile email");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("nonce")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie).toMatch(/^mam_sso=[A-Za-z0-9_-]{43};/);
    for (const part of ["Max-Age=600", "Path=/api/auth/sso-cb", "HttpOnly", "SameSite=Lax"]) expect(setCookie).toContain(part);
    // The state is stored hashed, never in clear.
    expect(JSON.stringify(await rows(`select * from sso_states`))).not.toContain(q.get("state")!);
  });

  it("answers 404 JSON for an unknown provider, and sends browsers to /login with the reason", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const error = await expectError(await ssoCall(`/api/auth/sso/nope`, { ssoProviders: config }), 404);
    expect(error.message).toBe(ru.sso.errors.unknown_provider);
    const params = loginRedirect(await ssoCall(`/api/auth/sso/nope?to=/mam/x`, { ssoProviders: config, html: true }));
    expect(params.get("sso_error")).toBe("unknown_provider");
    expect(params.get("to")).toBe("/mam/x");
    await expectError(await ssoCall(`/api/auth/sso/BAD!`, { ssoProviders: config }), 400);
  });

  it("answers 503 when the provider cannot be reached", async () => {
    const fake = await fakeProvider();
    fake.down = true;
    const config = ssoConfig([{ id: "down", fake }]);
    const error = await expectError(await ssoCall(`/api/auth/sso/down`, { ssoProviders: config }), 503);
    expect(error.message).toBe(ru.sso.errors.provider_unavailable);
  });
});

describe("GET /api/auth/sso-cb/{provider}", () => {
  it("provisions an unknown user from preferred_username and ends at /login?token= that exchange-token trades once", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const login = `sso-${newId().slice(-8)}`;
    fake.claims = { preferred_username: login, name: "Светлана Единая" };
    const { cookie } = await start(config, fake, "/mam/wanted");
    const res = await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), {
      ssoProviders: config,
      cookie,
      html: true,
    });
    const params = loginRedirect(res);
    expect(params.get("to")).toBe("/mam/wanted");
    const token = params.get("token")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const [user] = await rows<{ id: string; name: string; password_hash: string | null; is_admin: number; enabled: number }>(
      `select id, name, password_hash, is_admin, enabled from users where login = ?`,
      login,
    );
    expect(user).toMatchObject({ name: "Светлана Единая", password_hash: null, is_admin: 0, enabled: 1 });
    // Written in one batch, so the same millisecond: order by action name.
    const audit = await rows<{ action: string; details: string }>(
      `select action, details from audit_log where object_id = ? order by action`,
      user.id,
    );
    expect(audit.map((a) => a.action)).toEqual(["auth.sso_login", "user.create"]);
    expect(JSON.parse(audit[0].details)).toMatchObject({ provider: "test", login, provisioned: true });

    const exchanged = await exchange(config, token);
    expect(exchanged.status).toBe(200);
    const { bearer } = (await exchanged.json()) as { bearer: string };
    const me = await fetchWhoami(config, bearer);
    expect(me).toMatchObject({ id: user.id, name: "Светлана Единая", is_admin: false });

    // The one-time token works once.
    const replay = await expectError(await exchange(config, token), 401);
    expect(replay.message).toBe(ru.errors.exchangeInvalid);
    await expectError(await exchange(config, "forged-token-forged-token-forged-token-1234"), 401);
  });

  it("finds an existing user by the configured claim (email) without creating one; a second sign-in is the same user", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "corp", fake, claim: "email" }]);
    const existing = await createUser({ login: `anna-${newId().slice(-6)}@corp.test` });
    fake.claims = { email: existing.login.toUpperCase(), preferred_username: "someone-else" };
    for (let i = 0; i < 2; i++) {
      const { cookie } = await start(config, fake, "/mam", "corp");
      const res = await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }, "corp"), {
        ssoProviders: config,
        cookie,
        html: true,
      });
      const token = loginRedirect(res).get("token")!;
      const { bearer } = (await (await exchange(config, token)).json()) as { bearer: string };
      expect((await fetchWhoami(config, bearer)).id).toBe(existing.id);
    }
    expect(await rows(`select id from users where login = 'someone-else'`)).toEqual([]);
  });

  it("reads the login claim from userinfo when the ID token does not carry it", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const login = `ui-${newId().slice(-8)}`;
    fake.claims = {};
    fake.userinfo = { preferred_username: login, name: "Из userinfo" };
    const { cookie } = await start(config, fake);
    const res = await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), {
      ssoProviders: config,
      cookie,
    });
    expect(res.status).toBe(302);
    expect(await rows(`select name from users where login = ?`, login)).toEqual([{ name: "Из userinfo" }]);
  });

  it("refuses a state that does not match: unknown, from another browser, replayed, or for another provider (400, no sign-in)", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([
      { id: "test", fake },
      { id: "other", fake },
    ]);
    fake.claims = { preferred_username: `st-${newId().slice(-8)}` };
    const { cookie } = await start(config, fake);
    const state = fake.lastAuthorize!.get("state")!;
    const code = fake.issueCode();

    const unknown = await expectError(await ssoCall(callbackPath({ code, state: "x".repeat(43) }), { ssoProviders: config, cookie }), 400);
    expect(unknown.message).toBe(ru.sso.errors.state_mismatch);
    // Another browser (no or another binding cookie) cannot use this state, and burns it.
    await expectError(await ssoCall(callbackPath({ code, state }), { ssoProviders: config, cookie: `mam_sso=${"y".repeat(43)}` }), 400);
    await expectError(await ssoCall(callbackPath({ code, state }), { ssoProviders: config, cookie }), 400);

    const second = await start(config, fake);
    const state2 = fake.lastAuthorize!.get("state")!;
    const code2 = fake.issueCode();
    await expectError(
      await ssoCall(callbackPath({ code: code2, state: state2 }, "other"), { ssoProviders: config, cookie: second.cookie }),
      400,
    );
    const browser = loginRedirect(
      await ssoCall(callbackPath({ code: code2, state: state2 }), { ssoProviders: config, cookie: second.cookie, html: true }),
    );
    expect(browser.get("sso_error")).toBe("state_mismatch");
    expect(browser.get("token")).toBeNull();

    await expectError(await ssoCall(callbackPath({ code }), { ssoProviders: config, cookie }), 400);
    expect(fake.tokenRequests).toBe(0);
    expect(await rows(`select id from users where login = ?`, fake.claims.preferred_username)).toEqual([]);
  });

  it("refuses an unknown provider (404; browsers to /login?sso_error=unknown_provider)", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    await expectError(await ssoCall(callbackPath({ code: "c", state: "s" }, "ghost"), { ssoProviders: config }), 404);
    expect(
      loginRedirect(await ssoCall(callbackPath({ code: "c", state: "s" }, "ghost"), { ssoProviders: config, html: true })).get("sso_error"),
    ).toBe("unknown_provider");
  });

  it("passes on a provider's error answer and a refused code exchange as provider_error (400)", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const first = await start(config, fake);
    const denied = loginRedirect(
      await ssoCall(callbackPath({ error: "access_denied", state: fake.lastAuthorize!.get("state")! }), {
        ssoProviders: config,
        cookie: first.cookie,
        html: true,
      }),
    );
    expect(denied.get("sso_error")).toBe("provider_error");

    const second = await start(config, fake);
    fake.tokenFailure = { status: 400, body: { error: "invalid_grant" } };
    const error = await expectError(
      await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), {
        ssoProviders: config,
        cookie: second.cookie,
      }),
      400,
    );
    expect(error.message).toContain(ru.sso.errors.provider_error);
  });

  it.each([
    ["a wrong nonce", { nonce: "not-the-nonce" }],
    ["another audience", { aud: "someone-else" }],
    ["another issuer", { iss: "https://evil.test" }],
    ["an expired token", { expired: true }],
    ["a signature by another key", { otherKey: true }],
  ])("refuses an ID token with %s (400 id_token_invalid), signing nobody in", async (_label, tamper) => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const login = `bad-${newId().slice(-8)}`;
    fake.claims = { preferred_username: login };
    fake.tamper = tamper;
    const { cookie } = await start(config, fake);
    const tokensBefore = await rows(`select count(*) as n from one_time_tokens`);
    const error = await expectError(
      await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), { ssoProviders: config, cookie }),
      400,
    );
    expect(error.message).toBe(ru.sso.errors.id_token_invalid);
    expect(await rows(`select id from users where login = ?`, login)).toEqual([]);
    expect(await rows(`select count(*) as n from one_time_tokens`)).toEqual(tokensBefore);
  });

  it("refuses a disabled user (403 account_disabled) and an unknown user when provisioning is off (403 not_registered)", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake, provision: false }]);
    const disabled = await createUser({ enabled: false });
    fake.claims = { preferred_username: disabled.login };
    let flow = await start(config, fake);
    const refused = loginRedirect(
      await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), {
        ssoProviders: config,
        cookie: flow.cookie,
        html: true,
      }),
    );
    expect(refused.get("sso_error")).toBe("account_disabled");

    const login = `nobody-${newId().slice(-6)}`;
    fake.claims = { preferred_username: login };
    flow = await start(config, fake);
    const error = await expectError(
      await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), {
        ssoProviders: config,
        cookie: flow.cookie,
      }),
      403,
    );
    expect(error.message).toBe(ru.sso.errors.not_registered);
    expect(await rows(`select id from users where login = ?`, login)).toEqual([]);
  });

  it("refuses a token without the login claim (400 claim_missing)", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake, claim: "upn" }]);
    fake.claims = { preferred_username: "ignored" };
    const { cookie } = await start(config, fake);
    const error = await expectError(
      await ssoCall(callbackPath({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")! }), { ssoProviders: config, cookie }),
      400,
    );
    expect(error.message).toContain(ru.sso.errors.claim_missing);
  });
});

describe("GET /api/auth/sso-providers", () => {
  it("lists id and name only, never issuer or secrets", async () => {
    const fake = await fakeProvider();
    const config = ssoConfig([{ id: "test", fake }]);
    const res = await ssoCall("/api/auth/sso-providers", { ssoProviders: config });
    const body = await res.text();
    expect(JSON.parse(body)).toEqual([{ id: "test", name: "Вход test" }]);
    expect(body).not.toContain(fake.clientSecret);
  });
});

async function fetchWhoami(ssoProviders: string, bearer: string) {
  const res = await ssoCall("/api/auth/whoami", { ssoProviders, bearer });
  expect(res.status).toBe(200);
  return (await res.json()) as { id: string; name: string; is_admin: boolean };
}
