import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT } from "./admin-seed";
import { expect, login, newPage, test } from "./fixtures";

// «История» of a file and of a folder: the administrator (and whoever manages the file's rights) reads who
// uploaded, renamed, downloaded it and from where, with the file's download count; a reader does not get the section
// at all, on a desktop and on a phone.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

const SIZES = [
  { width: 1440, height: 900, tag: "1440" },
  { width: 390, height: 844, tag: "390" },
] as const;

test("the viewer's «История»: events in Russian with the download count for the administrator, absent for a reader", async ({
  browser,
  server,
}) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `История ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const fileId = await api.uploadAsset(folderId, "черновик.txt", Buffer.from(`текст ${stamp}\n`), "text/plain");
  await api.call(`/api/asset/${fileId}`, { method: "PATCH", json: { asset_name: "смета.txt" } });
  // one download through the API
  const download = await fetch(new URL(`/api/asset/content/download/${fileId}/latest/initial`, server.baseUrl), {
    headers: { authorization: `Bearer ${api.bearer}` },
  });
  expect(download.status).toBe(200);
  await download.arrayBuffer();
  const reader = { name: `Читатель ${stamp}`, login: `hist-reader-${stamp}`, password: "пароль-читателя-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: reader.name, user_login: reader.login, user_passwd: reader.password, enabled: true },
  });
  await api.call("/api/user/acl", { json: { subj: user_id, obj: folderId, acl: ["read", "download"] } });

  for (const size of SIZES) {
    const admin = await newPage(browser, { server });
    await admin.page.setViewportSize({ width: size.width, height: size.height });
    await login(admin.page, server.adminLogin, server.adminPassword);
    await admin.page.goto(`/mam/${folderId}/asset/${fileId}`);
    const history = admin.page.getByTestId("asset-history");
    await history.waitFor();
    const count = history.getByTestId("download-count");
    await count.waitFor();
    expect(await count.textContent()).toBe("Скачиваний: 1");
    const upload = history.locator('[data-action="asset.upload"]');
    await upload.waitFor();
    expect(await upload.textContent()).toContain("Загрузка файла");
    const rename = history.locator('[data-action="asset.rename"]');
    expect(await rename.textContent()).toContain("прежнее имя «черновик.txt»");
    expect(await history.locator('[data-action="asset.download"]').textContent()).toContain("через API");
    await history.scrollIntoViewIfNeeded();
    await shot(admin.page, `audit-history-viewer-admin-${size.tag}`);

    // the folder's history from its header lists the file's events with its name
    await admin.page.goto(`/mam/${folderId}`);
    await admin.page.getByTestId("folder-history").click();
    const dialog = admin.page.getByRole("dialog", { name: `История папки «${folder}»` });
    await dialog.locator('[data-action="asset.rename"]', { hasText: "смета.txt" }).waitFor();
    await dialog.getByRole("button", { name: "Папки" }).click();
    await dialog.locator('[data-action="group.create"]').first().waitFor();
    await expect.poll(() => dialog.locator('[data-action^="asset."]').count(), { timeout: 10_000 }).toBe(0);
    await shot(admin.page, `audit-history-folder-admin-${size.tag}`);
    await admin.finish();

    const visitor = await newPage(browser, { server });
    await visitor.page.setViewportSize({ width: size.width, height: size.height });
    await login(visitor.page, reader.login, reader.password);
    await visitor.page.goto(`/mam/${folderId}/asset/${fileId}`);
    await visitor.page.locator(".info-panel").waitFor();
    await visitor.page.getByText("смета.txt").first().waitFor();
    expect(await visitor.page.getByTestId("asset-history").count()).toBe(0);
    await visitor.page.goto(`/mam/${folderId}`);
    await visitor.page.locator("[data-member]", { hasText: "смета.txt" }).waitFor();
    expect(await visitor.page.getByTestId("folder-history").count()).toBe(0);
    await shot(visitor.page, `audit-history-viewer-reader-${size.tag}`);
    await visitor.finish();
  }

  // the audit screen names the file and offers the family
  const admin = await newPage(browser, { server });
  await admin.page.setViewportSize({ width: 1440, height: 900 });
  await login(admin.page, server.adminLogin, server.adminPassword);
  await admin.page.goto("/admin/audit");
  await admin.page.getByLabel("Действие").selectOption("asset.*");
  const row = admin.page.locator('tr[data-action="asset.rename"]', { hasText: "смета.txt" }).first();
  await row.waitFor();
  expect(await row.textContent()).toContain("Переименование");
  expect(await row.textContent()).toContain("Было: черновик.txt");
  await shot(admin.page, "audit-history-admin-audit-1440");
  await admin.finish();
}, 180_000);
