import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { png } from "./png";

// Issue 24: a folder shared deep in someone's tree is on the reader's «Доступные Файлы», «Просмотр» shows the picture
// and nothing offered fails; an anonymous visitor walks a folder link into its sub-folders.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function expectRefused(button: Locator, reason: string) {
  expect(await button.getAttribute("aria-disabled")).toBe("true");
  expect(await button.getAttribute("title")).toBe(reason);
}

/** Every answer of 400 or more the page received (its API calls, media, thumbnails). */
function failedRequests(page: Page): string[] {
  const failed: string[] = [];
  page.on("response", (response) => {
    // Chromium probes /favicon.ico on its own: browser behaviour, not the page's.
    if (response.status() >= 400 && new URL(response.url()).pathname !== "/favicon.ico")
      failed.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  return failed;
}

interface Projects {
  top: string;
  topId: string;
  shootsId: string;
  summerId: string;
  portraitId: string;
}

async function uploadPreview(server: E2EServer, api: AdminApi, assetId: string, size: "thumb" | "medium", bytes: Buffer) {
  const res = await fetch(new URL(`/api/asset/upload-preview/${assetId}?version=1&size=${size}`, server.baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${api.bearer}`, "content-type": "image/png" },
    body: new Uint8Array(bytes),
  });
  if (!res.ok) throw new Error(`upload-preview: ${res.status} ${await res.text()}`);
}

/** «Проекты 2026 …» › «Фотосессии» (a portrait with previews, a PDF) › «Лето» (a picture without a preview). */
async function seedProjects(server: E2EServer, api: AdminApi, stamp: number): Promise<Projects> {
  const top = `Проекты 2026 ${stamp}`;
  const topId = await api.createGroup(ROOT, top);
  const shootsId = await api.createGroup(topId, "Фотосессии");
  const summerId = await api.createGroup(shootsId, "Лето");
  const portraitId = await api.uploadAsset(shootsId, "Портрет.png", png(640, 480, 200), "image/png");
  await uploadPreview(server, api, portraitId, "thumb", png(320, 240, 200));
  await uploadPreview(server, api, portraitId, "medium", png(1280, 960, 200));
  await api.uploadAsset(shootsId, "Договор.pdf", Buffer.from("%PDF-1.4\n%%EOF\n"), "application/pdf");
  await api.uploadAsset(summerId, "Море.png", png(320, 200, 90), "image/png");
  return { top, topId, shootsId, summerId, portraitId };
}

test("a read-only user finds the shared folder on «Доступные Файлы», sees the picture and is offered nothing that fails", async ({
  browser,
  server,
}) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const p = await seedProjects(server, api, stamp);
  const reader = { name: `Олег Зритель ${stamp}`, login: `oleg-${stamp}`, password: "пароль-олега-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: reader.name, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: p.shootsId, acl: ["read"] } });

  const { page } = await newPage(browser, { server });
  const failed = failedRequests(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page, reader.login, reader.password);
  await page.goto("/mam");
  const row = page.locator(`tr[data-member="${p.shootsId}"]`);
  await row.waitFor();
  expect(await page.getByText(p.top).count()).toBe(0);
  await shot(page, "shared-reader-root");

  // Breadcrumbs go from the root straight to the shared folder.
  await row.getByRole("link", { name: "Фотосессии" }).click();
  await page.locator("[data-member]", { hasText: "Портрет.png" }).waitFor();
  const crumbs = page.locator(".breadcrumbs").first();
  expect(await crumbs.textContent()).not.toContain(p.top);
  await expectRefused(page.getByRole("button", { name: "Загрузить", exact: true }), "Нет права на запись в эту папку");
  await shot(page, "shared-reader-folder");

  // The viewer shows the picture (its screen-quality preview); originals and edits are refused with their reason.
  await page.locator("[data-member]", { hasText: "Портрет.png" }).getByRole("link", { name: "Портрет.png", exact: true }).click();
  await page.locator("h1", { hasText: "Портрет.png" }).waitFor();
  const picture = page.locator(".player-image img");
  await picture.waitFor();
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  // A screen rendition (the proxy processing made) or the 1280 px preview: never the original, which needs download.
  const shown = (await picture.getAttribute("src")) ?? "";
  const original = (await api.call<{ var: string }>(`/api/asset/${p.portraitId}`)).var;
  expect(shown).toMatch(/\/api\/asset\/content\/(stream|preview)\//);
  expect(shown).not.toContain(original);
  expect(await page.getByTestId("player-refused").count()).toBe(0);
  await expectRefused(page.getByRole("button", { name: "Скачать" }).first(), "Нет права на скачивание этого файла");
  await expectRefused(page.getByTestId("md-edit"), "Нет права менять поля этого файла");
  const versionDownload = page.locator(".variant-row").getByRole("button", { name: "Скачать" });
  await versionDownload.first().waitFor();
  await expectRefused(versionDownload.first(), "Нет права на скачивание этого файла");
  await expectRefused(page.getByRole("button", { name: "Переименовать" }), "Нет права на изменение этого файла");
  // A refused button does nothing when clicked: no call, no dialog.
  await page.getByTestId("md-edit").click({ force: true });
  expect(await page.locator("#md-class").count()).toBe(0);
  await shot(page, "shared-reader-viewer");

  // A phone: the same root and the same picture.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/mam");
  await page.locator(`tr[data-member="${p.shootsId}"]`).waitFor();
  await shot(page, "shared-reader-root-phone");
  await page.goto(`/mam/${p.shootsId}/asset/${p.portraitId}`);
  await page.locator(".player-image img").waitFor();
  await shot(page, "shared-reader-viewer-phone");

  expect(failed).toEqual([]);
});

test("an anonymous visitor opens a folder link, walks into a sub-folder and sees its files; expiry in their own time zone", async ({
  browser,
  server,
}) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const p = await seedProjects(server, api, stamp);
  const res = await fetch(new URL(`/api/sl/create/${p.topId}`, server.baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${api.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ acl: ["read", "download"], time_range: [null, "2030-01-15T10:00:00.000Z"] }),
  });
  const url = await res.text();
  expect(res.status, url).toBe(200);
  const path = new URL(url).pathname;

  // Vladivostok is UTC+10: the link ends at 20:00 there.
  const { page, errors } = await newPage(browser, { server, contextOptions: { timezoneId: "Asia/Vladivostok" } });
  // The hand-made URL of a folder outside the shared tree answers 404 on purpose (below).
  errors.expect(/status of 404.*\?folder=f{32}/);
  const failed = failedRequests(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(path);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.locator("h1", { hasText: p.top }).waitFor();
  await expect.poll(() => page.getByTestId("local-moment").textContent()).toContain("20:00");
  const folders = page.getByTestId("shared-folders");
  await folders.getByRole("link", { name: "Фотосессии" }).click();
  await page.locator("h1", { hasText: "Фотосессии" }).waitFor();
  await page.locator(".shared-tile", { hasText: "Портрет.png" }).waitFor();
  await page.locator(".shared-tile", { hasText: "Договор.pdf" }).waitFor();
  // The breadcrumbs lead back to the shared folder, never above it.
  const crumbs = page.locator(".shared-crumbs");
  expect(await crumbs.getByRole("link").allTextContents()).toEqual([p.top]);
  await expect
    .poll(() =>
      page
        .locator(".shared-tile img")
        .first()
        .evaluate((img: HTMLImageElement) => img.naturalWidth),
    )
    .toBe(320);
  await page.getByTestId("shared-zip").waitFor();
  await shot(page, "shared-visitor-folder");

  await page.getByTestId("shared-folders").getByRole("link", { name: "Лето" }).click();
  await page.locator("h1", { hasText: "Лето" }).waitFor();
  await page.locator(".shared-tile", { hasText: "Море.png" }).waitFor();
  expect(await page.locator(".shared-crumbs").getByRole("link").allTextContents()).toEqual([p.top, "Фотосессии"]);
  await page.locator(".shared-tile", { hasText: "Море.png" }).click();
  const dialog = page.getByRole("dialog", { name: "Море.png" });
  await expect.poll(() => dialog.locator("img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
  await shot(page, "shared-visitor-subfolder");
  await page.keyboard.press("Escape");

  // A folder outside the shared tree, put in the URL by hand, is not found.
  const outside = await page.goto(`${path}?folder=${ROOT}`);
  expect(outside?.status()).toBe(404);
  failed.splice(failed.indexOf(`404 ${path}`), 1);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${path}?folder=${p.shootsId}`);
  await page.locator(".shared-tile", { hasText: "Портрет.png" }).waitFor();
  await shot(page, "shared-visitor-folder-phone");
  expect(failed).toEqual([]);
});
