import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect } from "./fixtures";

const SHOTS = process.env.E2E_SCREENSHOTS;

/**
 * The page at a desktop's 1440×900 and a phone's 390×844: nothing may scroll sideways at either width, and a
 * screenshot of each goes to E2E_SCREENSHOTS (`<name>-<width>.png`) when it is set. Ends back at 1440×900.
 */
export async function atTwoWidths(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    // The navigation turns into a drawer below 900 px: its slide ends before the picture is taken.
    await page.waitForTimeout(600);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: false });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}
