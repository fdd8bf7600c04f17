import { expect, test, type E2EServer } from "./fixtures";

/**
 * `/login?token=` with an ACCESS token: a robot's API token or one an integration hands over starts a real session —
 * the refresh cookie the server-side page guard trusts — so the next full page load stays signed in; the token leaves
 * the address bar at once. A token the page did not ask for itself is traded only after the visitor confirms
 * «Войти как …?» (a link must not sign anyone into somebody else's account silently); cancelling stores nothing. A
 * token coming back with the page's own nonce (single sign-on started here) is traded without asking. A forged token
 * ends on the sign-in page with a Russian message and nothing stored.
 */

/** A robot with a fresh API token, made through the API as an administrator would. */
async function robotToken(server: E2EServer): Promise<{ token: string; name: string }> {
  const signIn = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: server.adminLogin, passwd: server.adminPassword }),
  });
  const headers = { authorization: `Bearer ${((await signIn.json()) as { bearer: string }).bearer}`, "content-type": "application/json" };
  const name = `Интеграция ${Date.now()}`;
  const robot = await fetch(`${server.baseUrl}/api/user`, {
    method: "POST",
    headers,
    body: JSON.stringify({ user_name: name, user_login: `robot-${Date.now()}`, user_passwd: "robot-password-0123", enabled: true, is_robot: true }),
  });
  const { user_id } = (await robot.json()) as { user_id: string };
  const made = await fetch(`${server.baseUrl}/api/user/${user_id}/tokens`, { method: "POST", headers, body: JSON.stringify({ name: "Вход по ссылке" }) });
  return { token: ((await made.json()) as { token: string }).token, name };
}

test("/login?token= with a robot's access token asks «Войти как …?», then starts a real session: the next page load stays signed in", async ({
  page,
  server,
}) => {
  const { token, name } = await robotToken(server);
  await page.goto(`/login?token=${encodeURIComponent(token)}&to=%2Fsearch`);
  const confirm = page.getByTestId("token-confirm");
  await expect.poll(() => confirm.getByRole("heading").textContent()).toBe(`Войти как ${name}?`);
  // Nothing is traded or stored while the page asks, and the token is already gone from the address bar.
  expect(page.url()).not.toContain(token);
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
  expect((await page.context().cookies()).some((c) => c.name.includes("mam_refresh"))).toBe(false);
  await confirm.getByRole("button", { name: "Войти" }).click();
  await page.waitForURL((url) => url.pathname === "/search");
  // The token is gone from the address bar (and from history: the sign-in page was replaced).
  expect(page.url()).not.toContain(token);
  await expect.poll(() => page.locator("h1").textContent()).toBe("Поиск");
  expect(await page.getByTestId("current-user").textContent()).toBe(name);
  // What is stored is the session's own access token, not the robot's API token.
  const stored = await page.evaluate(() => localStorage.getItem("accessToken"));
  expect(stored).toMatch(/^eyJ/);
  expect((await page.context().cookies()).some((c) => c.name.includes("mam_refresh"))).toBe(true);
  // A full page load goes through the server-side guard, which trusts only the refresh cookie.
  await page.goto("/jobs");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Задачи");
  expect(new URL(page.url()).pathname).toBe("/jobs");
  expect(await page.getByTestId("current-user").textContent()).toBe(name);
});

test("/login?token= with a forged token shows the sign-in page with a message and stores nothing", async ({ page, pageErrors }) => {
  pageErrors.expect(/status of 401/);
  const forged = "eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ4Iiwic2lkIjoieSIsImV4cCI6OTk5OTk5OTk5OX0.forged-signature";
  await page.goto(`/login?token=${forged}&to=%2Fsearch`);
  await page.waitForURL((url) => url.pathname === "/login" && !url.searchParams.has("token"));
  expect(new URL(page.url()).searchParams.get("to")).toBe("/search");
  await expect.poll(() => page.getByText("Ссылка для входа недействительна или уже использована: войдите снова").count()).toBe(1);
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
  expect((await page.context().cookies()).some((c) => c.name.includes("mam_refresh"))).toBe(false);
});

test("/login?token= cancelled at «Войти как …?» signs nobody in and leaves the sign-in form", async ({ page, server }) => {
  const { token, name } = await robotToken(server);
  await page.goto(`/login?token=${encodeURIComponent(token)}&to=%2Fsearch`);
  const confirm = page.getByTestId("token-confirm");
  await expect.poll(() => confirm.getByRole("heading").textContent()).toBe(`Войти как ${name}?`);
  await confirm.getByRole("button", { name: "Отмена" }).click();
  await page.waitForURL((url) => url.pathname === "/login" && !url.searchParams.has("token"));
  await expect.poll(() => page.getByTestId("token-confirm").count()).toBe(0);
  await expect.poll(() => page.getByLabel("Логин").isVisible()).toBe(true);
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
  expect((await page.context().cookies()).some((c) => c.name.includes("mam_refresh"))).toBe(false);
});

test("/login?token= that comes back with this tab's own nonce is traded without asking", async ({ page, server }) => {
  const { token, name } = await robotToken(server);
  await page.goto("/login");
  const nonce = "page-nonce-0123456789abcdef";
  await page.evaluate((n) => sessionStorage.setItem("mam_sign_in_nonce", n), nonce);
  await page.goto(`/login?token=${encodeURIComponent(token)}&n=${nonce}&to=%2Fsearch`);
  await page.waitForURL((url) => url.pathname === "/search");
  expect(await page.getByTestId("current-user").textContent()).toBe(name);
  // the nonce works once
  expect(await page.evaluate(() => sessionStorage.getItem("mam_sign_in_nonce"))).toBeNull();
});
