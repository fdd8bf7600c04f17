import type { Page } from "playwright-core";
import { DOCX_MIME, makeDocx } from "../fixtures/office-docs";
import { expect, login, test } from "./fixtures";

const ROOT = "f".repeat(32);

/** Calls the API from the signed-in page (its bearer from localStorage); answers the JSON. */
async function api<T>(page: Page, path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
  return page.evaluate(
    async ({ path, init }) => {
      const res = await fetch(path, {
        method: init.method ?? "GET",
        headers: { authorization: `Bearer ${localStorage.getItem("accessToken")}`, "content-type": "application/json" },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    { path, init },
  ) as Promise<T>;
}

/** A folder holding one file with these bytes, made through the API (create, create-version, PUT). */
async function fileInFolder(page: Page, name: string, mime: string, bytes: Uint8Array): Promise<{ groupId: string; assetId: string }> {
  const { group_id: groupId } = await api<{ group_id: string }>(page, "/api/group/create", {
    method: "POST",
    json: { parent: ROOT, group_name: `Редактор ${Date.now()} ${Math.random().toString(36).slice(2, 6)}` },
  });
  const { asset_id: assetId } = await api<{ asset_id: string }>(page, "/api/asset/create", {
    method: "POST",
    json: { asset_name: name, asset_mime: mime, in_group: groupId },
  });
  const info = await api<{ upload_url: string }>(page, `/api/asset/create-version/${assetId}`, {
    method: "POST",
    json: { file_name: name, mime_type: mime, size: bytes.length },
  });
  await page.evaluate(
    async ({ url, data, mime }) => {
      const res = await fetch(url, { method: "PUT", body: new Uint8Array(data), headers: { "content-type": mime } });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    },
    { url: info.upload_url, data: [...bytes], mime },
  );
  return { groupId, assetId };
}

test("a text file opens in /editor, is changed and saved as version 2, which the viewer then shows", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const { groupId, assetId } = await fileInFolder(page, "Заметки.md", "text/markdown", new TextEncoder().encode("# Заметки\nпервая строка\n"));

  // The folder offers the action in the file's menu («⋯» on its tile, or a right click)
  await page.goto(`/mam/${groupId}`);
  const tile = page.locator("[data-member]", { hasText: "Заметки.md" });
  await tile.hover();
  await tile.getByRole("button", { name: "Другие действия: Заметки.md" }).click();
  await page.getByRole("menu", { name: "Действия: Заметки.md" }).getByRole("menuitem", { name: "Открыть в редакторе" }).click();
  await page.waitForURL(`**/editor/${assetId}`);

  const area = page.getByLabel("Текст файла");
  await expect.poll(() => area.inputValue()).toBe("# Заметки\nпервая строка\n");
  await expect.poll(() => page.getByTestId("lock-state").textContent()).toBe("Заблокирован вами");
  await expect.poll(() => page.locator(".editor-meta").textContent()).toContain("версия 1");

  await area.fill("# Заметки\nпервая строка\nвторая строка — из редактора\n");
  await page.getByText("Есть несохранённые изменения").waitFor();
  await page.getByRole("button", { name: "Сохранить" }).click();
  await expect.poll(() => page.locator(".editor-meta").textContent()).toContain("версия 2");
  await expect.poll(() => page.getByRole("button", { name: "Сохранить" }).isDisabled()).toBe(true);
  // The «Сохранено…» toast starts below the editor's bar: it never covers the Save button.
  const saveBox = (await page.getByRole("button", { name: "Сохранить" }).boundingBox())!;
  const toastBox = (await page.locator(".toast").first().boundingBox())!;
  expect(toastBox.y).toBeGreaterThanOrEqual(saveBox.y + saveBox.height);

  // back in the viewer: version 2 is there, and its bytes are what was typed
  await page.getByRole("link", { name: "← К папке" }).click();
  await page.waitForURL(`**/mam/${groupId}/asset/${assetId}`);
  // Exactly the viewer's label: the editor's «версия 2 · …» may still be on screen while the viewer loads, and the
  // toast «Сохранено как версия 2» stays for a while.
  await page.getByText("Версия 2", { exact: true }).first().waitFor();
  const versions = await api<{ version: number }[]>(page, `/api/asset/versions/${assetId}`);
  expect(versions.map((v) => v.version).sort()).toEqual([1, 2]);
  // leaving the editor released the lock
  await expect.poll(async () => (await api<{ lock: unknown }>(page, `/api/wopi/lock/${assetId}`)).lock).toBeNull();
  await page.getByRole("link", { name: "Открыть в редакторе" }).waitFor();
});

test("a DOCX opens read-only without an office server, with its text and a note on what needs one", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const docx = makeDocx("Годовой отчёт", ["Выручка выросла.", "План на следующий год."]);
  const { assetId } = await fileInFolder(page, "Отчёт.docx", DOCX_MIME, docx);
  await page.goto(`/editor/${assetId}`);
  const doc = page.getByTestId("document-view");
  await doc.getByRole("heading", { name: "Годовой отчёт" }).waitFor();
  await doc.getByText("План на следующий год.").waitFor();
  await page.getByText(/только в офисном редакторе/).waitFor();
  expect(await page.getByLabel("Текст файла").count()).toBe(0);
  await expect.poll(() => page.locator(".editor-name").textContent()).toBe("Отчёт.docx");
});

test("a user with read and download only gets the text file read-only: no lock taken, no save offered", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const { groupId, assetId } = await fileInFolder(page, "План.txt", "text/plain", new TextEncoder().encode("первая строка\n"));
  const readerLogin = `reader-${Date.now().toString(36)}`;
  const reader = await api<{ user_id: string }>(page, "/api/user", {
    method: "POST",
    json: { user_name: "Читатель", user_login: readerLogin, user_passwd: "Reader-pass-1", enabled: true },
  });
  await api(page, "/api/user/acl", { method: "POST", json: { subj: reader.user_id, obj: groupId, acl: ["read", "download"] } });

  await page.getByRole("button", { name: "Выйти" }).click();
  await page.waitForURL("**/login");
  await login(page, readerLogin, "Reader-pass-1");
  await page.goto(`/editor/${assetId}`);

  const area = page.getByLabel("Текст файла");
  await expect.poll(() => area.inputValue()).toBe("первая строка\n");
  expect(await area.getAttribute("readonly")).not.toBeNull();
  await page.getByText("У вас нет права изменять этот файл").waitFor();
  await page.locator(".editor-actions").getByText("Только просмотр").waitFor();
  expect(await page.getByRole("button", { name: "Сохранить" }).count()).toBe(0);
  await expect.poll(() => page.getByTestId("lock-state").textContent()).toBe("Не заблокирован");
  // the reader's visit took no lock: the file stays free for someone who may edit it
  expect((await api<{ lock: unknown }>(page, `/api/wopi/lock/${assetId}`)).lock).toBeNull();
});
