import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { openNewFolder } from "./library-steps";
import { atTwoWidths } from "./two-widths";

// Duplicates: uploading bytes the library already holds asks «Такой файл уже есть» (Открыть / Всё равно загрузить /
// Добавить как новую версию), and the administrators' «Дубликаты» page groups them with a keep-one action.
// Screenshots at 1440×900 and 390×844 go to E2E_SCREENSHOTS when it is set.

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mam-duplicates-e2e-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A small text file whose bytes are this test's own (`seed`): the e2e server is shared by every test file, so fixture
 * bytes would match other tests' uploads.
 */
async function fileAs(name: string, seed: string): Promise<string> {
  const target = join(dir, name);
  await writeFile(target, `Смета и отчёт для проверки дубликатов.\nОтметка: ${seed}\n`);
  return target;
}

const tile = (page: Page, name: string) => page.locator("[data-member]", { hasText: name });

async function api<T>(page: Page, server: E2EServer, path: string): Promise<T> {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" } });
  expect(res.status, path).toBe(200);
  return res.json() as Promise<T>;
}

test("the same file uploaded again asks «Такой файл уже есть»: upload anyway, new version, open", { timeout: 180_000 }, async ({ browser, server }) => {
  const { page } = await newPage(browser, { server, duplicateCheck: true });
  const stamp = Date.now();
  const seed = `первый ${stamp}`;
  const first = `Отчёт ${stamp}.txt`;
  await login(page, server.adminLogin, server.adminPassword);
  const folderA = await openNewFolder(page, `Дубли А ${stamp}`);
  await page.getByTestId("upload-input").setInputFiles(await fileAs(first, seed));
  await tile(page, first).waitFor({ timeout: 30_000 });

  await openNewFolder(page, `Дубли Б ${stamp}`);
  const copy = `Копия ${stamp}.txt`;
  await page.getByTestId("upload-input").setInputFiles(await fileAs(copy, seed));
  const dialog = page.getByRole("dialog", { name: "Такой файл уже есть" });
  await dialog.waitFor({ timeout: 30_000 });
  await expect.poll(() => dialog.textContent()).toContain(`Такой файл уже есть: «${first}»`);
  expect(await dialog.textContent()).toContain(`в папке «Дубли А ${stamp}»`);
  await atTwoWidths(page, "duplicates-upload-prompt");
  await dialog.getByRole("button", { name: "Всё равно загрузить" }).click();
  await dialog.waitFor({ state: "hidden" });
  await tile(page, copy).waitFor({ timeout: 30_000 });

  // «Добавить как новую версию»: the oldest copy gets version 2, nothing new appears here.
  await page.getByTestId("upload-input").setInputFiles(await fileAs(`Третья ${stamp}.txt`, seed));
  await dialog.waitFor({ timeout: 30_000 });
  await dialog.getByRole("button", { name: "Добавить как новую версию" }).click();
  await expect
    .poll(async () => (await api<{ el_info: { name: string; ver: number } }[]>(page, server, `/api/group/members/${folderA}?type=asset`)).map((m) => m.el_info.ver), {
      timeout: 30_000,
    })
    .toEqual([2]);
  expect(await tile(page, `Третья ${stamp}.txt`).count()).toBe(0);

  // «Открыть»: nothing is uploaded, the existing file opens.
  await page.getByTestId("upload-input").setInputFiles(await fileAs(`Четвёртая ${stamp}.txt`, seed));
  await dialog.waitFor({ timeout: 30_000 });
  await dialog.getByRole("button", { name: "Открыть" }).click();
  await expect.poll(() => page.locator("h1").textContent(), { timeout: 15_000 }).toBe(first);
  expect(new URL(page.url()).pathname).toMatch(/^\/asset\/[0-9a-f]{32}$/);
});

test("«Дубликаты» for administrators: the group of same files, «Оставить этот» moves the others to the trash", { timeout: 180_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const seed = `второй ${stamp}`;
  await login(page, server.adminLogin, server.adminPassword);
  // Two same files, uploaded without the question (this page has it off).
  await openNewFolder(page, `Дубли В ${stamp}`);
  const a = `Смета ${stamp}.txt`;
  const b = `Смета копия ${stamp}.txt`;
  await page.getByTestId("upload-input").setInputFiles([await fileAs(a, seed), await fileAs(b, seed)]);
  await tile(page, a).waitFor({ timeout: 30_000 });
  await tile(page, b).waitFor({ timeout: 30_000 });

  await page.goto("/admin/duplicates");
  await page.getByRole("link", { name: "Дубликаты" }).waitFor();
  const group = page.getByTestId("duplicate-group").filter({ hasText: b });
  await group.waitFor({ timeout: 15_000 });
  expect(await group.textContent()).toContain(a);
  await atTwoWidths(page, "duplicates-admin");
  const keepRow = group.locator(".dup-file", { hasText: b });
  await keepRow.getByRole("button", { name: "Оставить этот" }).click();
  const confirm = page.getByRole("dialog", { name: "Оставить этот" });
  await confirm.getByRole("button", { name: "Оставить этот" }).click();
  await group.waitFor({ state: "detached" });
  const trash = await api<{ name: string }[]>(page, server, "/api/asset/trash");
  expect(trash.map((t) => t.name)).toContain(a);
  expect(trash.map((t) => t.name)).not.toContain(b);
  await page.getByRole("tab", { name: "Похожие изображения" }).click();
  await page.getByText(/Сравнено изображений: \d+/).waitFor();
});
