import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { expect, login, newPage, test } from "./fixtures";

/**
 * A real WebM video (about 2.5 s, 160×120, VP8) recorded in the page from a canvas with MediaRecorder: no video
 * fixture or encoder is needed on the machine.
 */
async function recordVideo(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const canvas = document.createElement("canvas");
    canvas.width = 160;
    canvas.height = 120;
    const ctx = canvas.getContext("2d")!;
    const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: "video/webm;codecs=vp8" });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (e) => chunks.push(e.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(100);
    const start = performance.now();
    await new Promise<void>((resolve) => {
      const draw = () => {
        const t = performance.now() - start;
        ctx.fillStyle = `hsl(${Math.floor(t / 8) % 360}, 80%, 50%)`;
        ctx.fillRect(0, 0, 160, 120);
        ctx.fillStyle = "#fff";
        ctx.fillRect((t / 20) % 160, 50, 20, 20);
        if (t < 2500) requestAnimationFrame(draw);
        else resolve();
      };
      draw();
    });
    recorder.stop();
    await stopped;
    const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    return btoa(binary);
  });
  return Buffer.from(base64, "base64");
}

/** A moment as a datetime-local value in the page's own time zone. */
function localInput(page: Page, offsetMs: number): Promise<string> {
  return page.evaluate((offset) => {
    const d = new Date(Date.now() + offset);
    const pad = (n: number) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  }, offsetMs);
}

test("share a video with a password and a date range; a visitor without a session unlocks, plays, seeks and downloads it; revoking closes it", async ({
  page,
  server,
  browser,
}) => {
  await login(page, server.adminLogin, server.adminPassword);
  const folder = `Показ ${Date.now()}`;
  await page.getByRole("button", { name: "Создать папку" }).first().click();
  const create = page.getByRole("dialog", { name: "Создать папку" });
  await create.getByLabel("Название папки").fill(folder);
  await create.getByRole("button", { name: "Создать" }).click();
  await create.waitFor({ state: "detached" });
  await page.getByRole("link", { name: folder }).click();

  const video = await recordVideo(page);
  expect(video.byteLength).toBeGreaterThan(1000);
  await page.getByTestId("upload-input").setInputFiles({ name: "ролик.webm", mimeType: "video/webm", buffer: video });
  const tile = page.locator("[data-member]", { hasText: "ролик.webm" });
  await tile.waitFor();
  await tile.getByRole("link", { name: "ролик.webm" }).click();
  // The viewer loads the asset after navigating: wait for its heading (a busy machine takes more than a second).
  await page.getByRole("heading", { level: 1, name: "ролик.webm" }).waitFor();

  // The share dialog: download rights, a password, a window from an hour ago to tomorrow.
  await page.getByRole("button", { name: "Поделиться", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Поделиться «ролик.webm»" });
  await dialog.getByLabel("Права по ссылке").selectOption("download");
  await dialog.getByLabel("Пароль (необязательно)").fill("тайна-2026");
  await dialog.getByLabel("Действует с").fill(await localInput(page, -3600_000));
  await dialog.getByLabel("Действует до").fill(await localInput(page, 86_400_000));
  await dialog.getByRole("button", { name: "Создать ссылку" }).click();
  const url = await dialog.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${server.baseUrl}/sl/[A-Za-z0-9_-]{22}$`));
  await dialog.getByTestId("share-link").first().waitFor();
  expect(await dialog.getByTestId("share-link").first().textContent()).toContain("с паролем");

  // A visitor: a fresh browser context, no session.
  const visitor = await newPage(browser, { server });
  const v = visitor.page;
  // The password form and a wrong password's answer are ordinary pages: no 401 in the console (any error fails).
  const ranged: number[] = [];
  v.on("response", (r) => r.url().includes("/api/sl/media/") && r.request().headers().range && ranged.push(r.status()));
  await v.goto(url);
  await v.getByTestId("shared-password").waitFor();
  expect(await v.locator('meta[name="robots"]').getAttribute("content")).toContain("noindex");
  await v.getByLabel("Пароль").fill("не та");
  await v.getByRole("button", { name: "Открыть" }).click();
  await v.getByText("Неверный пароль").waitFor();
  await v.getByLabel("Пароль").fill("тайна-2026");
  await v.getByRole("button", { name: "Открыть" }).click();

  // Play and seek: the link's media URL answers ranges.
  const player = v.getByTestId("shared-video");
  await player.waitFor();
  expect(await v.locator("h1").textContent()).toBe("ролик.webm");
  expect(await v.locator('meta[property="og:title"]').getAttribute("content")).toBe("ролик.webm");
  await v.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await player.evaluate(async (el: HTMLVideoElement) => {
    el.muted = true;
    await el.play();
  });
  await expect.poll(() => player.evaluate((el: HTMLVideoElement) => el.currentTime), { timeout: 10_000 }).toBeGreaterThan(0);
  await player.evaluate(
    (el: HTMLVideoElement) =>
      new Promise<void>((resolve) => {
        el.pause();
        el.addEventListener("seeked", () => resolve(), { once: true });
        el.currentTime = 1.5;
      }),
  );
  expect(await player.evaluate((el: HTMLVideoElement) => el.currentTime)).toBeGreaterThanOrEqual(1.4);
  expect(ranged).toContain(206);

  // Download: the same bytes as uploaded.
  const [download] = await Promise.all([v.waitForEvent("download"), v.getByTestId("shared-download").click()]);
  expect(download.suggestedFilename()).toBe("ролик.webm");
  expect(Buffer.compare(await readFile((await download.path())!), video)).toBe(0);

  // Revoke in the app; the visitor's page refuses from now on.
  await dialog.getByRole("button", { name: "Отозвать" }).first().click();
  await dialog.getByText("Ссылок пока нет").waitFor();
  visitor.errors.expect(/status of 410/); // the revoked page answers 410 Gone
  await v.reload();
  await v.getByText("Ссылка отозвана").first().waitFor();
  expect(await v.getByTestId("shared-closed").textContent()).toContain("Автор больше не делится");
});
