import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { ROOT_GROUP_ID } from "../../workers/lib/ids";
import { DOCX_MIME, XLSX_MIME, makeDocx, makeXlsx } from "../fixtures/office-docs";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { png } from "./png";

/**
 * Issue 26, text-card previews (decision 029): documents uploaded through the API (no browser made anything) show
 * an image thumbnail in the folder grid and on the shared-link page, a file with no preview shows its type's icon,
 * and neither page makes a single failing request.
 */

const SHOTS = process.env.E2E_SCREENSHOTS;
const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const enc = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function bearerOf(server: E2EServer): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: server.adminLogin, passwd: server.adminPassword }),
  });
  return ((await res.json()) as { bearer: string }).bearer;
}

async function upload(server: E2EServer, bearer: string, group: string, name: string, mime: string, body: Uint8Array<ArrayBuffer>) {
  const res = await fetch(`${server.baseUrl}/api/asset/upload?${new URLSearchParams({ in_group: group, name })}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": mime },
    body,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { asset_id: string }).asset_id;
}

/** Failing answers (≥ 400) of everything a page asks for. */
function failingResponses(page: Page): string[] {
  const failed: string[] = [];
  page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  page.on("requestfailed", (r) => !/ERR_ABORTED/.test(r.failure()?.errorText ?? "") && failed.push(`failed ${r.url()}`));
  return failed;
}

/** Whether a tile's thumbnail is a loaded image (scrolled into view first: thumbnails load when they are seen). */
async function tileImage(page: Page, selector: string, name: string): Promise<boolean> {
  const tile = page.locator(selector, { hasText: name });
  await tile.scrollIntoViewIfNeeded().catch(() => undefined);
  return tile
    .locator("img")
    .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)
    .catch(() => false);
}

test("a mixed folder shows text-card thumbnails for documents, icons for the rest, and no failing request", async ({ page, server, browser }) => {
  const bearer = await bearerOf(server);
  const made = await fetch(`${server.baseUrl}/api/group/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ parent: ROOT_GROUP_ID, group_name: `Документы ${Date.now()}` }),
  });
  const { group_id } = (await made.json()) as { group_id: string };
  const files: [string, string, Uint8Array<ArrayBuffer>][] = [
    ["Отчёт за квартал.docx", DOCX_MIME, makeDocx("Квартальный отчёт", ["Выручка выросла на 12 % за счёт новых клиентов.", "Расходы на аренду остались прежними."])],
    ["заметка.txt", "text/plain", enc("Список дел на неделю\n\n1. Позвонить в типографию\n2. Забрать макеты\n3. Отправить счета клиентам")],
    ["цены.csv", "text/csv", enc("Товар;Цена;Остаток\nЯблоки;120;40\nГруши;150;12\nСливы;200;7\n")],
    ["README.md", "text/markdown", enc("# Edge media manager\n\nA media library on **Workers**.\n\n## Start\n\nRun `npm start` and open the browser.")],
    ["Бюджет.xlsx", XLSX_MIME, makeXlsx("Бюджет", [["Статья", "Сумма"], ["Аренда", 120000], ["Реклама", 45000]])],
    ["документ.pdf", "application/pdf", new Uint8Array(readFileSync(join(FIXTURES, "three-pages.pdf")))],
    ["обложка.png", "image/png", new Uint8Array(png(640, 400, 200))],
    ["архив.bin", "application/octet-stream", enc("\u0000\u0001\u0002 не документ")],
  ];
  for (const [name, mime, bytes] of files) await upload(server, bearer, group_id, name, mime, bytes);

  // The previews are made by the upload's tasks; the listing says which files have one.
  const withPreview = ["Отчёт за квартал.docx", "заметка.txt", "цены.csv", "README.md", "Бюджет.xlsx", "документ.pdf", "обложка.png"];
  await expect
    .poll(
      async () => {
        const res = await fetch(`${server.baseUrl}/api/group/members/${group_id}?type=asset&take=50`, { headers: { authorization: `Bearer ${bearer}` } });
        const body = (await res.json()) as { items?: { el_info: { name: string; preview: string | null } }[] } | { el_info: { name: string; preview: string | null } }[];
        const items = Array.isArray(body) ? body : body.items ?? [];
        return items.filter((m) => m.el_info.preview).map((m) => m.el_info.name).sort();
      },
      { timeout: 60_000, interval: 1_000 },
    )
    .toEqual([...withPreview].sort());

  const failed = failingResponses(page);
  await login(page, server.adminLogin, server.adminPassword);
  for (const [width, height] of [[1440, 900], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    await page.goto(`/mam/${group_id}`);
    for (const name of withPreview) await expect.poll(() => tileImage(page, "[data-member]", name), { timeout: 15_000 }).toBe(true);
    // The file with no preview shows its icon: no <img>, and no request for one.
    expect(await page.locator("[data-member]", { hasText: "архив.bin" }).locator("img").count()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, `document-previews-${width}`);
  }
  expect(failed).toEqual([]);

  // The document's viewer shows its medium card.
  await page.setViewportSize({ width: 1440, height: 900 });
  const docx = page.locator("[data-member]", { hasText: "Отчёт за квартал.docx" });
  await docx.getByRole("link", { name: "Отчёт за квартал.docx", exact: true }).click();
  await page.getByTestId("document-preview").locator("img").waitFor();
  await shot(page, "document-previews-viewer-1440");
  expect(failed).toEqual([]);

  // The shared-link page of the folder: the same thumbnails, the icon for the rest, nothing failing.
  const created = await fetch(`${server.baseUrl}/api/sl/create/${group_id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(created.status).toBe(200);
  const url = await created.text();
  const visitor = await newPage(browser, { server });
  const visitorFailed = failingResponses(visitor.page);
  await visitor.page.setViewportSize({ width: 1440, height: 900 });
  await visitor.page.goto(url);
  for (const name of withPreview) await expect.poll(() => tileImage(visitor.page, ".shared-tile", name), { timeout: 15_000 }).toBe(true);
  expect(await visitor.page.locator(".shared-tile", { hasText: "архив.bin" }).locator("img").count()).toBe(0);
  await shot(visitor.page, "document-previews-shared-1440");
  expect(visitorFailed).toEqual([]);
});
