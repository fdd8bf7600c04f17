import { join } from "node:path";
import { expect, login, test } from "./fixtures";
import { openRootFolder } from "./library-steps";

// The viewer's image: zoom in and out with the buttons, back to «по размеру» with a double click, and full screen.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

test("an image in the viewer zooms, fits again on a double click and goes full screen", { timeout: 120_000 }, async ({ page, server }) => {
  const folder = `Масштаб ${Date.now()}`;
  await login(page, server.adminLogin, server.adminPassword);
  await page.goto("/mam");
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Создать папку" });
  await dialog.getByLabel("Название папки").fill(folder);
  await dialog.getByRole("button", { name: "Создать" }).click();
  await openRootFolder(page, folder);
  await page.getByTestId("upload-input").setInputFiles(join(FIXTURES, "photo-1600x1200.jpg"));
  await page.locator("[data-member]", { hasText: "photo-1600x1200.jpg" }).getByRole("link", { name: "photo-1600x1200.jpg", exact: true }).click();

  const view = page.locator(".image-stage-view");
  const zoom = page.getByTestId("image-zoom");
  await page.locator(".image-stage-view img").evaluate((img: HTMLImageElement) => img.decode());
  expect(await view.getAttribute("data-zoom")).toBe("fit");
  const fitted = Number((await zoom.textContent())?.replace("%", ""));
  expect(fitted).toBeLessThan(100);

  await page.getByRole("button", { name: "Увеличить (+)" }).click();
  await expect.poll(async () => Number((await zoom.textContent())?.replace("%", ""))).toBeGreaterThan(fitted);
  await zoom.click();
  await expect.poll(() => view.getAttribute("data-zoom")).toBe("fit");
  await zoom.click();
  await expect.poll(() => zoom.textContent()).toBe("100%");
  // 1600 px at 100% is wider than the stage: it scrolls (pans) instead of shrinking.
  expect(await view.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await view.dblclick();
  await expect.poll(() => view.getAttribute("data-zoom")).toBe("fit");

  await page.getByRole("button", { name: "Во весь экран (F)" }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement?.className ?? "")).toContain("image-stage");
  await page.getByRole("button", { name: "Выйти из полноэкранного режима (F)" }).click();
  await expect.poll(() => page.evaluate(() => document.fullscreenElement === null)).toBe(true);
});
