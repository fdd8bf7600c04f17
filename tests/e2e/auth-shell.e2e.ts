import { expect, login, test } from "./fixtures";
import { EDITOR, EDITOR_ONE_TIME_TOKEN } from "./seed";

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

test("a wrong password shows the 'Ошибка' toast and stays on /login", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 401/);
  await page.goto("/login");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Вход в Медиатеку");
  await page.locator('input[name="user"]').fill(server.adminLogin);
  await page.locator('input[name="passwd"]').fill("definitely-wrong");
  await page.getByRole("button", { name: "Войти" }).click();
  const toast = page.getByRole("alert");
  await toast.waitFor();
  expect(await toast.locator(".toast-title").textContent()).toBe("Ошибка");
  expect(await toast.locator(".toast-message").textContent()).toBe("Неверный логин или пароль");
  expect(new URL(page.url()).pathname).toBe("/login");
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
});

test("after five failed sign-ins the form says when to try again and counts down, the button waiting", async ({ page, pageErrors }) => {
  pageErrors.expect(/status of 401/);
  pageErrors.expect(/status of 429/);
  // An account nobody has: the throttle is per account (and per address, which allows many more failures).
  const account = `nobody-${Date.now()}`;
  await page.goto("/login");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const submit = page.getByRole("button", { name: "Войти" });
  await page.locator('input[name="user"]').fill(account);
  const statuses: number[] = [];
  for (let attempt = 1; attempt <= 6; attempt++) {
    await page.locator('input[name="passwd"]').fill(`wrong-${attempt}`);
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/login"));
    await submit.click();
    statuses.push((await answered).status());
    if (attempt < 6) await expect.poll(() => submit.isEnabled()).toBe(true);
  }
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  const notice = page.getByTestId("login-error");
  await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toMatch(/Слишком много неудачных попыток входа\. Повторите через \d+ с \(в \d\d:\d\d:\d\d\)\./);
  expect(await submit.isDisabled()).toBe(true);
  const seconds = async () => Number(/через (\d+) с/.exec((await notice.textContent()) ?? "")?.[1]);
  const first = await seconds();
  expect(first).toBeGreaterThan(20);
  expect(first).toBeLessThanOrEqual(30);
  await expect.poll(seconds, { timeout: 5_000 }).toBeLessThan(first);
});

test("the right password lands on /mam with 'Доступные Файлы', and reload keeps the session", async ({ page, server }) => {
  await page.goto("/");
  await page.waitForURL((url) => url.pathname === "/login");
  expect(pathOf(page.url())).toBe("/login?to=%2Fmam");
  await login(page, server.adminLogin, server.adminPassword);
  expect(new URL(page.url()).pathname).toBe("/mam");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Доступные Файлы");
  expect(await page.getByTestId("current-user").textContent()).toBe("Администратор");
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toMatch(/^ey/);
  // The background work of the shell picked an upload server.
  await expect.poll(() => page.evaluate(() => localStorage.getItem("uldlServer"))).toBe("default");

  await page.reload();
  expect(new URL(page.url()).pathname).toBe("/mam");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Доступные Файлы");
});

test("a signed-out visit to /mam/abc goes to /login?to=/mam/abc and returns there after sign-in", async ({ page, pageErrors, server }) => {
  // 'abc' is not a folder id: after sign-in the folder route's error boundary says so, inside the shell.
  pageErrors.expect(/status of 404/);
  await page.goto("/mam/abc");
  await page.waitForURL((url) => url.pathname === "/login");
  expect(pathOf(page.url())).toBe("/login?to=%2Fmam%2Fabc");
  await login(page, server.adminLogin, server.adminPassword);
  expect(new URL(page.url()).pathname).toBe("/mam/abc");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Папка не найдена или нет доступа");
});

test("'Выйти' returns to /login, clears the tokens, and the session is gone", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  // The page settles first: the sidebar's collections (fetched after the page) and their cover pictures. A picture
  // still loading when the session ends is answered 401, a console error that is the race's, not the sign-out's.
  await page.waitForFunction(
    () =>
      performance.getEntriesByType("resource").some((e) => new URL(e.name).pathname === "/api/collections") &&
      [...document.images].every((img) => img.complete),
  );
  await page.getByRole("button", { name: "Выйти" }).click();
  await page.waitForURL((url) => url.pathname === "/login");
  expect(await page.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
  await page.goto("/mam");
  await page.waitForURL((url) => url.pathname === "/login");
  expect(pathOf(page.url())).toBe("/login?to=%2Fmam");
});

test("an administrator opens /admin; a non-administrator is sent to /mam", async ({ page, server, browser }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.getByRole("link", { name: "Администрирование" }).click();
  await page.waitForURL((url) => url.pathname === "/admin");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Администрирование");

  const editorContext = await browser.newContext({ baseURL: server.baseUrl });
  try {
    const editor = await editorContext.newPage();
    await login(editor, EDITOR.login, EDITOR.password);
    expect(await editor.getByRole("link", { name: "Администрирование" }).count()).toBe(0);
    await editor.goto("/admin");
    await editor.waitForURL((url) => url.pathname === "/mam");
    await editor.goto("/admin/access");
    await editor.waitForURL((url) => url.pathname === "/mam");
  } finally {
    await editorContext.close();
  }
});

test("signed in, /login goes to /mam; every main screen shows its Russian title", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/login");
  await page.waitForURL((url) => url.pathname === "/mam");
  const screens: [string, string][] = [
    ["Поиск", "Поиск"],
    ["Задачи", "Задачи"],
    ["Автоматизации", "Автоматизации"],
    ["Магазин", "Магазин"],
  ];
  for (const [link, title] of screens) {
    await page.getByRole("link", { name: link, exact: true }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe(title);
  }
  await page.goto("/admin/access");
  await page.waitForURL((url) => url.pathname === "/admin/active-users");
  const me = await page.evaluate(async () => {
    const answer = await fetch("/api/auth/whoami", { headers: { authorization: `Bearer ${localStorage.getItem("accessToken")}` } });
    return (await answer.json()) as { id: string };
  });
  await page.goto(`/admin/user/${me.id}/`);
  await page.waitForURL((url) => url.pathname === `/admin/user/${me.id}/assets`);
});

test("an access token about to expire is refreshed before the next navigation", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const first = await page.evaluate(() => localStorage.getItem("accessToken"));
  // Tokens are signed per second: make sure the new one differs from the first.
  await page.waitForTimeout(1100);
  // Listen first: any API call of the page may be the one that notices the near expiry.
  const refreshed = page.waitForResponse((r) => r.url().endsWith("/api/auth/refresh") && r.status() === 200);
  // Within the 2-minute threshold: the guard must refresh before navigating.
  await page.evaluate(() => localStorage.setItem("expireToken", new Date(Date.now() + 60_000).toISOString()));
  await page.getByRole("link", { name: "Задачи", exact: true }).click();
  await refreshed;
  await expect.poll(() => page.locator("h1").textContent()).toBe("Задачи");
  const second = await page.evaluate(() => localStorage.getItem("accessToken"));
  expect(second).not.toBe(first);
  expect(Date.parse((await page.evaluate(() => localStorage.getItem("expireToken")))!)).toBeGreaterThan(Date.now() + 10 * 60_000);
});

test("/login?token= signs in with a one-time token after «Войти как …?» and goes to `to`; the token works once", async ({ page, browser, server }) => {
  await page.goto(`/login?token=${EDITOR_ONE_TIME_TOKEN}&to=%2Fsearch`);
  // the page did not start this sign-in (no SSO nonce of this tab), so it names the account and waits for a click
  const confirm = page.getByTestId("token-confirm");
  await expect.poll(() => confirm.getByRole("heading").textContent()).toBe(`Войти как ${EDITOR.name}?`);
  await confirm.getByRole("button", { name: "Войти" }).click();
  await page.waitForURL((url) => url.pathname === "/search");
  await expect.poll(() => page.locator("h1").textContent()).toBe("Поиск");
  expect(await page.getByTestId("current-user").textContent()).toBe(EDITOR.name);

  const second = await browser.newContext({ baseURL: server.baseUrl });
  try {
    const again = await second.newPage();
    await again.goto(`/login?token=${EDITOR_ONE_TIME_TOKEN}&to=%2Fsearch`);
    await again.waitForURL((url) => url.pathname === "/login" && !url.searchParams.has("token"));
    expect(new URL(again.url()).searchParams.get("to")).toBe("/search");
    expect(await again.evaluate(() => localStorage.getItem("accessToken"))).toBeNull();
  } finally {
    await second.close();
  }
});

test("an API call answered 401 clears the token, refreshes once and retries", async ({ page, pageErrors, server }) => {
  pageErrors.expect(/status of 401/);
  const queueSocket = page.waitForEvent("websocket", (ws) => ws.url().includes("/api/uploads/ws"));
  const serverChosen = page.waitForResponse((r) => r.url().endsWith("/api/uldl-status"));
  await login(page, server.adminLogin, server.adminPassword);
  // Forge the token only once this page's own background calls are done, so every 401 below is the reloaded page's.
  await (await queueSocket).waitForEvent("framereceived");
  await serverChosen;
  await page.evaluate(() => {
    localStorage.setItem("accessToken", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged");
    localStorage.setItem("expireToken", new Date(Date.now() + 3600_000).toISOString());
  });
  const retried = page.waitForResponse((r) => r.url().endsWith("/api/uldl-status") && r.status() === 200);
  await page.reload();
  await retried;
  const token = await page.evaluate(() => localStorage.getItem("accessToken"));
  expect(token).toMatch(/^eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9\./);
  expect(await page.getByRole("alert").count()).toBe(0);
});

test("a different build on the server shows the new-version modal", async ({ page, server }) => {
  await page.route("**/version.json*", (route) =>
    route.fulfill({ contentType: "application/json", body: JSON.stringify({ version: "9.9.9+next" }) }),
  );
  await page.goto("/login");
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  expect(await dialog.locator("h2").textContent()).toBe("Доступна новая версия");
  await dialog.getByRole("button", { name: "Позже" }).click();
  expect(await page.getByRole("dialog").count()).toBe(0);
  await login(page, server.adminLogin, server.adminPassword);
  expect(new URL(page.url()).pathname).toBe("/mam");
});
