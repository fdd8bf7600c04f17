import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { unzipSync } from "fflate";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// «Скачать» on the folder's selection bar: files and folders picked together come down as one ZIP the browser saves
// natively (a signed link from POST /api/zip), folders with their paths; the folder toolbar offers the whole folder.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

test("selection bar «Скачать»: a file and a sub-folder picked together come down as one ZIP with paths", async ({ page, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Архив ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const subId = await api.createGroup(folderId, "День 1");
  await api.uploadAsset(folderId, "смета.txt", Buffer.from("смета\n"), "text/plain");
  await api.uploadAsset(folderId, "лишний.txt", Buffer.from("не выбран\n"), "text/plain");
  await api.uploadAsset(subId, "кадр.txt", Buffer.from("кадр\n"), "text/plain");

  await login(page, server.adminLogin, server.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${folderId}`);
  await page.locator("[data-member]", { hasText: "смета.txt" }).waitFor();
  await page.getByRole("checkbox", { name: "Выбрать: смета.txt" }).check({ force: true });
  await page.getByRole("checkbox", { name: "Выбрать: День 1" }).check({ force: true });
  const button = page.locator(".bulk-bar").getByTestId("zip-download");
  await button.waitFor();
  await shot(page, "zip-selection-bar-1440");
  const [download] = await Promise.all([page.waitForEvent("download"), button.click()]);
  expect(download.suggestedFilename()).toMatch(/\.zip$/);
  const files = unzipSync(new Uint8Array(await readFile((await download.path())!)));
  expect(Object.keys(files).sort()).toEqual(["День 1/кадр.txt", "смета.txt"]);
  expect(new TextDecoder().decode(files["День 1/кадр.txt"])).toBe("кадр\n");

  // The folder's own «Скачать папку» (selection cleared): everything below it, under the folder's name.
  await page.locator(".bulk-bar").getByRole("button", { name: "Снять выделение" }).click();
  await page.getByTestId("folder-zip").waitFor();
  await shot(page, "zip-folder-toolbar-1440");
  const [whole] = await Promise.all([page.waitForEvent("download"), page.getByTestId("folder-zip").click()]);
  expect(whole.suggestedFilename()).toBe(`${folder}.zip`);
  const all = unzipSync(new Uint8Array(await readFile((await whole.path())!)));
  expect(Object.keys(all).sort()).toEqual([`${folder}/День 1/кадр.txt`, `${folder}/лишний.txt`, `${folder}/смета.txt`]);


  // On a phone the bar folds into «Ещё»; «Скачать» is there for the selection, «Скачать папку» for the folder.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.locator("[data-member]", { hasText: "смета.txt" }).waitFor();
  await shot(page, "zip-folder-toolbar-390");
  await page.getByRole("checkbox", { name: "Выбрать: смета.txt" }).check({ force: true });
  await page.locator(".bulk-bar").waitFor();
  await shot(page, "zip-selection-bar-390");
  const more = page.locator(".bulk-bar").getByRole("button", { name: "Ещё" });
  if (await more.isVisible()) {
    await more.click();
    await page.getByRole("menuitem", { name: "Скачать", exact: true }).waitFor();
    await shot(page, "zip-selection-more-390");
  } else await page.locator(".bulk-bar").getByTestId("zip-download").waitFor();
});

test("a link's top folder holding only sub-folders offers «Скачать папку (ZIP)» to an anonymous visitor", async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const top = `Проект ${stamp}`;
  const topId = await api.createGroup(ROOT, top);
  const dayId = await api.createGroup(topId, "Съёмка");
  await api.uploadAsset(dayId, "план.txt", Buffer.from("план\n"), "text/plain");
  const res = await fetch(new URL(`/api/sl/create/${topId}`, server.baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${api.bearer}`, "content-type": "application/json" },
    body: JSON.stringify({ acl: ["read", "download"] }),
  });
  const url = await res.text();
  expect(res.status, url).toBe(200);
  const { page } = await newPage(browser, { server });
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await page.goto(new URL(url).pathname);
    await page.locator("h1", { hasText: top }).waitFor();
    await page.getByTestId("shared-zip").waitFor();
    await shot(page, `zip-link-top-${width}`);
  }
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("shared-zip").click()]);
  const files = unzipSync(new Uint8Array(await readFile((await download.path())!)));
  expect(Object.keys(files)).toEqual([`${top}/Съёмка/план.txt`]);
});
