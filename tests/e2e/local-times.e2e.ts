import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";
import { png } from "./png";

/**
 * Times in the visitor's own zone: a browser at UTC+5 (Asia/Yekaterinburg, no daylight saving) sees a file's
 * «Создан» and a link's «до 18:00» in its own time after hydration — the server's HTML says UTC and hydration
 * raises no mismatch (any console error fails the test) — with the zone in the tooltip; the link's picker takes
 * local time and the server stores the right instant.
 */

const ZONE = "Asia/Yekaterinburg";
const SHOTS = process.env.E2E_SCREENSHOTS;
const hhmm = (iso: string, offsetHours: number) => new Date(Date.parse(iso) + offsetHours * 3_600_000).toISOString().slice(11, 16);

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

test("at UTC+5 a file's «Создан» and a link's «до 18:00» are local, the zone in the tooltip, without hydration warnings", { timeout: 120_000 }, async ({ browser, server }) => {
  const api = await adminApi(server);
  const stamp = Date.now();
  const folder = await api.createGroup(ROOT, `Местное время ${stamp}`);
  const assetId = await api.uploadAsset(folder, "кадр.png", png(64, 48), "image/png");
  const asset = await api.call<{ ctime: string }>(`/api/asset/${assetId}?info=true`);

  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    const { page, errors } = await newPage(browser, { server, contextOptions: { timezoneId: ZONE, viewport: { width, height } } });
    const warnings: string[] = [];
    page.on("console", (m) => /hydrat|did not match|server rendered/i.test(m.text()) && warnings.push(m.text()));
    await login(page, server.adminLogin, server.adminPassword);

    // The viewer's «Создан»: UTC+5, and the tooltip names the zone.
    await page.goto(`/mam/${folder}/asset/${assetId}`);
    const created = page.locator("dt:text-is('Создан') + dd time");
    await created.waitFor();
    await expect.poll(() => created.textContent()).toContain(hhmm(asset.ctime, 5));
    expect(await created.textContent()).not.toContain(hhmm(asset.ctime, 0));
    expect(await created.getAttribute("title")).toContain(ZONE);
    expect(await created.getAttribute("datetime")).toBe(asset.ctime);

    // The library's root table is rendered on the server (UTC) and hydrated: local after, with no warnings.
    // Every page of the root: a whole e2e run makes more top-level folders than its first page of 50 shows.
    await page.goto("/mam?pages=40");
    const row = page.locator("[data-member]", { hasText: `Местное время ${stamp}` });
    await row.waitFor();
    await expect.poll(() => row.locator("time").getAttribute("title")).toContain(ZONE);

    if (width === 1440) {
      // A link «до 18:00» picked at UTC+5 is 13:00Z on the server and «18:00» in the list.
      await page.goto(`/mam/${folder}/asset/${assetId}`);
      await page.getByRole("button", { name: "Поделиться", exact: true }).click();
      const dialog = page.getByRole("dialog");
      await dialog.locator("#share-until").fill("2030-06-20T18:00");
      await dialog.getByRole("button", { name: "Создать ссылку" }).click();
      await dialog.getByTestId("share-url").waitFor();
      const chip = dialog.getByTestId("share-link").first().locator(".share-chip").filter({ hasText: "до" });
      await expect.poll(() => chip.textContent()).toContain("18:00");
      const links = await api.call<{ time_range: [string | null, string | null] }[]>(`/api/sl/for-entity/${assetId}`);
      expect(links.map((l) => l.time_range[1])).toContain("2030-06-20T13:00:00.000Z");
      await shot(page, "local-times-share-1440");
      await page.keyboard.press("Escape");
    }
    await page.goto(`/mam/${folder}/asset/${assetId}`);
    await created.waitFor();
    await expect.poll(() => created.getAttribute("title")).toContain(ZONE);
    await shot(page, `local-times-viewer-${width}`);
    expect(warnings).toEqual([]);
    expect(errors.unexpected()).toEqual([]);
  }
});
