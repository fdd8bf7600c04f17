import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// The satisfaction survey (issue 15): the shell's modal after a week of use, «Позже» postponing it by 7 days, a sent
// rating landing in /admin/survey, a refusal ending it, and never on /login.

const SHOTS = process.env.E2E_SCREENSHOTS;
const DAY = 86_400_000;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

interface SurveyState {
  isRefuse: boolean;
  lastDate: string;
  isPassed: boolean;
}

const readState = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem("pqi") ?? "null") as SurveyState | null);

/** As if the week of use has passed: the survey is due now. */
async function makeDue(page: Page) {
  await page.evaluate(() =>
    localStorage.setItem(
      "pqi",
      JSON.stringify({ isRefuse: false, isPassed: false, lastDate: new Date(Date.now() - 60_000).toISOString() }),
    ),
  );
}

const survey = (page: Page) => page.getByRole("dialog", { name: "Оцените Медиатеку" });

test("a new browser is not asked at once: the week of use starts", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.getByTestId("current-user").waitFor();
  await expect.poll(() => readState(page)).not.toBeNull();
  const state = (await readState(page))!;
  expect(state).toMatchObject({ isRefuse: false, isPassed: false });
  expect(Math.abs(Date.parse(state.lastDate) - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
  expect(await survey(page).count()).toBe(0);
});

test("«Позже» hides the survey for 7 days; a rating with a comment is saved and shows in /admin/survey", async ({ page, server }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page, server.adminLogin, server.adminPassword);
  await makeDue(page);
  await page.goto("/mam");
  await survey(page).waitFor();
  await expect.poll(() => survey(page).getByText("Насколько вероятно").count()).toBe(1);
  await survey(page).getByRole("radio", { name: "8 из 10" }).hover();
  await expect.poll(() => survey(page).locator(".survey-star.on").count()).toBe(8);
  await page.waitForTimeout(200); // the stars' colour transition, for the screenshot only
  await shot(page, "survey-modal-1440");

  const before = Date.now();
  await survey(page).getByRole("button", { name: "Позже" }).click();
  await survey(page).waitFor({ state: "detached" });
  const later = (await readState(page))!;
  expect(Date.parse(later.lastDate)).toBeGreaterThanOrEqual(before + 7 * DAY - 1000);
  expect(Date.parse(later.lastDate)).toBeLessThanOrEqual(Date.now() + 7 * DAY);
  await page.goto("/search");
  await page.getByTestId("current-user").waitFor();
  expect(await survey(page).count()).toBe(0);

  await makeDue(page);
  await page.goto("/jobs");
  const dialog = survey(page);
  await dialog.waitFor();
  const send = dialog.getByRole("button", { name: "Отправить" });
  expect(await send.isDisabled()).toBe(true); // no rating chosen yet
  const comment = `Быстрый поиск, но хочется тёмную тему плотнее ${Date.now()}`;
  await dialog.getByRole("radio", { name: "9 из 10" }).click();
  await dialog.getByLabel("Комментарий (необязательно)").fill(comment);
  await send.click();
  await page.getByText("Спасибо за отзыв!").waitFor();
  await dialog.waitFor({ state: "detached" });
  expect(await readState(page)).toMatchObject({ isPassed: true, isRefuse: false });

  await page.goto("/admin/survey");
  const admin = page.getByTestId("admin-survey");
  await admin.waitFor();
  await page.getByRole("link", { name: "Опрос", exact: true }).waitFor();
  await admin.getByTestId("survey-comments").getByText(comment).waitFor();
  expect(await page.getByTestId("survey-answered").textContent()).toBe("1");
  expect(await page.getByTestId("survey-nps").textContent()).toBe("+100");
  expect(await page.getByTestId("survey-distribution").locator('[data-rating="9"]').textContent()).toContain("1");
  await shot(page, "admin-survey-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "admin-survey-390");
});

test("a user without rights refuses on a phone: rating 0 is sent and the survey never returns; never on /login", async ({
  page,
  server,
  browser,
}) => {
  const api = await adminApi(server);
  const login_ = `survey-${Date.now()}`;
  await api.call("/api/user", {
    json: { user_name: "Ирина Смирнова", user_login: login_, user_passwd: "survey-user-password", enabled: true },
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page, login_, "survey-user-password");
  await makeDue(page);
  await page.goto("/mam");
  await survey(page).waitFor();
  await survey(page).getByRole("radio", { name: "7 из 10" }).click();
  await shot(page, "survey-modal-390");
  await page.setViewportSize({ width: 1440, height: 900 });
  await shot(page, "survey-modal-user-1440");

  const answered = page.waitForResponse((r) => r.url().endsWith("/api/pqi") && r.request().method() === "POST");
  await survey(page).getByRole("button", { name: "Не хочу отвечать" }).click();
  expect((await answered).status()).toBe(201);
  expect(JSON.parse((await answered).request().postData() ?? "{}")).toMatchObject({ rating: 0 });
  await survey(page).waitFor({ state: "detached" });
  expect(await readState(page)).toMatchObject({ isRefuse: true });
  await page.evaluate(() => {
    const s = JSON.parse(localStorage.getItem("pqi")!);
    localStorage.setItem("pqi", JSON.stringify({ ...s, lastDate: new Date(0).toISOString() }));
  });
  await page.goto("/search");
  await page.getByTestId("current-user").waitFor();
  expect(await survey(page).count()).toBe(0);

  // /login: a due survey in a signed-out browser does not show there
  const other = await newPage(browser, { server });
  await other.page.goto("/login");
  await makeDue(other.page);
  await other.page.goto("/login");
  await other.page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await other.page.locator('input[name="user"]').waitFor();
  expect(await survey(other.page).count()).toBe(0);
});
