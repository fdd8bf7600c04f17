import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// View settings follow the user (issue 28): view mode and sort are kept in the server-side ui_settings, so a new
// browser context (another device, empty localStorage) opens the folder the same way.

test("view settings: list view and sort by date, descending, come back in a new browser context", async ({ page, browser, server }) => {
  const api = await adminApi(server);
  // Start from the defaults whatever an earlier file left (the administrator's account is shared by every file).
  await api.call("/api/user/ui_settings", { method: "PATCH", json: { mamView: null, mamSort: null, mamOrder: null } });
  const folderId = await api.createGroup(ROOT, `Вид ${Date.now()}`);
  await api.uploadAsset(folderId, "а-первый.txt", Buffer.from("1"), "text/plain");

  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}`);
  await page.locator("[data-member]").first().waitFor();
  await page.getByRole("button", { name: "Список" }).click();
  await page.getByLabel("Сортировка").selectOption("mtime");
  await page.getByTitle("По возрастанию").click();
  await expect.poll(() => page.getByRole("button", { name: "Список" }).getAttribute("aria-pressed")).toBe("true");
  await expect
    .poll(async () => (await api.call<Record<string, string>>("/api/user/ui_settings")).mamView)
    .toBe("list");

  const other = await newPage(browser, { server });
  await login(other.page, server.adminLogin, server.adminPassword);
  await other.page.goto(`/mam/${folderId}`);
  await expect.poll(() => other.page.getByRole("button", { name: "Список" }).getAttribute("aria-pressed")).toBe("true");
  expect(await other.page.getByLabel("Сортировка").inputValue()).toBe("mtime");
  await other.page.getByTitle("По убыванию").waitFor();
  expect(await api.call<Record<string, string>>("/api/user/ui_settings")).toMatchObject({ mamView: "list", mamSort: "mtime", mamOrder: "desc" });

  // Back to the grid on the second device; the first one shows the grid after a reload.
  await other.page.getByRole("button", { name: "Плитка" }).click();
  await expect.poll(async () => (await api.call<Record<string, string>>("/api/user/ui_settings")).mamView).toBe("grid");
  await page.reload();
  await expect.poll(() => page.getByRole("button", { name: "Плитка" }).getAttribute("aria-pressed")).toBe("true");
  // The administrator's account is shared by every e2e file: leave its view as it was.
  await api.call("/api/user/ui_settings", { method: "PATCH", json: { mamView: null, mamSort: null, mamOrder: null } });
});
