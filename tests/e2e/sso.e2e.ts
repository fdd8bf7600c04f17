import type { Page } from "playwright-core";
import { inject } from "vitest";
import { ru } from "../../app/i18n/ru";
import { expect, test } from "./fixtures";

/**
 * Single sign-on against a real OpenID provider: `oidc-provider` started by the global setup on a loopback port,
 * configured into the product through SSO_PROVIDERS (tests/e2e/sso-provider.ts).
 */

/** The provider's development pages load a web font from the internet; this machine is offline, so answer it empty. */
async function stubProviderFonts(page: Page) {
  await page
    .context()
    .route(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//, (route) => route.fulfill({ status: 200, contentType: "text/css", body: "" }));
}

/** Reads who the page is signed in as, with the access token it keeps in localStorage. */
async function whoamiInPage(page: Page) {
  return page.evaluate(async () => {
    const res = await fetch("/api/auth/whoami", { headers: { authorization: `Bearer ${localStorage.getItem("accessToken")}` } });
    return { status: res.status, body: (await res.json()) as { id: string; name: string; is_admin: boolean } };
  });
}

test("a person signs in at the OpenID provider and lands signed in on the page they wanted", async ({ page }) => {
  await stubProviderFonts(page);
  await page.goto("/jobs");
  await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("to") === "/jobs");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });

  await page.getByRole("link", { name: ru.login.sso(inject("ssoProviderName")) }).click();

  // The provider's own sign-in page (development interactions): any password for its one account.
  await page.locator('input[name="login"]').fill(inject("ssoLogin"));
  await page.locator('input[name="password"]').fill("any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  // First sign-in: the provider asks for consent to share the profile with the product.
  await page.getByRole("button", { name: "Continue" }).click();

  await page.waitForURL((url) => url.pathname === "/jobs", { timeout: 30_000 });
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const me = await whoamiInPage(page);
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ name: "Ольга Единый-Вход", is_admin: false });
  // The one-time token is gone from the address bar.
  expect(new URL(page.url()).searchParams.get("token")).toBeNull();
});

test("a forged callback shows the reason on the login page and signs nobody in", async ({ page, pageErrors }) => {
  // The whoami probe at the end answers 401 on purpose, and the browser logs it.
  pageErrors.expect(/status of 401/);
  await page.goto("/api/auth/sso-cb/local?state=forged-state&code=forged-code");
  await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("sso_error") === "state_mismatch");
  await expect.poll(() => page.getByRole("alert").textContent()).toBe(ru.sso.errors.state_mismatch);
  expect((await whoamiInPage(page)).status).toBe(401);
});

test("an unknown provider and a replayed one-time token are reported on the login page", async ({ page, pageErrors }) => {
  // The refused exchange-token call is a 401 the browser logs.
  pageErrors.expect(/status of 401/);
  await page.goto("/api/auth/sso/nope?to=/mam");
  await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("sso_error") === "unknown_provider");
  await expect.poll(() => page.getByRole("alert").textContent()).toBe(ru.sso.errors.unknown_provider);

  await page.goto("/login?token=replayed-or-forged-one-time-token-0123456789&to=/mam");
  await page.waitForURL((url) => url.searchParams.get("sso_error") === "token_invalid");
  await expect.poll(() => page.getByRole("alert").textContent()).toBe(ru.sso.errors.token_invalid);
  expect(new URL(page.url()).pathname).toBe("/login");
});
