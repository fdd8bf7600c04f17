import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, login, test, type E2EServer } from "./fixtures";
import { openNewFolder } from "./library-steps";

// Automations end to end: an administrator builds 'tag every image uploaded to folder X' in the editor (trigger,
// condition and action from the catalogue's forms), uploads an image there, and sees the tag on the file and the
// run in /jobs with its log.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function api(page: Page, server: E2EServer, path: string, init: { method?: string; json?: unknown } = {}) {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" };
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? "GET",
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  expect(res.status, path).toBeLessThan(300);
  return res.json() as Promise<unknown>;
}

test("an automation tags every image uploaded to a folder, and its run shows in /jobs", { timeout: 180_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const folder = `Входящие ${stamp}`;
  const tagName = `Авто ${stamp}`;
  const workflowName = `Тег для изображений ${stamp}`;
  await login(page, server.adminLogin, server.adminPassword);
  const folderId = await openNewFolder(page, folder);
  await api(page, server, "/api/tags/create", { method: "POST", json: { tag_name: tagName } });

  // The editor: trigger 'uploaded to a folder' with the folder picked by search, a MIME condition, an 'add tag' action.
  await page.goto("/automations");
  await page.getByRole("link", { name: "Новая автоматизация" }).click();
  await page.locator("#wf-name").fill(workflowName);
  await page.getByRole("combobox", { name: "trigger" }).selectOption("asset.uploaded");
  await page.locator("#wf-trigger\\.group_id").fill(folder);
  await page.getByRole("option", { name: new RegExp(folder) }).click();
  await expect.poll(() => page.locator('[data-field="trigger.group_id"] .chip').textContent()).toBe(folder);
  await page.getByRole("button", { name: "+ Добавить условие" }).click();
  await page.locator("#wf-conditions\\.0\\.value").fill("image/");
  await page.getByRole("combobox", { name: "actions.0" }).selectOption("add-tag");
  await page.locator("#wf-actions\\.0\\.tag_id").selectOption({ label: tagName });

  // A webhook to a private address is refused before anything is saved, naming the field.
  await page.getByRole("button", { name: "+ Добавить действие" }).click();
  await page.getByRole("combobox", { name: "actions.1" }).selectOption("webhook");
  await page.locator("#wf-actions\\.1\\.url").fill("http://192.168.0.10/hook");
  await page.getByRole("button", { name: "Сохранить" }).click();
  await expect.poll(() => page.locator('[data-field="actions.1.url"] .wf-error').textContent()).toContain("частную");
  await shot(page, "automation-editor-invalid");
  await page.locator('[data-item="actions.1"]').getByRole("button", { name: "Убрать" }).click();

  await page.getByRole("button", { name: "Сохранить" }).click();
  await page.waitForURL(/\/automations\/[0-9a-f]{32}$/);
  await shot(page, "automation-editor");

  await page.getByRole("link", { name: "Все автоматизации" }).click();
  const row = page.locator("tr", { has: page.getByRole("link", { name: workflowName }) });
  await expect.poll(() => row.getByRole("switch").getAttribute("aria-checked")).toBe("true");
  await shot(page, "automations-list");

  // Upload an image and a PDF into the folder: only the image gets the tag.
  await page.goto(`/mam/${folderId}`);
  await page.getByTestId("upload-input").setInputFiles([join(FIXTURES, "tiny-200x100.jpg"), join(FIXTURES, "three-pages.pdf")]);
  const image = page.locator(".tile, tr").filter({ hasText: "tiny-200x100.jpg" }).first();
  await image.waitFor({ timeout: 60_000 });
  const members = async () =>
    (await api(page, server, `/api/group/members/${folderId}`)) as
      | { el_id: string; el_info: { name: string } }[]
      | { items: { el_id: string; el_info: { name: string } }[] };
  const listOf = async () => {
    const m = await members();
    return Array.isArray(m) ? m : m.items;
  };
  await expect.poll(async () => (await listOf()).length, { timeout: 60_000 }).toBe(2);
  const list = await listOf();
  const imageId = list.find((m) => m.el_info.name === "tiny-200x100.jpg")!.el_id;
  const pdfId = list.find((m) => m.el_info.name === "three-pages.pdf")!.el_id;
  const tagsOf = async (id: string) =>
    ((await api(page, server, `/api/tags/for-entity/${id}`)) as { tag_name: string }[]).map((t) => t.tag_name);
  await expect.poll(() => tagsOf(imageId), { timeout: 60_000 }).toEqual([tagName]);

  // The tag shows on the file.
  await page.goto(`/mam/${folderId}/asset/${imageId}`);
  await page.locator(".tag-cloud .chip", { hasText: tagName }).waitFor();
  expect(await tagsOf(pdfId)).toEqual([]);

  // The run is a task in /jobs, done, with its log.
  await page.goto("/jobs?op=automation");
  const runRow = page.locator("tr[data-task]", { hasText: workflowName });
  await expect.poll(() => runRow.getAttribute("data-status"), { timeout: 30_000 }).toBe("done");
  await shot(page, "jobs-automation");
  await runRow.getByRole("link").click();
  await page.locator(".job-log-line", { hasText: `тег «${tagName}» добавлен` }).waitFor();
  await page.locator(".job-log-line", { hasText: "Автоматизация выполнена" }).waitFor();
  await shot(page, "job-automation-log");

  // 'Запустить' from the list starts a run by hand and opens it.
  await page.goto("/automations");
  await page.locator("tr", { hasText: workflowName }).getByRole("button", { name: "Запустить" }).click();
  await page.waitForURL(/\/jobs\/[0-9a-f]{32}$/);
  await page.locator(".job-log-line", { hasText: "Запуск автоматизации" }).waitFor();
});

test("a scheduled automation: an invalid cron expression is refused at its field, a valid one shows its next run", async ({
  page,
  server,
}) => {
  const name = `По расписанию ${Date.now()}`;
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/automations/new");
  await page.locator("#wf-name").fill(name);
  await page.getByRole("combobox", { name: "trigger" }).selectOption("schedule");
  await page.locator("#wf-trigger\\.cron").fill("61 * * * *");
  await page.getByRole("combobox", { name: "actions.0" }).selectOption("wait");
  await page.getByRole("button", { name: "Сохранить" }).click();
  await expect.poll(() => page.locator('[data-field="trigger.cron"] .wf-error').textContent()).toContain("вне диапазона");
  expect(new URL(page.url()).pathname).toBe("/automations/new");

  await page.locator("#wf-trigger\\.cron").fill("30 4 * * MON-FRI");
  await expect.poll(() => page.locator("[data-next-run]").textContent()).toContain("Следующий запуск");
  await page.getByRole("button", { name: "Сохранить" }).click();
  await page.waitForURL(/\/automations\/[0-9a-f]{32}$/);
  await page.getByRole("link", { name: "Все автоматизации" }).click();
  const row = page.locator("tr", { has: page.getByRole("link", { name }) });
  await expect.poll(() => row.textContent()).toContain("30 4 * * MON-FRI");
  await shot(page, "automations-schedule");
});
