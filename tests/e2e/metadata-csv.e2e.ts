import type { BrowserContextOptions, Page } from "playwright-core";
import Papa from "papaparse";
import { beforeAll } from "vitest";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { e2eServer, expect, login, newPage, test } from "./fixtures";
import { png } from "./png";

// Metadata out of the box and in bulk: on a fresh file the viewer offers the default set («Описание» and its
// siblings) and saves a value; a folder's «Экспорт CSV» downloads its files' fields and «Импорт CSV» shows the dry
// run's table (rows, changes, per-row errors) before «Применить», then the task's progress — at 1440 and at 390 px.

/** Set METADATA_CSV_SHOTS=/some/dir to keep screenshots of these screens (for looking at them, not asserted). */
async function shot(page: Page, name: string) {
  const dir = process.env.METADATA_CSV_SHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

const DESKTOP: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let api: AdminApi;
let folderId: string;
let folderName: string;
let assetId: string;

beforeAll(async () => {
  api = await adminApi(e2eServer());
  folderName = `CSV ${Date.now()}`;
  folderId = await api.createGroup(ROOT, folderName);
  assetId = await api.uploadAsset(folderId, "кадр.png", png(320, 200, 40), "image/png");
  await api.uploadAsset(folderId, "второй.png", png(320, 200, 90), "image/png");
});

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

test("a fresh file's metadata editor offers «Описание» from the default set and saves it", async ({ browser, server }) => {
  const { page } = await newPage(browser, { server, contextOptions: DESKTOP });
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}/asset/${assetId}`);
  const panel = page.getByRole("region", { name: "Метаданные" });
  await panel.locator('[data-field="Описание"]').waitFor();
  for (const name of ["Заголовок", "Ключевые слова", "Автор", "Авторские права", "Дата съёмки", "Место"]) await panel.locator(`[data-field="${name}"]`).waitFor();
  await panel.getByRole("button", { name: "Изменить" }).click();
  await panel.getByLabel("Описание").fill("Закат над морем, съёмка с дрона");
  await shot(page, "default-set-editing-1440");
  await panel.getByRole("button", { name: "Сохранить" }).click();
  await panel.getByRole("button", { name: "Изменить" }).waitFor();
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.getByRole("region", { name: "Метаданные" }).locator('[data-field="Описание"]').getByText("Закат над морем, съёмка с дрона").waitFor();
});

/** Opens the folder's «CSV» dialog, downloads the export and answers an edited copy of it. */
async function exportAndEdit(page: Page): Promise<string> {
  await page.getByTestId("csv-open").click();
  const dialog = page.getByRole("dialog", { name: "Метаданные в CSV" });
  const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("csv-export").click()]);
  const path = await download.path();
  const text = (await import("node:fs")).readFileSync(path, "utf8");
  expect(text.startsWith("\uFEFFasset_id,name,path,")).toBe(true);
  expect(text).toContain(assetId);
  const rows = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true }).data;
  const header = rows[0];
  const col = header.indexOf("Заголовок");
  expect(col).toBeGreaterThan(2);
  // The file's row with a new title (a comma in it: quoted), and a row naming a file that does not exist.
  const row = [...rows.find((r) => r[0] === assetId)!];
  row[col] = "Кадр, первый";
  const bad = header.map((_, i) => (i === 0 ? "b".repeat(32) : ""));
  return Papa.unparse([header, row, bad]);
}

test("at 1440 px: export a folder's CSV, check an edited file in the dry-run table, apply it", async ({ browser, server }) => {
  const { page } = await newPage(browser, { server, contextOptions: DESKTOP });
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}`);
  await page.locator("[data-member]", { hasText: "кадр.png" }).waitFor();
  const body = await exportAndEdit(page);
  await shot(page, "folder-with-csv-buttons-1440");

  const dialog = page.getByRole("dialog", { name: "Метаданные в CSV" });
  await dialog.getByTestId("csv-file").setInputFiles({ name: "правка.csv", mimeType: "text/csv", buffer: Buffer.from(body) });
  const summary = dialog.getByTestId("csv-summary");
  await summary.waitFor();
  expect(await summary.textContent()).toContain("Строк2");
  expect(await summary.textContent()).toContain("1 в 1 строках");
  const errors = dialog.getByTestId("csv-errors");
  expect(await errors.textContent()).toContain("3Файл не найден");
  await shot(page, "csv-dry-run-1440");

  await dialog.getByTestId("csv-apply").click();
  await dialog.getByText("Готово: изменения применены").waitFor({ timeout: 30_000 });
  await shot(page, "csv-applied-1440");
  await page.goto(`/mam/${folderId}/asset/${assetId}`);
  await page.getByRole("region", { name: "Метаданные" }).locator('[data-field="Заголовок"]').getByText("Кадр, первый").waitFor();
});

test("at 390 px: the CSV buttons and the dry-run table fit the screen", async ({ browser, server }) => {
  const { page } = await newPage(browser, { server, contextOptions: PHONE });
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}`);
  await page.locator("[data-member]", { hasText: "кадр.png" }).waitFor();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  const body = await exportAndEdit(page);
  const dialog = page.getByRole("dialog", { name: "Метаданные в CSV" });
  await dialog.getByTestId("csv-file").setInputFiles({ name: "правка.csv", mimeType: "text/csv", buffer: Buffer.from(body) });
  await dialog.getByTestId("csv-errors").waitFor();
  expect(await pageWidth(page)).toBeLessThanOrEqual(390);
  await shot(page, "csv-dry-run-390");
});
