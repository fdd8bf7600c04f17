import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, test } from "./fixtures";
import { png } from "./png";

const heading = (page: Page) => page.locator("h1").textContent();

async function createFolder(page: Page, name: string) {
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Создать папку" });
  await dialog.getByLabel("Название папки").fill(name);
  await dialog.getByRole("button", { name: "Создать" }).click();
  await dialog.waitFor({ state: "detached" });
}

test("folders and files: create, open, rename, move, upload, view, download, delete and restore", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Проекты 2026 🎬 ${Date.now()}`;

  // Mam: create a top-level folder and open it.
  await createFolder(page, folder);
  await page.getByRole("link", { name: folder }).click();
  await expect.poll(() => heading(page)).toBe(folder);
  await page.getByText("В этой папке пока ничего нет").waitFor();
  expect(await page.locator(".breadcrumbs").textContent()).toContain("Доступные Файлы");

  // Subfolders: create two, rename one, move it into the other.
  await createFolder(page, "Исходники");
  await createFolder(page, "Архив");
  // A tile's single actions are in its menu (its hover cluster is the star and «⋯»).
  await page.locator("[data-member]", { hasText: "Исходники" }).click({ button: "right" });
  await page.getByRole("menu", { name: "Действия: Исходники" }).getByRole("menuitem", { name: "Переименовать" }).click();
  const rename = page.getByRole("dialog", { name: "Переименовать" });
  await rename.getByLabel("Новое название").fill("Исходники RAW");
  await rename.getByRole("button", { name: "Сохранить" }).click();
  await page.locator("[data-member]", { hasText: "Исходники RAW" }).waitFor();

  await page.locator("[data-member]", { hasText: "Исходники RAW" }).click({ button: "right" });
  await page.getByRole("menu", { name: "Действия: Исходники RAW" }).getByRole("menuitem", { name: "Переместить" }).click();
  const move = page.getByRole("dialog", { name: "Переместить в папку" });
  await move.locator(".tree-row", { hasText: /^Архив$/ }).click();
  await move.getByRole("button", { name: "Переместить сюда" }).click();
  await page.locator("[data-member]", { hasText: "Исходники RAW" }).waitFor({ state: "detached" });

  // Upload a file with real bytes; it appears with its image icon or thumbnail.
  const bytes = png();
  await page.getByTestId("upload-input").setInputFiles({ name: "кадр «первый».png", mimeType: "image/png", buffer: bytes });
  const tile = page.locator("[data-member]", { hasText: "кадр «первый».png" });
  await tile.waitFor();
  await tile.locator(".thumb-image").waitFor();

  // Viewer: the image decodes, the info panel shows the size, and the download returns the same bytes.
  await tile.getByRole("link", { name: "кадр «первый».png" }).click();
  // The viewer's loader and the file's info are two round trips; on a busy machine that is more than poll's 1 s.
  await expect.poll(() => heading(page), { timeout: 10_000 }).toBe("кадр «первый».png");
  await expect.poll(() => page.locator(".player img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(64);
  // The file's facts come first; the technical fields join them as a second list once extracted.
  expect(await page.locator(".info-list").first().textContent()).toContain("image/png");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Скачать" }).first().click()]);
  expect(download.suggestedFilename()).toBe("кадр «первый».png");
  expect(Buffer.compare(await readFile((await download.path())!), bytes)).toBe(0);

  // Delete to the trash and restore it.
  await page.getByRole("button", { name: "Удалить" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Удалить" }).click();
  await expect.poll(() => heading(page)).toBe(folder);
  await page.locator("[data-member]", { hasText: "кадр «первый».png" }).waitFor({ state: "detached" });
  await page.getByRole("link", { name: "Корзина" }).click();
  const trashed = page.locator("[data-member]", { hasText: "кадр «первый».png" });
  await trashed.getByRole("button", { name: "Восстановить" }).click();
  await trashed.waitFor({ state: "detached" });
  await page.goto("/mam");
  await page.getByRole("link", { name: folder }).click();
  await page.locator("[data-member]", { hasText: "кадр «первый».png" }).waitFor();
  // The moved subfolder lives in 'Архив' now.
  await page.locator("[data-member]", { hasText: "Архив" }).getByRole("link", { name: "Архив" }).first().click();
  await page.locator("[data-member]", { hasText: "Исходники RAW" }).waitFor();
});

test("a top-level folder made while the root has more folders than one page is listed first, not lost past the page", async ({ page, server }) => {
  const api = await adminApi(server);
  // More top-level folders than the root's first page (50), all sorting before the new one and after every other
  // test's folders («Я…»), so no other test's folder is pushed off the first page by them.
  const stamp = Date.now();
  await Promise.all(Array.from({ length: 52 }, (_, i) => api.createGroup(ROOT, `Яя ${stamp} ${String(i).padStart(2, "0")}`)));
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/mam");
  await page.getByRole("link", { name: "Показать ещё" }).waitFor();
  const made = `Яяя последняя ${stamp}`;
  await createFolder(page, made);
  const row = page.locator("tbody tr").first();
  await expect.poll(() => row.getByRole("link").textContent()).toBe(made);
  await row.getByRole("link", { name: made }).click();
  await expect.poll(() => heading(page)).toBe(made);
});
