import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// Screens that know what the user may do (issue 13): a user with only read on a folder sees every change refused
// before the click, with the reason; the administrator gets every action, a context menu, select-all, shift ranges,
// arrow keys in the grid and ←/→/Esc in the viewer.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A button offered but refused: aria-disabled, with the reason as its tooltip. */
async function expectRefused(button: Locator, reason: string) {
  expect(await button.getAttribute("aria-disabled")).toBe("true");
  expect(await button.getAttribute("title")).toBe(reason);
}

async function expectAllowed(button: Locator) {
  expect(await button.getAttribute("aria-disabled")).toBeNull();
}

interface Library {
  folder: string;
  folderId: string;
  files: string[];
  fileIds: string[];
  sub: string;
}

/** A top-level folder with a sub-folder and three small text files (names sort in this order). */
async function seedLibrary(api: AdminApi, stamp: number): Promise<Library> {
  const folder = `Права ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const sub = "Вложенная";
  await api.createGroup(folderId, sub);
  const files = ["кадр-1.txt", "кадр-2.txt", "кадр-3.txt"];
  const fileIds: string[] = [];
  for (const name of files) fileIds.push(await api.uploadAsset(folderId, name, Buffer.from(`${name} ${stamp}\n`), "text/plain"));
  return { folder, folderId, files, fileIds, sub };
}

/** A user whose only rule is read on the folder. */
async function seedReader(api: AdminApi, stamp: number, folderId: string) {
  const reader = { name: `Ирина Читатель ${stamp}`, login: `irina-${stamp}`, password: "пароль-ирины-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: reader.name, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });
  return reader;
}

async function openFolder(page: Page, lib: Library) {
  await page.goto(`/mam/${lib.folderId}`);
  for (const name of lib.files) await page.locator("[data-member]", { hasText: name }).waitFor();
}

test("a read-only user is offered no change: every action is disabled with its reason", async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const lib = await seedLibrary(api, stamp);
  const reader = await seedReader(api, stamp, lib.folderId);
  const { page } = await newPage(browser, { server });
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page, reader.login, reader.password);

  // The top-level folder: rename, move and delete refused, no 'Доступ'; the context menu says the same.
  const row = page.locator(`tr[data-member="${lib.folderId}"]`);
  await row.waitFor();
  await expectRefused(row.getByRole("button", { name: `Переименовать: ${lib.folder}` }), "Нет права на изменение этой папки");
  await expectRefused(row.getByRole("button", { name: `Переместить: ${lib.folder}` }), "Нет права перемещать эту папку");
  await expectRefused(row.getByRole("button", { name: `Удалить: ${lib.folder}` }), "Нет права на удаление этой папки");
  expect(await row.getByRole("button", { name: `Доступ: ${lib.folder}` }).count()).toBe(0);
  await row.click({ button: "right" });
  const rootMenu = page.getByRole("menu", { name: `Действия: ${lib.folder}` });
  await expectRefused(rootMenu.getByRole("menuitem", { name: "Переименовать" }), "Нет права на изменение этой папки");
  await expectRefused(rootMenu.getByRole("menuitem", { name: "Удалить" }), "Нет права на удаление этой папки");
  await shot(page, "rights-reader-root-menu");
  await page.keyboard.press("Escape");
  await rootMenu.waitFor({ state: "detached" });

  // Inside: no upload, no new folder, no rename/move/delete of a file, nor in the bulk bar.
  await openFolder(page, lib);
  await expectRefused(page.getByRole("button", { name: "Загрузить", exact: true }), "Нет права на запись в эту папку");
  await expectRefused(page.getByRole("button", { name: "Создать папку" }), "Нет права на запись в эту папку");
  await page.getByText("Только просмотр").waitFor();
  await shot(page, "rights-reader-folder-toolbar");
  await page.getByRole("button", { name: "Создать папку" }).click({ force: true }); // a click on it does nothing
  expect(await page.getByRole("dialog").count()).toBe(0);
  // A tile's own cluster is the star and «⋯»; every action is in the item's menu, refused ones with their reason.
  const file = page.locator("[data-member]", { hasText: lib.files[0] });
  await file.click({ button: "right" });
  const fileMenu = page.getByRole("menu", { name: `Действия: ${lib.files[0]}` });
  await expectRefused(fileMenu.getByRole("menuitem", { name: "Переименовать" }), "Нет права на изменение этого файла");
  await expectRefused(fileMenu.getByRole("menuitem", { name: "Переместить" }), "Нет права перемещать из этой папки");
  await expectRefused(fileMenu.getByRole("menuitem", { name: "Загрузить новую версию" }), "Нет права добавлять версии этого файла");
  await expectRefused(fileMenu.getByRole("menuitem", { name: "Удалить" }), "Нет права на удаление этого файла");
  await page.keyboard.press("Escape");
  await fileMenu.waitFor({ state: "detached" });
  await file.getByRole("checkbox").check();
  const bulk = page.getByRole("toolbar", { name: "Действия с выбранными" });
  await expectRefused(bulk.getByRole("button", { name: "Переместить" }), "Нет права перемещать из этой папки");
  await expectRefused(bulk.getByRole("button", { name: "Теги" }), "Нет права менять теги этого файла");
  await expectRefused(bulk.getByRole("button", { name: "Удалить" }), "Нет права на удаление этого файла");
  await shot(page, "rights-reader-folder");
  await file.getByRole("checkbox").uncheck();

  // The viewer: rename, copy, tags, delete and download refused; no share, no access.
  await file.getByRole("link", { name: lib.files[0], exact: true }).click();
  await page.locator("h1", { hasText: lib.files[0] }).waitFor();
  await expectRefused(page.getByRole("button", { name: "Переименовать" }), "Нет права на изменение этого файла");
  await expectRefused(page.getByRole("button", { name: "Копировать" }), "Нет права на скачивание этого файла, а значит и на копирование");
  await expectRefused(page.getByRole("button", { name: "Удалить" }), "Нет права на удаление этого файла");
  await expectRefused(page.getByRole("button", { name: "Изменить теги" }), "Нет права менять теги этого файла");
  await expectRefused(page.getByRole("button", { name: "Скачать" }).first(), "Нет права на скачивание этого файла");
  await page.getByText("У этого файла нет копии для просмотра на экране").waitFor(); // only the original: no link is asked for
  expect(await page.getByRole("button", { name: "Поделиться" }).count()).toBe(0);
  expect(await page.getByRole("button", { name: "Доступ", exact: true }).count()).toBe(0);
  await shot(page, "rights-reader-viewer");

  // On a phone the same refusals hold.
  await page.setViewportSize({ width: 390, height: 844 });
  await openFolder(page, lib);
  await expectRefused(page.getByRole("button", { name: "Загрузить", exact: true }), "Нет права на запись в эту папку");
  await shot(page, "rights-reader-folder-phone");
});

test("the administrator gets every action, a context menu that renames, Ctrl+A, shift ranges and keys", async ({ page, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const lib = await seedLibrary(api, stamp);
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page, server.adminLogin, server.adminPassword);

  // Top-level folders have their actions too, 'Доступ' included.
  const row = page.locator(`tr[data-member="${lib.folderId}"]`);
  await row.waitFor();
  for (const action of ["Переименовать", "Переместить", "Удалить", "Доступ"]) {
    await expectAllowed(row.getByRole("button", { name: `${action}: ${lib.folder}` }));
  }
  await row.click({ button: "right" });
  const rootMenu = page.getByRole("menu", { name: `Действия: ${lib.folder}` });
  await expectAllowed(rootMenu.getByRole("menuitem", { name: "Переименовать" }));
  await shot(page, "rights-admin-root-menu");
  await rootMenu.getByRole("menuitem", { name: "Переименовать" }).click();
  const renameTop = page.getByRole("dialog", { name: "Переименовать" });
  lib.folder = `${lib.folder} (ред.)`;
  await renameTop.getByLabel("Новое название").fill(lib.folder);
  await renameTop.getByRole("button", { name: "Сохранить" }).click();
  await page.getByRole("link", { name: lib.folder }).waitFor();

  // In the folder every action is offered.
  await openFolder(page, lib);
  await expectAllowed(page.getByRole("button", { name: "Загрузить", exact: true }));
  await expectAllowed(page.getByRole("button", { name: "Создать папку" }));
  expect(await page.getByText("Только просмотр").count()).toBe(0);
  const first = page.locator("[data-member]", { hasText: lib.files[0] });

  // Right click → 'Переименовать' renames the file.
  await first.click({ button: "right" });
  const menu = page.getByRole("menu", { name: `Действия: ${lib.files[0]}` });
  for (const item of ["Открыть", "Открыть в редакторе", "Переименовать", "Переместить", "Теги", "Загрузить новую версию", "Удалить"]) {
    await expectAllowed(menu.getByRole("menuitem", { name: item, exact: true }));
  }
  await shot(page, "rights-admin-folder-menu");
  await menu.getByRole("menuitem", { name: "Переименовать" }).click();
  const rename = page.getByRole("dialog", { name: "Переименовать" });
  await rename.getByLabel("Новое название").fill("кадр-0.txt");
  await rename.getByRole("button", { name: "Сохранить" }).click();
  await page.locator("[data-member]", { hasText: "кадр-0.txt" }).waitFor();
  expect((await api.call<{ name: string }>(`/api/asset/${lib.fileIds[0]}`)).name).toBe("кадр-0.txt");
  lib.files[0] = "кадр-0.txt";

  // Ctrl+A selects the four items, Esc clears; a shift-click selects a range.
  const bulkCount = page.getByRole("toolbar", { name: "Действия с выбранными" }).getByText(/Выбрано: \d+/);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Control+a");
  expect(await bulkCount.textContent()).toBe("Выбрано: 4");
  await shot(page, "rights-admin-select-all");
  await page.keyboard.press("Escape");
  await bulkCount.waitFor({ state: "detached" });
  await page.locator("[data-member]", { hasText: lib.sub }).getByRole("checkbox").click();
  await page.locator("[data-member]", { hasText: lib.files[1] }).getByRole("checkbox").click({ modifiers: ["Shift"] });
  expect(await bulkCount.textContent()).toBe("Выбрано: 3");
  expect(await page.locator("[data-member]", { hasText: lib.files[2] }).getByRole("checkbox").isChecked()).toBe(false);
  await page.keyboard.press("Escape");

  // Arrow keys move between items, Enter opens.
  await page.locator("[data-member]", { hasText: lib.sub }).locator("[data-focus-target]").focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(lib.files[1]);
  await page.keyboard.press("Enter");
  await page.waitForURL((url) => url.pathname === `/mam/${lib.folderId}/asset/${lib.fileIds[1]}`);
  await page.locator("h1", { hasText: lib.files[1] }).waitFor();

  // In the viewer ←/→ go through the folder's files, Esc goes back to the folder.
  await page.getByText("2 из 3").waitFor();
  await shot(page, "rights-admin-viewer");
  await page.keyboard.press("ArrowRight");
  await page.waitForURL((url) => url.pathname.endsWith(`/asset/${lib.fileIds[2]}`));
  await page.locator("h1", { hasText: lib.files[2] }).waitFor();
  await page.getByText("3 из 3").waitFor();
  await page.keyboard.press("ArrowLeft");
  await page.waitForURL((url) => url.pathname.endsWith(`/asset/${lib.fileIds[1]}`));
  await page.getByText("2 из 3").waitFor();
  await page.keyboard.press("ArrowLeft");
  await page.waitForURL((url) => url.pathname.endsWith(`/asset/${lib.fileIds[0]}`));
  await page.locator("h1", { hasText: lib.files[0] }).waitFor();
  await page.getByText("1 из 3").waitFor();
  await page.keyboard.press("Escape");
  await page.waitForURL((url) => url.pathname === `/mam/${lib.folderId}`);

  await page.setViewportSize({ width: 390, height: 844 });
  await openFolder(page, lib);
  await shot(page, "rights-admin-folder-phone");
});
