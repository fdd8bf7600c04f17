import { describe, expect, it } from "vitest";
import { newId } from "../../workers/lib/ids";
import { rows } from "./catalog-fixtures";
import { expectError } from "./factories";
import { fakeProvider, ssoCall, ssoConfig, ssoCookie, type FakeProvider } from "./sso-fixtures";

/**
 * Single sign-on tried as an attacker would: a return path that a browser reads as another site, a callback that
 * names another issuer (mix-up), and the sign-in page's nonce, which must come back only to the sign-in that
 * carried it.
 */

async function start(config: string, fake: FakeProvider, query: string) {
  const res = await ssoCall(`/api/auth/sso/test?${query}`, { ssoProviders: config, html: true });
  expect(res.status).toBe(302);
  fake.lastAuthorize = new URL(res.headers.get("location")!).searchParams;
  return ssoCookie(res);
}

async function callback(config: string, fake: FakeProvider, cookie: string, extra: Record<string, string> = {}) {
  const params = new URLSearchParams({ code: fake.issueCode(), state: fake.lastAuthorize!.get("state")!, ...extra });
  return ssoCall(`/api/auth/sso-cb/test?${params}`, { ssoProviders: config, cookie, html: true });
}

function landing(res: Response): URLSearchParams {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!, "https://mam.test");
  expect(location.pathname).toBe("/login");
  return location.searchParams;
}

async function provider() {
  const fake = await fakeProvider();
  fake.claims = { preferred_username: `sso-${newId().slice(-8)}`, name: "Проверка" };
  return { fake, config: ssoConfig([{ id: "test", fake }]) };
}

describe("SSO callbacks under attack", () => {
  it.each([["/\t/evil.example"], ["/\n/evil.example"], ["/\\evil.example"], ["//evil.example"], ["https://evil.example/"]])(
    "never sends the browser off-site after signing in, whatever `to` (%j) says",
    async (to) => {
      const { fake, config } = await provider();
      const cookie = await start(config, fake, new URLSearchParams({ to }).toString());
      const params = landing(await callback(config, fake, cookie));
      expect(params.get("token")).toBeTruthy();
      expect(params.get("to")).toBe("/mam");
    },
  );

  it("refuses a callback whose `iss` names another issuer (mix-up), signing nobody in", async () => {
    const { fake, config } = await provider();
    const cookie = await start(config, fake, "to=%2Fmam");
    const before = await rows<{ n: number }>(`select count(*) as n from one_time_tokens`);
    const params = landing(await callback(config, fake, cookie, { iss: "https://evil.example" }));
    expect(params.get("sso_error")).toBe("bad_callback");
    expect(params.has("token")).toBe(false);
    expect(await rows<{ n: number }>(`select count(*) as n from one_time_tokens`)).toEqual(before);
    // the provider naming itself correctly goes through
    const again = await start(config, fake, "to=%2Fmam");
    expect(landing(await callback(config, fake, again, { iss: fake.issuer })).get("token")).toBeTruthy();
  });

  it("hands the sign-in page's nonce back only beside the token of the sign-in that carried it", async () => {
    const { fake, config } = await provider();
    const nonce = "page-nonce-0123456789abcdef";
    const withNonce = await start(config, fake, `to=%2Fmam&n=${nonce}`);
    const stored = await rows<{ page_nonce: string | null }>(`select page_nonce from sso_states`);
    expect(stored.some((r) => r.page_nonce === nonce)).toBe(true);
    const first = landing(await callback(config, fake, withNonce));
    expect(first.get("n")).toBe(nonce);
    expect(first.get("token")).toBeTruthy();
    // a sign-in started without one (a link someone sent that starts SSO) comes back without: the page will ask
    const without = await start(config, fake, "to=%2Fmam");
    expect(landing(await callback(config, fake, without)).has("n")).toBe(false);
    // a malformed nonce is refused at the start
    const bad = await ssoCall(`/api/auth/sso/test?n=${encodeURIComponent("<script>")}`, { ssoProviders: config });
    expect((await expectError(bad, 400)).message).toContain("n");
  });
});
