import type { Page } from "playwright-core";
import { expect, login, test } from "./fixtures";
import { openRootFolder } from "./library-steps";

/** Set METADATA_SHOTS=/some/dir to keep screenshots of the metadata screens (for looking at them, not asserted). */
async function shot(page: Page, name: string) {
  const dir = process.env.METADATA_SHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/**
 * A real, seekable WebM made in the browser: a canvas animation recorded by MediaRecorder for `seconds`, then the
 * Duration element MediaRecorder leaves out is written into the Segment Info (its size is fixed up), so the player
 * knows the length and can seek.
 */
async function recordWebm(page: Page, seconds: number): Promise<Buffer> {
  const base64 = await page.evaluate(async (ms) => {
    const canvas = document.createElement("canvas");
    canvas.width = 160;
    canvas.height = 90;
    const ctx = canvas.getContext("2d")!;
    const stream = canvas.captureStream(25);
    const recorder = new MediaRecorder(stream, { mimeType: "video/webm;codecs=vp8" });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => chunks.push(e.data);
    const started = performance.now();
    let frame = 0;
    const timer = setInterval(() => {
      frame += 1;
      ctx.fillStyle = `hsl(${(frame * 7) % 360} 70% 45%)`;
      ctx.fillRect(0, 0, 160, 90);
      ctx.fillStyle = "#fff";
      ctx.font = "28px sans-serif";
      ctx.fillText(((performance.now() - started) / 1000).toFixed(1), 40, 55);
    }, 40);
    recorder.start(250);
    await new Promise((r) => setTimeout(r, ms));
    recorder.stop();
    await new Promise((r) => (recorder.onstop = r));
    clearInterval(timer);
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return btoa(binary);
  }, seconds * 1000);
  return withDuration(Buffer.from(base64, "base64"), seconds * 1000);
}

/** Inserts `Duration` (float64, milliseconds at the default TimecodeScale) as the first child of the Segment Info. */
function withDuration(webm: Buffer, durationMs: number): Buffer {
  const INFO = Buffer.from([0x15, 0x49, 0xa9, 0x66]);
  const at = webm.indexOf(INFO);
  if (at < 0) throw new Error("no Segment Info in the recording");
  const sizeStart = at + 4;
  const first = webm[sizeStart];
  let length = 1;
  while (length <= 8 && !(first & (0x80 >> (length - 1)))) length++;
  let size = first & (0xff >> length);
  for (let i = 1; i < length; i++) size = size * 256 + webm[sizeStart + i];
  const duration = Buffer.alloc(11);
  duration.set([0x44, 0x89, 0x88]);
  duration.writeDoubleBE(durationMs, 3);
  const newSize = Buffer.alloc(8);
  newSize.writeBigUInt64BE(BigInt(size + duration.length));
  newSize[0] |= 0x01; // an 8-byte EBML size
  return Buffer.concat([webm.subarray(0, sizeStart), newSize, duration, webm.subarray(sizeStart + length)]);
}

async function createTemplate(page: Page, name: string, type: string, required = false) {
  await page.goto("/admin/metadata");
  await page.getByRole("link", { name: "Новое поле" }).click();
  const form = page.getByRole("form", { name: "Новое поле" });
  await form.getByLabel("Название", { exact: true }).fill(name);
  await form.getByLabel("Тип").selectOption(type);
  if (required) await form.getByLabel("Обязательное").check();
  await shot(page, `template-form-${type}`);
  await form.getByRole("button", { name: "Создать" }).click();
  await page.locator(`[data-template="${name}"]`).waitFor();
}

test("metadata: templates and a class in /admin/metadata, fields filled in the viewer, a time range on a video", async ({
  page,
  server,
}) => {
  await login(page, server.adminLogin, server.adminPassword);
  const suffix = Date.now().toString(36);
  const rights = `Правообладатель ${suffix}`;
  const shotDate = `Дата съёмки ${suffix}`;
  const className = `Репортаж ${suffix}`;

  // Two templates: a required text and a date.
  await createTemplate(page, rights, "text", true);
  await createTemplate(page, shotDate, "date");
  const rightsRow = page.locator(`[data-template="${rights}"]`);
  expect(await rightsRow.textContent()).toContain("Обязательное");
  await shot(page, "admin-templates");

  // A class listing both.
  await page.getByRole("tab", { name: "Классы файлов" }).click();
  await page.getByRole("button", { name: "Новый класс" }).click();
  const create = page.getByRole("dialog", { name: "Новый класс" });
  await create.getByLabel("Название класса").fill(className);
  await create.getByRole("button", { name: "Создать" }).click();
  const card = page.locator(`[data-class="${className}"]`);
  await card.getByRole("button", { name: "Поля класса" }).click();
  const pick = page.getByRole("dialog", { name: `Поля класса: ${className}` });
  await pick.locator("label", { hasText: rights }).getByRole("checkbox").check();
  await pick.locator("label", { hasText: shotDate }).getByRole("checkbox").check();
  await pick.getByRole("button", { name: "Сохранить" }).click();
  await card.getByText(`${rights} *`).waitFor();
  await shot(page, "admin-classes");

  // A folder with a real video in it.
  const video = await recordWebm(page, 4);
  await page.goto("/mam");
  const folder = `Метаданные ${suffix}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const folderDialog = page.getByRole("dialog", { name: "Создать папку" });
  await folderDialog.getByLabel("Название папки").fill(folder);
  await folderDialog.getByRole("button", { name: "Создать" }).click();
  await openRootFolder(page, folder);
  await page.getByTestId("upload-input").setInputFiles({ name: "репортаж.webm", mimeType: "video/webm", buffer: video });
  const tile = page.locator("[data-member]", { hasText: "репортаж.webm" });
  await tile.waitFor();
  await tile.getByRole("link", { name: "репортаж.webm" }).click();
  await page.locator("h1", { hasText: "репортаж.webm" }).waitFor();

  // Set the class in the viewer: the form shows its fields; the required one is refused while empty.
  const panel = page.getByRole("region", { name: "Метаданные" });
  await panel.getByRole("button", { name: "Изменить" }).click();
  await panel.getByLabel("Класс файла").selectOption({ label: className });
  await panel.locator(`[data-field="${rights}"]`).getByText("Обязательное поле не заполнено").waitFor();
  await panel.getByRole("button", { name: "Сохранить" }).click();
  await panel.getByRole("alert").getByText("Исправьте значения, отмеченные красным").waitFor();
  await panel.getByLabel(rights).fill("ООО «Студия Север»");
  await panel.getByLabel(shotDate).fill("2026-11-22");
  await shot(page, "viewer-panel-editing");
  await panel.getByRole("button", { name: "Сохранить" }).click();
  await panel.getByRole("button", { name: "Изменить" }).waitFor();

  // Reload: the class and both values are there.
  await page.reload();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  const reloaded = page.getByRole("region", { name: "Метаданные" });
  await reloaded.locator(`[data-field="${rights}"]`).getByText("ООО «Студия Север»").waitFor();
  expect(await reloaded.locator(`[data-field="${shotDate}"]`).textContent()).toContain("22 ноября 2026");
  expect(await reloaded.textContent()).toContain(className);

  // The timeline: play, mark in and out, attach a value to the range; clicking it seeks the player.
  const player = page.getByTestId("video-player");
  await expect
    .poll(() => player.evaluate((v: HTMLVideoElement) => v.readyState >= 1 && Number.isFinite(v.duration) && v.duration))
    .toBeGreaterThan(3);
  await player.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  const timeline = page.getByRole("region", { name: "Отрезки" });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 }).toBeGreaterThan(0.8);
  await timeline.getByRole("button", { name: "[ Начало" }).click();
  const markIn = Number(await player.evaluate((v: HTMLVideoElement) => v.currentTime));
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 }).toBeGreaterThan(markIn + 1);
  await timeline.getByRole("button", { name: "Конец ]" }).click();
  await player.evaluate((v: HTMLVideoElement) => v.pause());
  await timeline.getByLabel("Поле отрезка").selectOption({ label: rights });
  await timeline.getByLabel(rights).fill("Ведущий в кадре");
  await timeline.getByRole("button", { name: "Добавить отрезок" }).click();
  const range = timeline.locator(".md-range", { hasText: "Ведущий в кадре" });
  await range.waitFor();
  await shot(page, "viewer-timeline");

  await player.evaluate((v: HTMLVideoElement) => {
    v.currentTime = 3.9;
  });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(3);
  await range.getByRole("button", { name: /Перейти к отрезку/ }).click();
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeLessThan(markIn + 0.35);
  expect(await player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThanOrEqual(markIn - 0.35);
  // The segment on the track seeks too.
  await player.evaluate((v: HTMLVideoElement) => {
    v.currentTime = 3.9;
  });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(3);
  await timeline.locator(".md-segment").first().click();
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeLessThan(markIn + 0.35);

  // The range survives a reload and is not mixed into the panel's untimed values.
  await page.reload();
  await page.getByRole("region", { name: "Отрезки" }).locator(".md-range", { hasText: "Ведущий в кадре" }).waitFor();
  expect(await page.getByRole("region", { name: "Метаданные" }).locator(`[data-field="${rights}"]`).textContent()).not.toContain(
    "Ведущий в кадре",
  );
}, 120_000);

test("metadata: taxonomies and lists in /admin/metadata, bulk set in a folder", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  const suffix = Date.now().toString(36);
  const licence = `Лицензия ${suffix}`;
  await createTemplate(page, licence, "text");

  // Taxonomies and lists first: later, the upload panel covers the lower right of the page.
  // Taxonomies: a tree with a child and a grandchild, edited in place.
  await page.goto("/admin/metadata?section=taxonomies");
  const treeName = `Темы ${suffix}`;
  await page.getByRole("button", { name: "Новая таксономия" }).click();
  const treeDialog = page.getByRole("dialog", { name: "Новая таксономия" });
  await treeDialog.getByLabel("Название таксономии").fill(treeName);
  await treeDialog.getByRole("button", { name: "Создать" }).click();
  for (const [parent, child] of [
    [treeName, "Спорт"],
    ["Спорт", "Футбол"],
    [treeName, "Культура"],
  ]) {
    await page.getByRole("button", { name: `Добавить раздел: ${parent}` }).click();
    const dialog = page.getByRole("dialog", { name: `Добавить раздел: ${parent}` });
    await dialog.getByLabel("Название раздела").fill(child);
    await dialog.getByRole("button", { name: "Создать" }).click();
    await page.locator(`[data-taxon="${child}"]`).waitFor();
  }
  // Move 'Футбол' under 'Культура'.
  await page.locator('[data-taxon="Футбол"]').hover();
  await page.getByRole("button", { name: "Переместить: Футбол" }).click();
  const move = page.getByRole("dialog", { name: "Переместить: Футбол" });
  const culture = await move.locator("option", { hasText: "Культура" }).getAttribute("value");
  await move.getByLabel("Новый родитель").selectOption(culture!);
  await move.getByRole("button", { name: "Переместить" }).click();
  await expect
    .poll(() =>
      page
        .locator("li", { has: page.locator('[data-taxon="Культура"]') })
        .last()
        .locator('[data-taxon="Футбол"]')
        .count(),
    )
    .toBe(1);
  await shot(page, "admin-taxonomies");

  // Lists: a list with two records.
  await page.goto("/admin/metadata?section=lists");
  const listName = `Языки ${suffix}`;
  await page.getByRole("button", { name: "Новый список" }).click();
  const listDialog = page.getByRole("dialog", { name: "Новый список" });
  await listDialog.getByLabel("Название списка").fill(listName);
  await listDialog.getByRole("button", { name: "Создать" }).click();
  for (const [key, label] of [
    ["ru", "Русский"],
    ["en", "Английский"],
  ]) {
    await page.getByLabel("Ключ", { exact: true }).fill(key);
    await page.getByLabel("Подпись", { exact: true }).fill(label);
    await page.getByRole("button", { name: "Добавить запись" }).click();
    await page.locator("td", { hasText: label }).waitFor();
  }
  await expect.poll(() => page.locator(".md-main-head").textContent()).toContain("2 записи");
  await shot(page, "admin-lists");
  // Two files in a folder; select both and set the field at once.
  await page.goto("/mam");
  const folder = `Пакет ${suffix}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const folderDialog = page.getByRole("dialog", { name: "Создать папку" });
  await folderDialog.getByLabel("Название папки").fill(folder);
  await folderDialog.getByRole("button", { name: "Создать" }).click();
  await openRootFolder(page, folder);
  for (const name of ["первый.txt", "второй.txt"]) {
    await page.getByTestId("upload-input").setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(`текст ${name}`) });
    await page.locator("[data-member]", { hasText: name }).waitFor();
  }
  await page.getByRole("checkbox", { name: "Выбрать: первый.txt" }).check();
  await page.getByRole("checkbox", { name: "Выбрать: второй.txt" }).check();
  await page.getByRole("toolbar", { name: "Действия с выбранными" }).getByRole("button", { name: "Поле" }).click();
  const bulk = page.getByRole("dialog", { name: "Задать поле у 2 файлов" });
  await bulk.getByLabel("Поле").selectOption({ label: `${licence} · Текст` });
  await bulk.getByLabel(licence).fill("CC BY 4.0");
  await shot(page, "mamgroup-bulk");
  await bulk.getByRole("button", { name: "Применить" }).click();
  await page.getByText("Поле задано у 2 файлов").waitFor();
  await page.locator("[data-member]", { hasText: "второй.txt" }).getByRole("link", { name: "второй.txt", exact: true }).click();
  await page.getByRole("region", { name: "Метаданные" }).locator(`[data-field="${licence}"]`).getByText("CC BY 4.0").waitFor();
}, 90_000);
