import type { Page } from "playwright-core";
import { expect, login, test, type E2EServer } from "./fixtures";
import { openNewFolder } from "./library-steps";
import { png } from "./png";

// A day of real use without friction (issue 28): the upload panel steps aside when a batch is done and keeps only
// the failures; each finished file's tile appears within a second, without the grid reloading; one tab stop per
// grid; the viewer's header is one row; the search box closes on Enter and ↓ Enter opens a file; snippets show ё.

/** A word nobody else uses in this run: letters only, so it is one search word. */
function uniqueWord(prefix: string): string {
  const letters = "бвгдзклмнпрстфх";
  return `${prefix}${[...String(Date.now()).slice(-6)].map((d) => letters[Number(d)]).join("")}`;
}

/** The API as the signed-in page calls it, from Node. */
async function api(page: Page, server: E2EServer, path: string, init: RequestInit = {}) {
  const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
  const response = await fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${bearer}`, "x-api-version": "1.0", ...(init.headers ?? {}) },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
}

/** Stores a small file in a folder in one request (POST /api/asset/upload); answers its id. */
async function putFile(page: Page, server: E2EServer, groupId: string, name: string, mime: string, body: Buffer): Promise<string> {
  const query = new URLSearchParams({ in_group: groupId, name, mime });
  const done = await api(page, server, `/api/asset/upload?${query}`, { method: "POST", body: new Uint8Array(body), headers: { "content-type": mime } });
  return done.asset_id as string;
}

const tiles = (page: Page) => page.locator(".member-grid [data-member]");
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.closest("[data-member]")?.querySelector(".tile-name")?.textContent ?? null);

test(
  "uploads: each tile appears within a second of its file committing, the grid never reloads, the panel collapses to the failures",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const stamp = Date.now();
    await login(page, server.adminLogin, server.adminPassword);
    await openNewFolder(page, `Поток ${stamp}`);
    // One file the server refuses: its batch fails, then its own request does (the others go again on their own).
    const broken = "broken-file.txt";
    await page.context().route("**/api/asset/upload-batch**", async (route) => {
      if (route.request().postDataBuffer()?.includes(broken)) await route.fulfill({ status: 400, json: { statusCode: 400, message: "Файл отклонён", error: "Bad Request" } });
      else await route.continue();
    });
    await page.context().route("**/api/asset/upload?**", async (route) => {
      if (new URL(route.request().url()).searchParams.get("name") === broken) {
        await route.fulfill({ status: 400, json: { statusCode: 400, message: "Файл отклонён", error: "Bad Request" } });
      } else await route.continue();
    });

    // Watch the page: when each row says «Готово», when each tile appears, whether the grid ever emptied or said «Загрузка…».
    await page.evaluate(() => {
      type Watch = { done: Record<string, number>; tile: Record<string, number>; blanked: boolean; most: number };
      const w = window as unknown as { __watch: Watch };
      const watch: Watch = (w.__watch = { done: {}, tile: {}, blanked: false, most: 0 });
      const note = () => {
        const now = performance.now();
        for (const row of document.querySelectorAll<HTMLElement>(".upload-row[data-status=completed]")) watch.done[row.getAttribute("aria-label")!] ??= now;
        const members = document.querySelectorAll<HTMLElement>(".member-grid [data-member]");
        for (const tile of members) watch.tile[tile.querySelector(".tile-name")?.textContent ?? ""] ??= now;
        if (members.length < watch.most) watch.blanked = true;
        watch.most = Math.max(watch.most, members.length);
        const loading = document.querySelector(".group-page")?.textContent?.includes("Загрузка…");
        if (loading && watch.most > 0) watch.blanked = true;
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
    });

    const names = Array.from({ length: 12 }, (_, i) => `Кадр ${String(i + 1).padStart(2, "0")} ${stamp}.png`);
    await page.getByTestId("upload-input").setInputFiles([
      ...names.map((name, i) => ({ name, mimeType: "image/png", buffer: png(40 + i, 30, 120) })),
      { name: broken, mimeType: "text/plain", buffer: Buffer.from("отклонят") },
    ]);

    // All finished, one failed: the panel lists only the failure, the finished rows are out of sight.
    const panel = page.getByTestId("upload-panel");
    await expect.poll(() => page.getByTestId("upload-summary").textContent(), { timeout: 60_000 }).toBe("Загружено 12 из 13 · 1 ошибка");
    await expect.poll(() => panel.locator(".upload-row:visible").count()).toBe(1);
    expect(await panel.locator(".upload-row:visible").getAttribute("aria-label")).toBe(broken);
    expect(await panel.locator(".upload-row:visible").getAttribute("data-status")).toBe("error");
    await panel.getByRole("button", { name: "Показать все" }).waitFor();

    // Every tile came within a second of its file being done, and the grid never blanked.
    await expect.poll(() => tiles(page).count(), { timeout: 10_000 }).toBe(12);
    const watch = await page.evaluate(() => (window as unknown as { __watch: { done: Record<string, number>; tile: Record<string, number>; blanked: boolean } }).__watch);
    for (const name of names) {
      expect(watch.tile[name], `${name} has a tile`).toBeDefined();
      expect(watch.done[name], `${name} was done`).toBeDefined();
      expect(watch.tile[name] - watch.done[name], `${name}: tile after done, ms`).toBeLessThanOrEqual(1_000);
    }
    expect(watch.blanked).toBe(false);

    // A new page (as after signing in again): the finished batch is a pill, not an open panel.
    await page.reload();
    await page.getByTestId("upload-pill").waitFor();
    expect(await page.locator('[data-testid="upload-panel"]:visible').count()).toBe(0);
    expect(await page.getByTestId("upload-pill").textContent()).toContain("1 ошибка");
    // Reopened, the list shows the failure; once it is dismissed the pill says all is done and fades away for good.
    await page.getByTestId("upload-pill").click();
    await panel.getByRole("button", { name: `Убрать из списка: ${broken}` }).click();
    await expect.poll(() => page.getByTestId("upload-pill").textContent().catch(() => null), { timeout: 10_000 }).toBe("Загружено 12 из 12");
    await page.getByTestId("upload-pill").waitFor({ state: "detached", timeout: 15_000 });
    await page.reload();
    await tiles(page).first().waitFor();
    await page.waitForTimeout(1_500);
    expect(await page.locator("[data-testid=upload-pill], [data-testid=upload-panel]").count()).toBe(0);
  },
);

test(
  "a folder of 30 files: one tab stop in the grid, End reaches the 30th tile, Tab leaves; the viewer's header is one row",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const stamp = Date.now();
    await login(page, server.adminLogin, server.adminPassword);
    await page.setViewportSize({ width: 1440, height: 900 });
    const groupId = await openNewFolder(page, `Тридцать ${stamp}`);
    for (let i = 1; i <= 30; i++) await putFile(page, server, groupId, `Снимок ${String(i).padStart(2, "0")}.png`, "image/png", png(32, 24, 100 + i));
    await page.reload();
    await expect.poll(() => tiles(page).count(), { timeout: 15_000 }).toBe(30);

    // One tab stop: Tab from the control before the grid lands on the first tile, End on the 30th (two presses).
    const firstName = page.locator(".tile-name").first();
    expect(await page.locator(".member-grid [tabindex='0'], .member-grid a:not([tabindex]), .member-grid button:not([tabindex])").count()).toBe(1);
    await firstName.focus();
    await page.keyboard.press("Shift+Tab");
    expect(await focusedName(page)).toBeNull();
    await page.keyboard.press("Tab");
    expect(await focusedName(page)).toBe("Снимок 01.png");
    await page.keyboard.press("End");
    expect(await focusedName(page)).toBe("Снимок 30.png");
    // Tab leaves the grid in one press; Shift+Tab comes back to the same tile.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest(".member-grid")))).toBe(false);
    await page.keyboard.press("Shift+Tab");
    expect(await focusedName(page)).toBe("Снимок 30.png");
    // The focus ring is drawn.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!.closest(".tile")!).outlineStyle)).toBe("solid");
    // Home, arrows, PageUp/PageDown, Space selects, Shift+F10 opens the tile's menu, Enter opens the file.
    await page.keyboard.press("Home");
    expect(await focusedName(page)).toBe("Снимок 01.png");
    await page.keyboard.press("ArrowRight");
    expect(await focusedName(page)).toBe("Снимок 02.png");
    await page.keyboard.press("PageDown");
    expect(await focusedName(page)).not.toBe("Снимок 02.png");
    await page.keyboard.press("PageUp");
    expect(await focusedName(page)).toBe("Снимок 02.png");
    await page.keyboard.press("Space");
    await expect.poll(() => page.locator(".tile.selected").count()).toBe(1);
    await page.keyboard.press("Shift+F10");
    await page.getByRole("menu").waitFor();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");

    // The viewer of the 27th file: one row of header at 1440 px, «← К папке» and «27 из 30» each on one line.
    await page.locator(".tile-name", { hasText: "Снимок 27.png" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Снимок 27.png" }).waitFor();
    await page.locator(".viewer-nav-count", { hasText: "27 из 30" }).waitFor();
    const header = async () =>
      page.evaluate(() => {
        const head = document.querySelector<HTMLElement>(".viewer-head")!;
        const shown = [...head.querySelectorAll<HTMLElement>(".toolbar > *")].filter((el) => el.getBoundingClientRect().width > 0);
        const tops = new Set(shown.map((el) => Math.round(el.getBoundingClientRect().top)));
        const lineHeight = (el: Element) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || "20");
        return {
          rows: tops.size,
          back: lineHeight(head.querySelector(".breadcrumbs a")!),
          count: lineHeight(head.querySelector(".viewer-nav-count")!),
          height: head.getBoundingClientRect().height,
          title: head.querySelector("h1")!.getBoundingClientRect().height,
        };
      });
    const wide = await header();
    expect(wide.rows).toBe(1);
    expect(wide.back).toBeLessThan(1.5);
    expect(wide.count).toBeLessThan(1.5);
    expect(wide.height).toBeLessThanOrEqual(80);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(async () => (await header()).rows).toBe(1);
    expect((await header()).back).toBeLessThan(1.5);
  },
);

test(
  "search: Enter closes the suggestions for good, ↓ Enter on a file opens it, a snippet shows the text's own ё",
  { timeout: 120_000 },
  async ({ page, server }) => {
    const word = uniqueWord("дюна");
    await login(page, server.adminLogin, server.adminPassword);
    const groupId = await openNewFolder(page, `Съёмка ${word}`);
    const fileId = await putFile(page, server, groupId, `План ${word}.png`, "image/png", png(32, 24, 90));
    const text = `Итоги дня ${word}. Отчёт по съёмке на пляже готов, всё снято.`;
    await putFile(page, server, groupId, `Итоги ${word}.txt`, "text/plain", Buffer.from(text));

    // Enter right after typing: the list does not come back over the results.
    const box = page.getByRole("combobox", { name: "Поиск по файлам" });
    const list = page.getByRole("listbox", { name: "Подсказки" });
    await box.click();
    await box.pressSequentially(word.slice(0, 8), { delay: 20 });
    await box.press("Enter");
    await expect.poll(() => new URL(page.url()).pathname).toBe("/search");
    await page.waitForTimeout(1_000);
    expect(await list.count()).toBe(0);

    // ↓ to the file's suggestion and Enter: the file opens.
    await box.fill(`План ${word.slice(0, 6)}`);
    await list.waitFor();
    const option = list.getByRole("option", { name: `План ${word}.png` });
    await option.waitFor();
    const index = (await list.getByRole("option").allTextContents()).indexOf(`План ${word}.png`);
    for (let i = 0; i <= index; i++) await box.press("ArrowDown");
    await expect.poll(() => option.getAttribute("aria-selected")).toBe("true");
    await box.press("Enter");
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/asset/${fileId}`);
    await page.getByRole("heading", { level: 1, name: `План ${word}.png` }).waitFor();
    expect(await list.count()).toBe(0);

    // The text is extracted in the background: search until its snippet shows, in the file's own letters.
    const snippet = page.getByTestId("search-hits").locator(".search-hit", { hasText: `Итоги ${word}.txt` }).locator(".search-hit-snippet");
    await expect
      .poll(
        async () => {
          await page.goto(`/search?q=${encodeURIComponent(`съемке ${word}`)}`);
          return snippet.textContent({ timeout: 3_000 }).catch(() => null);
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toContain("Отчёт по съёмке");
    expect(await snippet.locator("mark").allTextContents()).toContain("съёмке");
  },
);
