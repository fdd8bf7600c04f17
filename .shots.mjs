// Screens of issue 28 at 1440 and 390 px (run from the worktree with the build present).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startDevServer } from "./scripts/dev-server.mjs";
import { png } from "./.png.mjs";

const OUT = "/tmp/dailygrid";
const ROOT = "f".repeat(32);
const server = await startDevServer({ port: 8861, persistDir: await mkdtemp(join(tmpdir(), "dailygrid-shots-")) });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const base = server.url;
  const login = await (await fetch(`${base}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user: server.adminLogin, passwd: server.adminPassword }) })).json();
  const h = { authorization: `Bearer ${login.bearer}`, "x-api-version": "1.0" };
  const post = async (path, init) => (await fetch(`${base}${path}`, { method: "POST", ...init, headers: { ...h, ...(init.headers ?? {}) } })).json();
  const group = await post("/api/group/create", { body: JSON.stringify({ parent: ROOT, group_name: "Съёмка на пляже" }), headers: { "content-type": "application/json" } });
  const ids = [];
  for (let i = 1; i <= 30; i++) {
    const q = new URLSearchParams({ in_group: group.group_id, name: `Кадр ${String(i).padStart(2, "0")}.png`, mime: "image/png" });
    ids.push((await post(`/api/asset/upload?${q}`, { body: png(160, 120, 60 + i * 6), headers: { "content-type": "image/png" } })).asset_id);
  }
  const text = "Итоги дня. Отчёт по съёмке на пляже готов: всё снято, осталось выбрать лучшие кадры для заказчика.";
  const q = new URLSearchParams({ in_group: group.group_id, name: "Отчёт по съёмке.txt", mime: "text/plain" });
  await post(`/api/asset/upload?${q}`, { body: new TextEncoder().encode(text), headers: { "content-type": "text/plain" } });

  for (const [w, hgt, tag] of [[1440, 900, "1440"], [390, 844, "390"]]) {
    const context = await browser.newContext({ baseURL: base, viewport: { width: w, height: hgt }, locale: "ru-RU", ...(w < 500 ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) });
    const page = await context.newPage();
    await page.goto("/login");
    await page.locator('input[name="user"]').fill(server.adminLogin);
    await page.locator('input[name="passwd"]').fill(server.adminPassword);
    await page.getByRole("button", { name: "Войти" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });

    // Grid with the keyboard focus on a tile.
    await page.goto(`/mam/${group.group_id}`);
    await page.locator(".member-grid [data-member]").nth(29).waitFor();
    await page.locator(".tile-name").first().focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowDown");
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${OUT}/grid-focus-${tag}.png` });

    // An upload under way (slowed), then the errors-only panel, then the pill.
    await page.context().route("**/api/asset/upload**", async (route) => {
      const body = route.request().postDataBuffer();
      if (route.request().url().includes("broken") || body?.includes("broken")) return route.fulfill({ status: 400, json: { statusCode: 400, message: "Файл отклонён сервером", error: "Bad Request" } });
      await new Promise((r) => setTimeout(r, 2500));
      await route.continue().catch(() => undefined);
    });
    await page.getByTestId("upload-input").setInputFiles([
      ...Array.from({ length: 6 }, (_, i) => ({ name: `Новый ${tag}-${i + 1}.png`, mimeType: "image/png", buffer: png(80, 60, 200 - i * 20) })),
      { name: `broken-${tag}.txt`, mimeType: "text/plain", buffer: Buffer.from("x") },
    ]);
    await page.waitForTimeout(1200);
    await page.screenshot({ path: `${OUT}/upload-running-${tag}.png` });
    await page.locator('[data-testid="upload-panel"][data-phase="panel"] .upload-row[data-status="error"]:visible').waitFor({ timeout: 60_000 }).catch(() => undefined);
    await page.waitForFunction(() => document.querySelector('[data-testid="upload-summary"]')?.textContent?.includes("ошибка"), null, { timeout: 60_000 }).catch(() => undefined);
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${OUT}/upload-errors-only-${tag}.png` });
    await page.getByRole("button", { name: `Убрать из списка: broken-${tag}.txt` }).click().catch(() => undefined);
    await page.getByTestId("upload-pill").waitFor({ timeout: 15_000 }).catch(() => undefined);
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${OUT}/upload-pill-${tag}.png` });
    await page.context().unroute("**/api/asset/upload**");

    // Viewer of the 27th file.
    await page.goto(`/mam/${group.group_id}/asset/${ids[26]}`);
    await page.locator(".viewer-nav-count").waitFor();
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${OUT}/viewer-${tag}.png` });
    await page.getByRole("button", { name: "Ещё" }).click().catch(() => undefined);
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${OUT}/viewer-more-${tag}.png` });
    await page.keyboard.press("Escape");

    // Search: suggestions, then results with the snippet in ё.
    await page.goto(`/mam/${group.group_id}`);
    const box = page.getByRole("combobox", { name: "Поиск по файлам" });
    if (await box.isVisible()) {
      await box.fill("Отч");
      await page.getByRole("listbox").waitFor({ timeout: 5000 }).catch(() => undefined);
      await page.screenshot({ path: `${OUT}/search-suggest-${tag}.png` });
    }
    for (let i = 0; i < 30; i++) {
      await page.goto(`/search?q=${encodeURIComponent("съемке")}`);
      if (await page.locator(".search-hit-snippet").first().isVisible({ timeout: 2000 }).catch(() => false)) break;
      await page.waitForTimeout(1000);
    }
    await page.screenshot({ path: `${OUT}/search-snippet-${tag}.png` });
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
}
