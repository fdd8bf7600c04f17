import type { BrowserContextOptions, Page } from "playwright-core";
import { beforeAll } from "vitest";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { e2eServer, expect, login, newPage, test } from "./fixtures";
import { png } from "./png";

// A day of real use on a phone (issue 28): at 390 × 844 the metadata admin, the text editor, a folder of tiles and
// the jobs list fit the screen (no sideways scroll), the jobs show their status, a tile's actions are one «⋯» button;
// and a password link's form is an ordinary page (no 401 in the console).

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let api: AdminApi;
let folderId: string;
let textId: string;
let lockedLink: string;
let collectionId: string;

beforeAll(async () => {
  const server = e2eServer();
  api = await adminApi(server);
  const stamp = Date.now();
  folderId = await api.createGroup(ROOT, `Телефон без трения ${stamp}`);
  await api.uploadAsset(folderId, "кадр.png", png(320, 200, 40), "image/png");
  const long = `${"Очень длинная строка без переносов, которую редактор на телефоне должен переносить. ".repeat(6)}\nвторая строка\n`;
  textId = await api.uploadAsset(folderId, "длинные строки.txt", Buffer.from(long), "text/plain");
  collectionId = (await api.call<{ collection_id: string }>("/api/collections", { json: { name: `Отбор на телефоне ${stamp}` } })).collection_id;
  await api.call(`/api/collections/${collectionId}/items`, { json: { asset_ids: [textId] } });
  await api.call("/api/fields/template", {
    json: { field_def_name: `Правообладатель с длинным названием ${stamp}`, field_type: "text", field_def_extsys: "xmp", field_def_extsys_key: "XMP.dc.rights.long.key" },
  });
  const res = await fetch(new URL(`/api/sl/create/${folderId}`, server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${api.bearer}` },
    body: JSON.stringify({ password: "тайна-телефона" }),
  });
  if (!res.ok) throw new Error(`shortlink: ${res.status}`);
  lockedLink = new URL(await res.text()).pathname;
});

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/**
 * The page's own actions are one row of chips that scrolls sideways inside itself: the row fits the screen, the page
 * does not scroll sideways, and the last chip is reached by scrolling the row.
 */
async function expectOneChipRow(page: Page) {
  const chips = page.locator(".group-page > .access-entry");
  const chipRow = (await chips.boundingBox())!;
  expect(chipRow.x).toBeGreaterThanOrEqual(0);
  expect(chipRow.x + chipRow.width).toBeLessThanOrEqual(390);
  expect(chipRow.height).toBeLessThanOrEqual(40);
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  const last = chips.locator(":scope > *").last();
  await last.scrollIntoViewIfNeeded();
  const lastBox = (await last.boundingBox())!;
  expect(lastBox.x + lastBox.width).toBeLessThanOrEqual(390);
}

test("at 390 px the metadata admin, the editor, a folder, a collection, the search tabs and the jobs fit the screen; jobs show their status", async ({ browser, server }) => {
  const { page } = await newPage(browser, { server, contextOptions: PHONE });
  await login(page, server.adminLogin, server.adminPassword);

  await page.goto("/admin/metadata");
  await page.locator("table.md-table").waitFor();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);

  await page.goto(`/editor/${textId}`);
  const area = page.getByRole("textbox", { name: "Текст файла" });
  await area.waitFor();
  await expect.poll(() => area.inputValue()).toContain("вторая строка");
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  // Long lines wrap: the text area never scrolls sideways.
  expect(await area.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  await page.goto(`/mam/${folderId}`);
  const tile = page.locator("[data-member]", { hasText: "кадр.png" });
  await tile.waitFor();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  // One «⋯» per tile, opening the file's menu; the single-action icons stay out of the way.
  expect(await tile.getByRole("button", { name: "Удалить: кадр.png" }).isVisible()).toBe(false);
  await tile.getByRole("button", { name: "Другие действия: кадр.png" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "Переименовать" }).waitFor();
  await page.keyboard.press("Escape");
  await expectOneChipRow(page);
  // A collection's actions (views, role, share, rename, ZIP, CSV, delete) are the same one row.
  await page.goto(`/collections/${collectionId}`);
  await page.getByTestId("collection-title").waitFor();
  await expectOneChipRow(page);
  // The search page's four tabs fit without scrolling («Похожие» stands for «Похожие по смыслу», its name unchanged).
  await page.goto("/search?q=кадр");
  const tabs = page.locator(".search-tabs");
  await tabs.getByRole("button", { name: "Похожие по смыслу" }).waitFor();
  expect(await tabs.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  expect(await tabs.getByRole("button", { name: "Спросить" }).isVisible()).toBe(true);

  await page.goto("/jobs");
  const row = page.locator("[data-task]").first();
  await row.waitFor();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  const status = row.locator(".job-status");
  expect(await status.isVisible()).toBe(true);
  const box = await status.boundingBox();
  expect(box && box.x + box.width <= 390).toBe(true);
});

test("a password link's form and a wrong password log no console errors", async ({ page }) => {
  // The fixture page fails the test on any console error (a 401 document is one).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(lockedLink);
  await page.getByTestId("shared-password").waitFor();
  await page.getByLabel("Пароль").fill("не та");
  await page.getByRole("button", { name: "Открыть" }).click();
  await page.getByText("Неверный пароль").waitFor();
});
