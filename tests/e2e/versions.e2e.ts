import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { openNewFolder } from "./library-steps";
import { EDITOR } from "./seed";

// Versions in the UI (issue 13): a new version uploaded from the viewer, the same-name question of an upload batch
// (new version / keep both / skip, once per batch), restoring an old version as a new one, deleting a version, a
// version's comment, and two image versions compared side by side. Screenshots at 1440×900 and 390×844 go to
// E2E_SCREENSHOTS when it is set.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SCREENSHOTS;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mam-versions-e2e-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A fixture image copied under another name (uploads keep the file's name). */
async function fixtureAs(fixture: string, name: string, sub = ""): Promise<string> {
  const target = join(dir, sub, name);
  if (sub) await mkdir(join(dir, sub), { recursive: true });
  await copyFile(join(FIXTURES, fixture), target);
  return target;
}

async function api<T>(page: Page, server: E2EServer, path: string): Promise<T> {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0" } });
  expect(res.status, path).toBe(200);
  return res.json() as Promise<T>;
}

const tile = (page: Page, name: string) => page.locator("[data-member]", { hasText: name });

/** Picks files through the folder's upload input (the same queue the Dashboard feeds). */
async function upload(page: Page, paths: string[]) {
  await page.getByTestId("upload-input").setInputFiles(paths);
}

/** Waits until a file's tile shows version `ver` (`· vN` in the grid). */
async function tileVersion(page: Page, name: string, ver: number) {
  await expect.poll(() => tile(page, name).locator(".tile-sub").textContent(), { timeout: 30_000 }).toContain(`v${ver}`);
}

async function assetsIn(page: Page, server: E2EServer, groupId: string) {
  const items = await api<{ el_id: string; el_info: { name: string; ver: number } }[]>(
    page,
    server,
    `/api/group/members/${groupId}?type=asset&sort=name&order=asc`,
  );
  return items.map((m) => ({ id: m.el_id, name: m.el_info.name, ver: m.el_info.ver }));
}

async function openViewer(page: Page, name: string) {
  await tile(page, name).getByRole("link", { name }).click();
  await expect.poll(() => page.locator("h1").textContent(), { timeout: 15_000 }).toBe(name);
}

const block = (page: Page, version: number) => page.locator(`.version-block[data-version="${version}"]`);

test("«Загрузить новую версию» in the viewer goes through the upload queue and shows «Версия 2»", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const first = await fixtureAs("photo-1600x1200.jpg", `Фото ${stamp}.jpg`);
  const second = await fixtureAs("tiny-200x100.jpg", `Фото новое ${stamp}.jpg`);
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Версии ${stamp}`);
  await upload(page, [first]);
  await tileVersion(page, `Фото ${stamp}.jpg`, 1);
  await openViewer(page, `Фото ${stamp}.jpg`);
  await block(page, 1).waitFor();
  await expect.poll(() => page.locator(".version-block").count()).toBe(1);

  await page.getByTestId("new-version-input").setInputFiles(second);
  // The status panel shows the upload like any other; the list shows the new version once it is committed.
  // (attached: once the batch is done the panel steps aside to a pill)
  await page.locator(".upload-row", { hasText: `Фото новое ${stamp}.jpg` }).waitFor({ state: "attached" });
  await expect.poll(() => block(page, 2).locator("strong").first().textContent(), { timeout: 30_000 }).toBe("Версия 2");
  await expect.poll(() => block(page, 2).locator(".version-current").count()).toBe(1);
  expect(await assetsIn(page, server, groupId)).toEqual([{ id: expect.any(String), name: `Фото ${stamp}.jpg`, ver: 2 }]);

  // The same from the file's actions in the folder: version 3, still one file.
  await page.getByRole("link", { name: "← К папке" }).click();
  await tileVersion(page, `Фото ${stamp}.jpg`, 2);
  // A tile's single actions are in its menu (its hover cluster is the star and «⋯»).
  await tile(page, `Фото ${stamp}.jpg`).click({ button: "right" });
  const [chooser] = await Promise.all([
    page.waitForEvent("filechooser"),
    page.getByRole("menu", { name: `Действия: Фото ${stamp}.jpg` }).getByRole("menuitem", { name: "Загрузить новую версию" }).click(),
  ]);
  await chooser.setFiles(await fixtureAs("photo-1600x1200.jpg", `Третья ${stamp}.jpg`));
  await tileVersion(page, `Фото ${stamp}.jpg`, 3);
  expect(await assetsIn(page, server, groupId)).toEqual([{ id: expect.any(String), name: `Фото ${stamp}.jpg`, ver: 3 }]);
});

test("same-name upload: one question for the batch, «Новая версия» makes version 2 of each existing file", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const a = `Кадр ${stamp}.jpg`;
  const b = `Обложка ${stamp}.png`;
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Совпадения ${stamp}`);
  await upload(page, [await fixtureAs("photo-1600x1200.jpg", a), await fixtureAs("logo-400x300.png", b)]);
  await tileVersion(page, a, 1);
  await tileVersion(page, b, 1);

  // The same names again (other bytes), plus a new file that does not clash.
  const fresh = `Новый ${stamp}.jpg`;
  await upload(page, [
    await fixtureAs("tiny-200x100.jpg", a, "again"),
    await fixtureAs("tiny-200x100.jpg", b, "again"),
    await fixtureAs("tiny-200x100.jpg", fresh, "again"),
  ]);
  const dialog = page.getByRole("dialog", { name: "Файлов с такими именами уже есть: 2" });
  await dialog.waitFor();
  expect(await dialog.locator(".name-clash-list li").allTextContents()).toEqual([a, b]);
  expect(await dialog.getByLabel("Применить ко всем").isChecked()).toBe(true);
  await page.setViewportSize({ width: 1440, height: 900 });
  await shot(page, "versions-same-name-dialog-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "versions-same-name-dialog-390");
  await page.setViewportSize({ width: 1440, height: 900 });
  await dialog.getByRole("button", { name: "Новая версия" }).click();
  await dialog.waitFor({ state: "hidden" });

  await tileVersion(page, a, 2);
  await tileVersion(page, b, 2);
  await tileVersion(page, fresh, 1);
  const assets = await assetsIn(page, server, groupId);
  expect(assets.map((x) => [x.name, x.ver]).sort()).toEqual(
    [
      [a, 2],
      [b, 2],
      [fresh, 1],
    ].sort(),
  );
  // The question was asked once for the whole batch.
  expect(await page.getByRole("dialog").count()).toBe(0);
});

test("same-name upload: «Пропустить» uploads nothing, «Оставить оба» adds a second, numbered file", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const name = `Скан ${stamp}.jpg`;
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Пропуск ${stamp}`);
  await upload(page, [await fixtureAs("photo-1600x1200.jpg", name)]);
  await tileVersion(page, name, 1);
  const queueBefore = await api<{ items: unknown[] }>(page, server, "/api/uploads");

  await upload(page, [await fixtureAs("tiny-200x100.jpg", name, "skip")]);
  const dialog = page.getByRole("dialog", { name: "Файл с таким именем уже есть" });
  await dialog.waitFor();
  await dialog.getByText(`«${name}» уже есть в папке`).waitFor();
  await dialog.getByRole("button", { name: "Пропустить" }).click();
  await page.getByText("Пропущено файлов: 1").waitFor();
  expect((await api<{ items: unknown[] }>(page, server, "/api/uploads")).items).toHaveLength(queueBefore.items.length);
  expect(await assetsIn(page, server, groupId)).toEqual([{ id: expect.any(String), name, ver: 1 }]);

  await upload(page, [await fixtureAs("tiny-200x100.jpg", name, "both")]);
  await dialog.waitFor();
  await dialog.getByRole("button", { name: "Оставить оба" }).click();
  await expect.poll(async () => (await assetsIn(page, server, groupId)).length, { timeout: 30_000 }).toBe(2);
  // The new one is numbered (issue 28): never two files of the same name.
  expect((await assetsIn(page, server, groupId)).map((x) => x.name).sort()).toEqual([name, `Скан ${stamp} (2).jpg`].sort());
});

test("restore version 1 as version 3, compare two versions, comment and delete a version", { timeout: 150_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const name = `Плакат ${stamp}.jpg`;
  await login(page, server.adminLogin, server.adminPassword);
  await openNewFolder(page, `История ${stamp}`);
  await upload(page, [await fixtureAs("photo-1600x1200.jpg", name)]);
  await tileVersion(page, name, 1);
  await upload(page, [await fixtureAs("tiny-200x100.jpg", name, "v2")]);
  await page.getByRole("dialog", { name: "Файл с таким именем уже есть" }).getByRole("button", { name: "Новая версия" }).click();
  await tileVersion(page, name, 2);
  await openViewer(page, name);
  await block(page, 2).waitFor();

  // Restore: a NEW version 3 copying version 1, with a comment saying so; nothing is lost.
  await block(page, 1).getByRole("button", { name: "Сделать текущей" }).click();
  await block(page, 3).waitFor({ timeout: 15_000 });
  expect(await block(page, 3).locator(".version-desc").textContent()).toBe("Восстановлена из версии 1");
  expect(await page.locator(".version-block").count()).toBe(3);
  // The restored version's main variant is version 1's (the same stored bytes).
  expect(await block(page, 3).locator(".variant-row .num").first().textContent()).toBe(await block(page, 1).locator(".variant-row .num").first().textContent());

  // Comment on version 2.
  await page.getByRole("button", { name: "Добавить комментарий: Версия 2" }).click();
  const comment = page.getByRole("dialog", { name: "Комментарий к версии 2" });
  await comment.getByLabel("Комментарий", { exact: true }).fill("Уменьшенная копия для сайта");
  await comment.getByRole("button", { name: "Сохранить" }).click();
  await expect.poll(() => block(page, 2).locator(".version-desc").textContent()).toBe("Уменьшенная копия для сайта");

  await page.setViewportSize({ width: 1440, height: 900 });
  await shot(page, "versions-viewer-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator(".versions-panel").scrollIntoViewIfNeeded();
  await shot(page, "versions-viewer-390");
  await page.setViewportSize({ width: 1440, height: 900 });

  // Compare versions 2 and 3 side by side: both images load.
  await page.getByLabel("Сравнить версию 2").check();
  await page.getByLabel("Сравнить версию 3").check();
  await page.getByRole("button", { name: "Сравнить", exact: true }).click();
  const compare = page.getByRole("dialog", { name: "Версия 2 и версия 3" });
  await compare.waitFor();
  const images = compare.locator("img");
  await expect.poll(() => images.evaluateAll((els) => els.map((e) => (e as HTMLImageElement).naturalWidth)), { timeout: 15_000 }).toEqual([200, 1600]);
  await shot(page, "versions-compare-1440");
  // The curtain: both in one frame, the newer uncovered from the slider's position.
  await compare.getByRole("button", { name: "Шторка" }).click();
  await compare.getByLabel("Положение шторки").fill("20");
  await expect.poll(() => compare.locator(".compare-stack img").nth(1).evaluate((e) => (e as HTMLElement).style.clipPath)).toBe("inset(0px 0px 0px 20%)");
  await expect.poll(() => compare.locator(".compare-stack img").evaluateAll((els) => els.map((e) => (e as HTMLImageElement).naturalWidth))).toEqual([200, 1600]);
  await shot(page, "versions-compare-curtain-1440");
  await compare.getByRole("button", { name: "Закрыть" }).click();
  // Closing the comparison clears its two ticks.
  await compare.waitFor({ state: "detached" });
  expect(await page.getByLabel("Сравнить версию 2").isChecked()).toBe(false);
  expect(await page.getByLabel("Сравнить версию 3").isChecked()).toBe(false);

  // Delete version 2 with its variants.
  await page.getByRole("button", { name: "Удалить версию: Версия 2" }).click();
  const confirm = page.getByRole("dialog", { name: "Удалить версию 2?" });
  await confirm.getByRole("button", { name: "Удалить версию" }).click();
  await block(page, 2).waitFor({ state: "detached" });
  expect(await page.locator(".version-block").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.version))).toEqual(["3", "1"]);
  const assetId = new URL(page.url()).pathname.split("/").pop()!;
  const versions = await api<{ version: number }[]>(page, server, `/api/asset/versions/${assetId}`);
  expect([...new Set(versions.map((v) => v.version))]).toEqual([3, 1]);
});

test("a read-only user sees the versions; every version action is refused with its reason", { timeout: 120_000 }, async ({ page, server, browser }) => {
  const stamp = Date.now();
  const name = `Только чтение ${stamp}.jpg`;
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Для чтения ${stamp}`);
  await upload(page, [await fixtureAs("photo-1600x1200.jpg", name)]);
  await tileVersion(page, name, 1);
  await upload(page, [await fixtureAs("tiny-200x100.jpg", name, "ro")]);
  await page.getByRole("dialog", { name: "Файл с таким именем уже есть" }).getByRole("button", { name: "Новая версия" }).click();
  await tileVersion(page, name, 2);
  // The administrator gives the editor read access to the folder (the file inherits it).
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const granted = await fetch(`${server.baseUrl}/api/user/acl`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0", "content-type": "application/json" },
    body: JSON.stringify({ subj: EDITOR.id, obj: groupId, acl: ["read", "download"] }),
  });
  expect(granted.status).toBe(201);
  const assetId = (await assetsIn(page, server, groupId))[0].id;

  const reader = (await newPage(browser, { server })).page;
  await login(reader, EDITOR.login, EDITOR.password);
  await reader.goto(`/mam/${groupId}`);
  await tile(reader, name).waitFor();
  expect(await reader.getByRole("button", { name: `Загрузить новую версию: ${name}` }).count()).toBe(0);
  // Once the caller's levels are in, nothing that would be refused is offered.
  const levels = reader.waitForResponse((r) => r.url().includes(`/api/auth/entity-access/${assetId}`));
  await reader.goto(`/mam/${groupId}/asset/${assetId}`);
  expect((await levels).status()).toBe(200);
  await block(reader, 2).waitFor();
  await block(reader, 1).waitFor();
  await reader.waitForTimeout(300);
  // Version actions stay visible, refused with their reason (decision 013, issue 24); downloads are allowed here.
  const refused = async (button: ReturnType<typeof reader.getByRole>, reason: string) => {
    expect(await button.getAttribute("aria-disabled")).toBe("true");
    expect(await button.getAttribute("title")).toBe(reason);
  };
  const panel = reader.locator(".versions-panel");
  await refused(panel.getByRole("button", { name: "Загрузить новую версию" }), "Нет права добавлять версии этого файла");
  await refused(panel.getByRole("button", { name: "Сделать текущей" }).first(), "Нет права добавлять версии этого файла");
  await refused(panel.getByRole("button", { name: /^Удалить версию/ }).first(), "Нет права на удаление этого файла");
  await refused(panel.getByRole("button", { name: /комментарий/ }).first(), "Нет права на изменение этого файла");
  expect(await panel.locator(".variant-row").getByRole("button", { name: "Скачать" }).first().getAttribute("aria-disabled")).toBeNull();
  await reader.setViewportSize({ width: 1440, height: 900 });
  await reader.locator(".versions-panel").scrollIntoViewIfNeeded();
  await shot(reader, "versions-viewer-readonly-1440");
});

test("a version create-version made shows as empty, never current, and can be removed (issue 29)", { timeout: 120_000 }, async ({ page, server }) => {
  const stamp = Date.now();
  const name = `Пустая ${stamp}.jpg`;
  await login(page, server.adminLogin, server.adminPassword);
  const groupId = await openNewFolder(page, `Пустые версии ${stamp}`);
  await upload(page, [await fixtureAs("tiny-200x100.jpg", name)]);
  await tileVersion(page, name, 1);
  const [asset] = await assetsIn(page, server, groupId);
  // A client following SPEC's flow makes the next version and has not uploaded into it yet.
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const made = await fetch(`${server.baseUrl}/api/asset/create-version/${asset.id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "x-api-version": "1.0" },
    body: JSON.stringify({ to_group: groupId, variant_type: "initial" }),
  });
  expect(((await made.json()) as { version: number }).version).toBe(2);
  await openViewer(page, name);
  const empty = block(page, 2);
  await empty.waitFor();
  expect(await empty.getAttribute("data-state")).toBe("empty");
  expect(await empty.locator(".version-state").textContent()).toBe("Пустая");
  expect(await empty.locator(".version-current").count()).toBe(0);
  expect(await block(page, 1).locator(".version-current").count()).toBe(1);
  // No download, restore or compare for a version without content.
  expect(await empty.getByRole("button", { name: "Скачать" }).count()).toBe(0);
  await shot(page, "versions-empty-1440");
  await empty.getByRole("button", { name: "Удалить пустую версию: Версия 2" }).click();
  await expect.poll(() => block(page, 2).count()).toBe(0);
  expect(await assetsIn(page, server, groupId)).toEqual([{ id: asset.id, name, ver: 1 }]);
});
