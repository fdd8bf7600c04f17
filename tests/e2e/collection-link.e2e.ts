import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { png } from "./png";

// A collection shared by a public link (decision record 034): its owner makes the link from the collection's share
// dialog («Ссылка»); an anonymous visitor sees the items the owner may read — not one he lost read on after adding
// it — opens one in the viewer, at 1440 and 390 px.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function uploadThumb(server: E2EServer, api: AdminApi, assetId: string, bytes: Buffer) {
  const res = await fetch(new URL(`/api/asset/upload-preview/${assetId}?version=1&size=thumb`, server.baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${api.bearer}`, "content-type": "image/png" },
    body: new Uint8Array(bytes),
  });
  if (!res.ok) throw new Error(`upload-preview: ${res.status} ${await res.text()}`);
}

test("an anonymous visitor opens a collection's link and sees only what its creator may read", async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const owner = { name: `Ольга Отбор ${stamp}`, login: `olga-${stamp}`, password: "пароль-ольги-1" };
  const { user_id } = await api.call<{ user_id: string }>("/api/user", {
    json: { user_name: owner.name, user_login: owner.login, user_passwd: owner.password, enabled: true },
  });
  const files: string[] = [];
  const rules: string[] = [];
  for (const [i, title] of ["Съёмка А", "Съёмка Б", "Съёмка В"].entries()) {
    const folder = await api.createGroup(ROOT, `${title} ${stamp}`);
    const file = await api.uploadAsset(folder, `кадр-${i + 1}.png`, png(320, 240, 60 + i * 60), "image/png");
    await uploadThumb(server, api, file, png(160, 120, 60 + i * 60));
    files.push(file);
    rules.push((await api.call<{ rule_id: string }>("/api/user/acl", { json: { subj: user_id, obj: folder, acl: ["read"] } })).rule_id);
  }
  const signIn = await fetch(new URL("/api/auth/login", server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: owner.login, passwd: owner.password }),
  });
  const { bearer } = (await signIn.json()) as { bearer: string };
  const name = `Для клиента ${stamp}`;
  const { collection_id } = await api.call<{ collection_id: string }>("/api/collections", { json: { name }, bearer });
  await api.call(`/api/collections/${collection_id}/items`, { json: { asset_ids: files }, bearer });
  // The owner loses read on the third folder after adding its file: the link must not show it.
  await api.call(`/api/user/acl/${rules[2]}`, { method: "DELETE" });

  const ownerPage = (await newPage(browser, { server })).page;
  await ownerPage.setViewportSize({ width: 1440, height: 900 });
  await login(ownerPage, owner.login, owner.password);
  await ownerPage.goto(`/collections/${collection_id}`);
  await ownerPage.getByTestId("collection-page").waitFor();
  // «Скачать» and «CSV» for the whole collection sit in its action row.
  await ownerPage.getByTestId("collection-zip").waitFor();
  await ownerPage.getByTestId("collection-page").getByTestId("csv-open").waitFor();
  await shot(ownerPage, "collection-actions");
  await ownerPage.setViewportSize({ width: 390, height: 844 });
  await ownerPage.reload();
  await ownerPage.getByTestId("collection-zip").waitFor();
  await shot(ownerPage, "collection-actions-phone");
  await ownerPage.setViewportSize({ width: 1440, height: 900 });
  await ownerPage.getByTestId("collection-share").click();
  await ownerPage.getByTestId("collection-public-link").click();
  const form = ownerPage.getByTestId("share-form");
  await form.getByRole("button", { name: "Создать ссылку" }).click();
  const created = ownerPage.getByTestId("share-url");
  await created.waitFor();
  const url = await created.inputValue();
  expect(url).toMatch(/\/sl\/[A-Za-z0-9_-]{22}$/);
  await shot(ownerPage, "collection-link-dialog");

  // The viewer opened from the collection steps through its readable items in collection order; Esc goes back.
  await ownerPage.goto(`/collections/${collection_id}`);
  await ownerPage.locator(`[data-member="${files[0]}"] .tile-name`).click();
  const nav = ownerPage.getByTestId("collection-viewer-nav");
  await nav.waitFor();
  await expect.poll(() => nav.textContent()).toContain("1 из 2");
  await ownerPage.keyboard.press("ArrowRight");
  await ownerPage.waitForURL(new RegExp(`/asset/${files[1]}\\?collection=${collection_id}$`));
  await expect.poll(() => nav.textContent()).toContain("2 из 2");
  await ownerPage.getByRole("link", { name: "← К коллекции" }).waitFor();
  await shot(ownerPage, "collection-viewer-step");
  await ownerPage.keyboard.press("Escape");
  await ownerPage.waitForURL(new RegExp(`/collections/${collection_id}$`));

  const { page } = await newPage(browser, { server });
  await page.setViewportSize({ width: 1440, height: 900 });
  const path = new URL(url).pathname;
  await page.goto(path);
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.locator("h1", { hasText: name }).waitFor();
  await page.locator(".shared-tile", { hasText: "кадр-1.png" }).waitFor();
  await page.locator(".shared-tile", { hasText: "кадр-2.png" }).waitFor();
  expect(await page.getByText("кадр-3.png").count()).toBe(0);
  expect(await page.locator(".shared-tile").count()).toBe(2);
  await shot(page, "collection-link-visitor");
  await page.locator(".shared-tile", { hasText: "кадр-2.png" }).click();
  const viewer = page.getByRole("dialog", { name: "кадр-2.png" });
  await expect.poll(() => viewer.locator("img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
  await shot(page, "collection-link-viewer");
  await page.keyboard.press("Escape");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.locator(".shared-tile", { hasText: "кадр-1.png" }).waitFor();
  expect(await page.locator(".shared-tile").count()).toBe(2);
  await shot(page, "collection-link-visitor-phone");
});
