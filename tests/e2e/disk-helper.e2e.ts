import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { inject } from "vitest";
import { startHelper } from "../../scripts/helper-process.mjs";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// «Открыть на компьютере» (issue 15): with the local disk helper running, the folder action hands it the token,
// mounts the folder and shows where it lives (the folder's file arrives on disk); with the helper stopped, the
// SPEC §8 toast carries the error text and the dialog says how to install and start it.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("the folder action mounts the folder through a running helper, and a stopped helper gets the install steps with «Подключить» off", async ({
  browser,
  server,
}) => {
  const port = inject("diskHelperPort");
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Диск ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  await api.uploadAsset(folderId, "Смета.txt", Buffer.from(`смета ${stamp}\n`), "text/plain");
  const root = await mkdtemp(join(tmpdir(), "mam-e2e-helper-"));
  const helper = await startHelper({ root, port, origin: server.baseUrl });
  try {
    const { page, errors } = await newPage(browser, { server });
    await page.setViewportSize({ width: 1440, height: 900 });
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`/mam/${folderId}`);
    await page.locator("[data-member]", { hasText: "Смета.txt" }).waitFor();

    await page.getByRole("button", { name: "Открыть на компьютере" }).click();
    const dialog = page.getByRole("dialog", { name: `Открыть на компьютере: ${folder}` });
    await dialog.getByText("Помощник запущен, версия").waitFor();
    await expect(dialog.getByRole("textbox", { name: "Имя папки на компьютере" }).inputValue()).resolves.toBe(folder);
    await shot(page, "disk-helper-ready");
    await dialog.getByRole("button", { name: "Подключить" }).click();
    await dialog.getByText("Папка подключена").waitFor();
    await expect(dialog.getByTestId("disk-helper-mount").textContent()).resolves.toContain(join(root, folder));
    // The helper got the user's token and syncs: the folder's file arrives on disk.
    await until("the file on disk", async () => (await readFile(join(root, folder, "Смета.txt"), "utf8")) === `смета ${stamp}\n`);
    // The dialog follows the helper: the mount turns in step with its one file.
    await dialog.getByText("синхронизирована", { exact: true }).waitFor();
    await dialog.getByText("Файлов синхронизировано: 1").waitFor();
    await shot(page, "disk-helper-mounted");
    await dialog.getByRole("button", { name: "Закрыть" }).last().click();

    // Opened again: the helper says the folder is mounted already, with its state.
    await page.getByRole("button", { name: "Открыть на компьютере" }).click();
    await dialog.getByText("Эта папка уже подключена на этом компьютере").waitFor();
    await dialog.getByText(/синхронизирована|синхронизируется/).waitFor();
    await page.keyboard.press("Escape");

    // The helper stopped: the dialog says so with the install steps, and «Подключить» is off until it answers.
    await helper.stop();
    errors.expect(/ERR_CONNECTION_REFUSED|Failed to load resource/);
    const other = await api.createGroup(ROOT, `Без помощника ${stamp}`);
    await page.goto(`/mam/${other}`);
    await page.getByRole("button", { name: "Открыть на компьютере" }).click();
    const offline = page.getByRole("dialog", { name: `Открыть на компьютере: Без помощника ${stamp}` });
    await offline.getByText("Помощник для локального диска не запущен на этом компьютере.").waitFor();
    // No program is uploaded here: the administrator (the one who uploads it) is told how, never to ask the
    // administrator.
    await offline.getByText("Программа помощника для этой системы ещё не выложена").waitFor();
    expect(await offline.textContent()).not.toMatch(/Обратитесь к администратору|попросите администратора/i);
    expect(await offline.getByRole("button", { name: "Подключить" }).isDisabled()).toBe(true);
    await shot(page, "disk-helper-not-running");

    // A reader (read only, no download) is offered the action disabled, with the reason, in the header and the menu.
    const reader = { login: `disk-reader-${stamp}`, password: "пароль-читателя-1" };
    const { user_id } = await api.call<{ user_id: string }>("/api/user", {
      json: { user_name: `Читатель ${stamp}`, user_login: reader.login, user_passwd: reader.password, enabled: true },
    });
    await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });
    const readerPage = await newPage(browser, { server });
    await readerPage.page.setViewportSize({ width: 1440, height: 900 });
    await login(readerPage.page, reader.login, reader.password);
    await readerPage.page.goto(`/mam/${folderId}`);
    await readerPage.page.locator("[data-member]", { hasText: "Смета.txt" }).waitFor();
    const refused = readerPage.page.getByRole("button", { name: "Открыть на компьютере" });
    await refused.waitFor();
    expect(await refused.getAttribute("aria-disabled")).toBe("true");
    expect(await refused.getAttribute("title")).toBe("Нет права на скачивание файлов этой папки, а значит и на синхронизацию с компьютером");
    await shot(readerPage.page, "disk-helper-reader");

    // A phone cannot run the helper: the action is not offered there.
    const phone = await newPage(browser, { server, contextOptions: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } });
    await login(phone.page, server.adminLogin, server.adminPassword);
    await phone.page.goto(`/mam/${other}`);
    await phone.page.getByRole("button", { name: "Поделиться" }).first().waitFor();
    expect(await phone.page.getByRole("button", { name: "Открыть на компьютере" }).count()).toBe(0);
    await shot(phone.page, "disk-helper-phone");
  } finally {
    await helper.stop();
    await rm(root, { recursive: true, force: true });
  }
});
