import { deflateSync } from "node:zlib";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { beforeAll } from "vitest";
import { makeTiff } from "../fixtures/media-makers";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { e2eServer, expect, login, newPage, test } from "./fixtures";

/**
 * The viewer for every type, and the small layout faults of one walk through the product: a TIFF is shown from its
 * preview (zoomable), a transparent PNG on a checkerboard in the grid and the viewer, Markdown rendered (raw HTML
 * never), CSV as a table; a tile's hover cluster and a starred tile stay in a corner; the share form's select
 * keeps to its column; the reader's root table fits a phone; the new-field form's inputs line up; the disk-helper
 * dialog speaks to an administrator as one. Layout is measured (boxes, computed styles), and every screen is shot
 * at 1440 × 900 and 390 × 844 as administrator and reader (E2E_SCREENSHOTS).
 */

const SHOTS = process.env.E2E_SCREENSHOTS;
const SIZES = [
  [1440, 900],
  [390, 844],
] as const;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** A PNG with alpha (colour type 6): a red disc on full transparency. */
function transparentPng(width: number, height: number): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (Math.min(width, height) / 3) ** 2;
      rows.set(inside ? [220, 40, 40, 255] : [0, 0, 0, 0], y * (width * 4 + 1) + 1 + x * 4);
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

const MARKDOWN = [
  "# Заметки к съёмке",
  "",
  "Список **важного** и [ссылка](https://example.com/brief).",
  "",
  '<img src="x" onerror="window.__xss = 1"> <script>window.__xss = 2</script>',
  "",
  "[опасная](javascript:window.__xss=3) и ![картинка](https://tracker.example/pixel.png)",
  "",
  "- пункт первый",
  "- пункт второй",
].join("\n");

let api: AdminApi;
let folderId: string;
const ids: Record<string, string> = {};
const reader = { login: `viewer-reader-${Date.now()}`, password: "пароль-читателя-38" };

beforeAll(async () => {
  api = await adminApi(e2eServer());
  const stamp = Date.now();
  folderId = await api.createGroup(ROOT, `Все типы ${stamp}`);
  const grey = (x: number, y: number, c: number) => (c === 0 ? x / 640 : c === 1 ? y / 480 : 0.6);
  ids.tiff = await api.uploadAsset(folderId, "скан.tif", Buffer.from(makeTiff([{ width: 640, height: 480, compression: 8, pixel: grey }])), "image/tiff");
  ids.png = await api.uploadAsset(folderId, "логотип.png", transparentPng(400, 300), "image/png");
  ids.md = await api.uploadAsset(folderId, "README.md", Buffer.from(MARKDOWN), "text/markdown");
  const csv = ["Товар;Цена;Остаток", '"Яблоки; зелёные";120;40', ...Array.from({ length: 620 }, (_, i) => `Позиция ${i + 1};${i};${i % 7}`)].join("\n");
  ids.csv = await api.uploadAsset(folderId, "цены.csv", Buffer.from(csv), "text/csv");
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: `Читатель ${stamp}`, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });
  // The previews are made by the upload's tasks (the medium first, then the thumb).
  for (let waited = 0; ; waited += 1_000) {
    const { list } = await api.call<{ list: { preview: string | null }[] }>("/api/asset/content/preview-by-list", {
      method: "POST",
      json: { ids: [ids.tiff, ids.png], size: "thumb" },
    });
    if (list.every((p) => p.preview)) break;
    if (waited > 60_000) throw new Error("the previews of the TIFF and the PNG were not made in 60 s");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}, 120_000);

/** What the viewer's stage shows once ready: a picture, a rendered document or table, or (without download) the reason. */
const STAGE_READY = ".viewer-stage [data-testid=preview-image], .viewer-stage .image-stage, .viewer-stage [data-testid=markdown-view], .viewer-stage [data-testid=csv-view], .viewer-stage [data-testid=player-refused]";

/** Waits until the stage's picture (if any) is decoded, so a screenshot shows it. */
async function settled(page: Page) {
  await page.locator(STAGE_READY).first().waitFor();
  const img = page.locator(".viewer-stage .image-stage-view img");
  if (await img.count()) await img.evaluate((el: HTMLImageElement) => el.decode()).catch(() => undefined);
}

/** Waits until every tile's thumbnail in view is drawn. */
async function thumbsDrawn(page: Page) {
  await expect
    .poll(() => page.locator("[data-member] .thumb").evaluateAll((spans) => spans.every((s) => { const img = s.querySelector("img"); return !img || (img.complete && img.naturalWidth > 0); }) && spans.some((s) => s.querySelector("img"))), { timeout: 15_000 })
    .toBe(true);
}

const checkered = (page: Page, selector: string) => page.locator(selector).first().evaluate((img) => getComputedStyle(img).backgroundImage);

test("a TIFF is shown from its preview with zoom; a transparent PNG lies on a checkerboard, its preview keeps alpha", { timeout: 120_000 }, async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}/asset/${ids.tiff}`);
  const img = page.getByTestId("preview-image").locator("img");
  await img.waitFor();
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 15_000 }).toBe(640);
  // The preview, not the original (which the browser cannot draw).
  expect(await img.getAttribute("src")).toContain("/api/asset/content/preview/");
  const zoom = page.getByTestId("image-zoom");
  const fitted = Number((await zoom.textContent())?.replace("%", ""));
  await page.getByRole("button", { name: "Увеличить (+)" }).click();
  await expect.poll(async () => Number((await zoom.textContent())?.replace("%", ""))).toBeGreaterThan(fitted);

  // The transparent PNG: its stored preview is a PNG with alpha (colour type 6), drawn on a checkerboard.
  const { list } = await api.call<{ list: { preview: string }[] }>("/api/asset/content/preview-by-list", {
    method: "POST",
    json: { ids: [ids.png], size: "thumb" },
  });
  const bytes = new Uint8Array(await (await fetch(new URL(list[0].preview, server.baseUrl), { headers: { authorization: `Bearer ${api.bearer}` } })).arrayBuffer());
  expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
  expect(bytes[25]).toBe(6);
  await page.goto(`/mam/${folderId}`);
  const tile = page.locator("[data-member]", { hasText: "логотип.png" });
  await expect.poll(() => tile.locator("img").evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0).catch(() => false), { timeout: 15_000 }).toBe(true);
  expect(await tile.locator("img").evaluate((el) => getComputedStyle(el).backgroundImage)).toContain("conic-gradient");
  await page.goto(`/mam/${folderId}/asset/${ids.png}`);
  await page.locator(".image-stage-view img").waitFor();
  expect(await checkered(page, ".image-stage-view img")).toContain("conic-gradient");
});

test("Markdown opens rendered without its raw HTML or unsafe links; CSV opens as a table of its first rows", async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto(`/mam/${folderId}/asset/${ids.md}`);
  const md = page.getByTestId("markdown-view");
  await md.waitFor();
  expect(await md.locator("h1").textContent()).toBe("Заметки к съёмке");
  expect(await md.locator("strong").textContent()).toBe("важного");
  expect(await md.locator("li").count()).toBe(2);
  const links = await md.locator("a").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href"), a.getAttribute("rel")]));
  expect(links).toEqual([
    ["ссылка", "https://example.com/brief", "noopener noreferrer nofollow"],
    ["[изображение: картинка]", "https://tracker.example/pixel.png", "noopener noreferrer nofollow"],
  ]);
  // Raw HTML is shown as text: no element made from it, nothing run, no remote picture fetched.
  expect(await md.locator("img, script").count()).toBe(0);
  expect(await md.textContent()).toContain('<img src="x" onerror=');
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();

  await page.goto(`/mam/${folderId}/asset/${ids.csv}`);
  const table = page.getByTestId("csv-view");
  await table.waitFor();
  expect(await table.locator("th").allTextContents()).toEqual(["Товар", "Цена", "Остаток"]);
  expect(await table.locator("tbody tr").first().locator("td").allTextContents()).toEqual(["Яблоки; зелёные", "120", "40"]);
  expect(await table.locator("tbody tr").count()).toBe(500);
  expect(await page.getByTestId("csv-note").textContent()).toContain("Показаны первые 500 строк");
});

test("tile actions and a starred tile keep to a corner; the share form's fields keep to their columns; form inputs line up", { timeout: 120_000 }, async ({ page, server }) => {
  await login(page, server.adminLogin, server.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${folderId}`);
  const tile = page.locator("[data-member]", { hasText: "скан.tif" });
  await tile.waitFor();
  await tile.hover();
  const media = (await tile.locator(".tile-media").boundingBox())!;
  const cluster = (await tile.locator(".row-actions").boundingBox())!;
  const check = (await tile.locator(".tile-check").boundingBox())!;
  // One row of at most two small buttons, and the checkbox: together under 15 % of the picture (half of it before).
  expect(cluster.height).toBeLessThanOrEqual(40);
  expect((cluster.width * cluster.height + check.width * check.height) / (media.width * media.height)).toBeLessThan(0.15);
  await shot(page, "viewer38-tile-hover-1440");

  // Starred, then left: only the star remains, with no dark panel behind it.
  await tile.getByRole("button", { name: /Добавить .* в избранное/ }).click();
  await page.mouse.move(5, 5);
  await page.locator("h1").first().click();
  await expect.poll(() => tile.locator(".row-actions").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgba(0, 0, 0, 0)");
  // What stays drawn is the star alone (the rest of the cluster is invisible), in one small row.
  const starred = (await tile.locator(".row-actions").boundingBox())!;
  expect(starred.height).toBeLessThanOrEqual(40);
  expect(starred.width * starred.height).toBeLessThan(0.1 * media.width * media.height);
  const drawn = await tile.locator(".row-actions > *").evaluateAll((els) => els.filter((el) => getComputedStyle(el).opacity !== "0" && getComputedStyle(el).display !== "none").length);
  expect(drawn).toBe(1);
  await shot(page, "viewer38-starred-1440");

  // The share dialog: «Права по ссылке» ends before «Пароль» begins (side by side) or above it (stacked).
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.goto(`/mam/${folderId}/asset/${ids.png}`);
    await page.getByRole("button", { name: "Поделиться", exact: true }).click();
    const dialog = page.getByRole("dialog");
    const select = (await dialog.locator("#share-right").boundingBox())!;
    const password = (await dialog.locator("#share-password").boundingBox())!;
    if (password.y < select.y + select.height) expect(select.x + select.width).toBeLessThanOrEqual(password.x);
    else expect(select.y + select.height).toBeLessThanOrEqual(password.y);
    expect(await dialog.locator("#share-right").evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await shot(page, `viewer38-share-${width}`);
    await page.keyboard.press("Escape");
  }

  // The new-field form: «Тип» and «Порядок» inputs on one line.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/admin/metadata/new");
  const type = (await page.locator("#tf-type").boundingBox())!;
  const order = (await page.getByLabel("Порядок", { exact: true }).boundingBox())!;
  expect(Math.abs(type.y - order.y)).toBeLessThanOrEqual(1);
  expect(Math.abs(type.height - order.height)).toBeLessThanOrEqual(1);
  await shot(page, "viewer38-new-field-1440");
});

test("the disk-helper dialog tells an administrator how to provide the helper and keeps «Подключить» off without one", async ({ page, server, pageErrors }) => {
  // No helper listens in this run: the dialog's status probe fails, as it does on a computer without one.
  pageErrors.expect(/ERR_CONNECTION_REFUSED|Failed to load resource/);
  await login(page, server.adminLogin, server.adminPassword);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/mam/${folderId}`);
  await page.getByRole("button", { name: "Открыть на компьютере" }).click();
  const dialog = page.getByTestId("disk-helper-dialog");
  await dialog.getByText("Помощник для локального диска не запущен на этом компьютере.").waitFor();
  await dialog.getByText("Программа помощника для этой системы ещё не выложена").waitFor();
  expect(await dialog.textContent()).not.toMatch(/Обратитесь к администратору/);
  expect(await page.getByRole("button", { name: "Подключить" }).isDisabled()).toBe(true);
  await shot(page, "viewer38-disk-helper-1440");
});

test("the reader sees the same viewer; his root table fits 390 px with «Изменено» in sight", { timeout: 120_000 }, async ({ browser, server }) => {
  for (const [width, height] of SIZES) {
    const { page } = await newPage(browser, { server, contextOptions: { viewport: { width, height } } });
    await login(page, reader.login, reader.password);
    await page.goto("/mam");
    const modified = page.getByRole("columnheader", { name: "Изменено" });
    await modified.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    const box = (await modified.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(await page.locator(".root-table").evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await shot(page, `viewer38-reader-root-${width}`);
    for (const [key, name] of [["tiff", "tiff"], ["png", "png"], ["md", "md"], ["csv", "csv"]] as const) {
      await page.goto(`/mam/${folderId}/asset/${ids[key]}`);
      await settled(page);
      await shot(page, `viewer38-reader-${name}-${width}`);
    }
    await page.goto(`/mam/${folderId}`);
    await page.locator("[data-member]").first().waitFor();
    await thumbsDrawn(page);
    await shot(page, `viewer38-reader-folder-${width}`);
  }
});

test("screens at both widths as administrator", { timeout: 120_000 }, async ({ browser, server }) => {
  for (const [width, height] of SIZES) {
    const { page } = await newPage(browser, { server, contextOptions: { viewport: { width, height } } });
    await login(page, server.adminLogin, server.adminPassword);
    for (const key of ["tiff", "png", "md", "csv"] as const) {
      await page.goto(`/mam/${folderId}/asset/${ids[key]}`);
      await settled(page);
      await shot(page, `viewer38-admin-${key}-${width}`);
    }
    await page.goto(`/mam/${folderId}`);
    await page.locator("[data-member]").first().waitFor();
    await thumbsDrawn(page);
    await shot(page, `viewer38-admin-folder-${width}`);
    await page.goto("/mam");
    await page.locator(".root-table").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await shot(page, `viewer38-admin-root-${width}`);
  }
});
