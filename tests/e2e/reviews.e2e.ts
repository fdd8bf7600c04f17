import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// Review decisions in the UI: the owner approves version 2 in the viewer's «Согласование» section, the badge shows in
// the viewer and on the folder's tile; a reader sees the badge and the trail but is offered no way to decide.
// Screenshots at 1440×900 and 390×844 go to E2E_SCREENSHOTS when it is set.

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A second version of an asset, uploaded as any API client does. */
async function uploadVersion(api: AdminApi, assetId: string, name: string, bytes: Buffer, mime: string) {
  const info = await api.call<{ upload_url: string; headers: Record<string, string> }>(`/api/asset/create-version/${assetId}`, {
    json: { file_name: name, mime_type: mime, size: bytes.byteLength },
  });
  const put = await fetch(info.upload_url, { method: "PUT", body: new Uint8Array(bytes), headers: info.headers });
  expect(put.ok).toBe(true);
}

test("the owner approves version 2; the badge shows in the viewer and on the tile; a reader sees it but cannot set it", { timeout: 180_000 }, async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Согласование ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const name = `Обложка ${stamp}.jpg`;
  const assetId = await api.uploadAsset(folderId, name, await readFile(join(FIXTURES, "tiny-200x100.jpg")), "image/jpeg");
  await uploadVersion(api, assetId, name, await readFile(join(FIXTURES, "photo-1600x1200.jpg")), "image/jpeg");
  const reader = { name: `Читатель ${stamp}`, login: `reader-${stamp}`, password: "пароль-читателя-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: reader.name, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read"] } });

  for (const width of [1440, 390] as const) {
    const { page, finish } = await newPage(browser, { server, autoFinish: false });
    await page.setViewportSize(width === 1440 ? { width: 1440, height: 900 } : { width: 390, height: 844 });
    await login(page, server.adminLogin, server.adminPassword);
    await page.goto(`/mam/${folderId}/asset/${assetId}`);
    const panel = page.getByTestId("review-panel");
    await panel.waitFor();
    await expect.poll(() => panel.locator(".review-current").textContent()).toContain("версия 2");
    await panel.getByTestId("review-status").selectOption("approved");
    await panel.getByTestId("review-note").fill(width === 1440 ? "Цвет как в макете" : "Согласовано с телефона");
    await panel.getByTestId("review-save").click();
    await expect.poll(() => page.locator(".viewer-review-badge").textContent(), { timeout: 15_000 }).toBe("Согласовано");
    await expect.poll(() => panel.getByTestId("review-history").locator("li").count(), { timeout: 15_000 }).toBe(width === 1440 ? 1 : 2);
    expect(await panel.getByTestId("review-history").locator("li").first().textContent()).toContain("версия 2");
    await panel.scrollIntoViewIfNeeded();
    await shot(page, `reviews-viewer-owner-${width}`);

    // The request dialog: a user picker and a due date in local time.
    await panel.getByTestId("review-request").click();
    const dialog = page.getByRole("dialog", { name: "Запросить согласование" });
    await dialog.waitFor();
    await dialog.getByTestId("review-reviewer").fill(reader.login.slice(0, 8));
    await dialog.getByRole("option", { name: new RegExp(reader.name) }).click();
    await dialog.getByTestId("review-due").fill("2030-01-15T18:00");
    await shot(page, `reviews-request-dialog-${width}`);
    await dialog.getByTestId("review-request-send").click();
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => panel.textContent()).toContain(reader.name);

    // The folder's tile carries the badge.
    await page.goto(`/mam/${folderId}`);
    const tile = page.locator(`[data-member="${assetId}"]`);
    await tile.waitFor();
    if (await page.locator(".member-grid").count()) {
      await expect.poll(() => tile.locator(".review-badge").textContent()).toBe("Согласовано");
    }
    await shot(page, `reviews-folder-badge-${width}`);
    // The filter keeps approved files.
    await page.getByTestId("review-filter").selectOption("rejected");
    await expect.poll(() => page.locator(`[data-member="${assetId}"]`).count()).toBe(0);
    await page.getByTestId("review-filter").selectOption("approved");
    await page.locator(`[data-member="${assetId}"]`).waitFor();
    await finish();
  }

  // The reader, on a file nobody asked him about: the badge and the trail, no form, and the server refuses him.
  const other = await api.uploadAsset(folderId, `Другой ${stamp}.jpg`, await readFile(join(FIXTURES, "tiny-200x100.jpg")), "image/jpeg");
  await api.call(`/api/asset/${other}/review`, { method: "PUT", json: { status: "rejected", note: "Не тот кадр" } });
  for (const width of [1440, 390] as const) {
    const { page, finish } = await newPage(browser, { server, autoFinish: false });
    await page.setViewportSize(width === 1440 ? { width: 1440, height: 900 } : { width: 390, height: 844 });
    await login(page, reader.login, reader.password);
    await page.goto(`/mam/${folderId}/asset/${other}`);
    const panel = page.getByTestId("review-panel");
    await panel.waitFor();
    await expect.poll(() => page.locator(".viewer-review-badge").textContent(), { timeout: 15_000 }).toBe("Отклонено");
    await expect.poll(() => panel.getByTestId("review-history").locator("li").count(), { timeout: 15_000 }).toBe(1);
    expect(await panel.getByTestId("review-save").count()).toBe(0);
    expect(await panel.locator(".review-cannot").count()).toBe(1);
    await panel.scrollIntoViewIfNeeded();
    await shot(page, `reviews-viewer-reader-${width}`);
    // The server refuses him too.
    const bearer = await page.evaluate(() => localStorage.getItem("accessToken"));
    expect(await api.status(`/api/asset/${other}/review`, bearer ?? "")).toBe(200);
    const put = await fetch(new URL(`/api/asset/${other}/review`, server.baseUrl), {
      method: "PUT",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "approved" }),
    });
    expect(put.status).toBe(403);
    await finish();
  }
});
