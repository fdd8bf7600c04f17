import { join } from "node:path";
import type { Page } from "playwright-core";
import { adminApi, ROOT, type AdminApi } from "./admin-seed";
import { expect, login, newPage, test, type E2EServer } from "./fixtures";
import { png } from "./png";

// The shop (decision 022), as its users meet it: the administrator lists a picture from the folder's context menu,
// a user without rights on it finds it in /shop, puts it in the basket and checks out (no Stripe key: invoice), cannot
// download it until the administrator approves the order in /admin/orders, then can; a refund takes the right away.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, name: string) {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A signed-in API session of another user (what the browser's session can do, asked from Node). */
async function bearerOf(server: E2EServer, user: string, passwd: string): Promise<string> {
  const res = await fetch(new URL("/api/auth/login", server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, passwd }),
  });
  return ((await res.json()) as { bearer: string }).bearer;
}

/** Waits until processing has made the picture's preview (the shop's watermark is made from it). */
async function previewReady(api: AdminApi, assetId: string) {
  await expect
    .poll(() => api.status(`/api/asset/content/preview/${assetId}/1/medium`, api.bearer), { timeout: 45_000, interval: 500 })
    .toBe(200);
}

test("list for sale, buy, download only after approval, refund revokes", async ({ browser, server }) => {
  const stamp = Date.now();
  const api = await adminApi(server);
  const folder = `Фотобанк ${stamp}`;
  const folderId = await api.createGroup(ROOT, folder);
  const sunset = await api.uploadAsset(folderId, "Закат над морем.png", png(640, 420, 90), "image/png");
  const mountains = await api.uploadAsset(folderId, "Горы на рассвете.png", png(640, 420, 220), "image/png");
  const buyer = { name: `Мария Покупатель ${stamp}`, login: `maria-${stamp}`, password: "пароль-марии-1" };
  await api.call("/api/user", { json: { user_name: buyer.name, user_login: buyer.login, user_passwd: buyer.password, enabled: true } });
  await previewReady(api, sunset);
  await previewReady(api, mountains);
  // A second item and a folder in other currencies, listed through the API, so the catalogue has something to filter.
  await api.call(`/api/shop/listing/${mountains}`, {
    method: "PUT",
    json: { price: 4990, currency: "EUR", licence: "Веб и соцсети, 1 год" },
  });
  await api.call(`/api/shop/listing/${folderId}`, {
    method: "PUT",
    json: { price: 2500000, currency: "RUB", licence: "Вся подборка, бессрочно" },
  });

  // The administrator lists the sunset from the folder's context menu.
  // The dialog asks for the item's listing first: not listed yet is a quiet 204, no 404 in the console.
  const { page: adminPage } = await newPage(browser, { server });
  await adminPage.setViewportSize({ width: 1440, height: 900 });
  await login(adminPage, server.adminLogin, server.adminPassword);
  await adminPage.goto(`/mam/${folderId}`);
  const tile = adminPage.locator("[data-member]", { hasText: "Закат над морем.png" });
  await tile.waitFor();
  await tile.click({ button: "right" });
  await adminPage.getByRole("menu", { name: "Действия: Закат над морем.png" }).getByRole("menuitem", { name: "Продавать" }).click();
  const sell = adminPage.getByRole("dialog", { name: "Продажа: «Закат над морем.png»" });
  await sell.getByLabel("Цена").fill("0");
  await sell.getByLabel("Лицензия").fill("Редакционное использование, печать до 10 000 экз.");
  await sell.getByRole("button", { name: "Выставить на продажу" }).click();
  await sell.getByText("Введите цену больше нуля").waitFor(); // a zero price is refused before any request
  await sell.getByLabel("Цена").fill("1 500,50");
  await shot(adminPage, "shop-sell-dialog");
  await sell.getByRole("button", { name: "Выставить на продажу" }).click();
  await sell.waitFor({ state: "detached" });
  await adminPage.goto("/shop");
  await adminPage.getByTestId("shop-card").filter({ hasText: "Закат над морем.png" }).getByText("1 500,50 ₽").waitFor();
  await adminPage.waitForFunction(() =>
    [...document.querySelectorAll<HTMLImageElement>(".shop-media-img")].every((img) => img.complete && img.naturalWidth > 0),
  );
  await shot(adminPage, "shop-catalogue-admin");

  // The buyer finds it, puts it in the basket and checks out.
  const buyerBearer = await bearerOf(server, buyer.login, buyer.password);
  expect(await api.status(`/api/asset/content/download/${sunset}/latest/initial`, buyerBearer)).toBe(404);
  const { page } = await newPage(browser, { server });
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page, buyer.login, buyer.password);
  await page.goto("/shop");
  await page.getByRole("searchbox", { name: "Поиск по названию и лицензии" }).fill("закат");
  await page.keyboard.press("Enter");
  const card = page.getByTestId("shop-card").filter({ hasText: "Закат над морем.png" });
  await card.waitFor();
  await expect.poll(() => page.getByTestId("shop-card").count()).toBe(1);
  await card.getByRole("button", { name: "В корзину покупок" }).click();
  await card.getByRole("link", { name: "В корзине покупок" }).waitFor();
  await page.getByRole("link", { name: "Корзина покупок (1)" }).click();
  await page.getByTestId("basket-total").filter({ hasText: "1 500,50 ₽" }).waitFor();
  await page.getByLabel("Почта для квитанции (необязательно)").fill("maria@example.com");
  await shot(page, "shop-basket");
  await page.getByRole("button", { name: "Оформить заказ" }).click();
  await page.getByTestId("receipt").waitFor();
  await page.getByText("Ожидает подтверждения").first().waitFor();
  await page.getByText("Заказ ожидает подтверждения администратором").waitFor();
  // The receipt shows the item's picture, as the catalogue did, not a generic icon.
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('[data-testid="receipt"] img.shop-media-img');
    return img !== null && img.complete && img.naturalWidth > 0;
  });
  expect(await page.getByTestId("open-bought").count()).toBe(0);
  await shot(page, "shop-receipt-waiting");
  const orderNumber = (await page.locator(".shop-receipt-title").innerText()).replace("Заказ ", "").trim();

  // Not approved yet: the receipt offers no download and the file stays closed to the buyer's session.
  expect(await api.status(`/api/asset/content/download/${sunset}/latest/initial`, buyerBearer)).toBe(404);
  // A user who is not an administrator is sent away from the orders screen.
  await page.goto("/admin/orders");
  await expect.poll(() => new URL(page.url()).pathname).toBe("/mam");

  // The administrator approves it in /admin/orders.
  await adminPage.goto("/admin/orders");
  const row = adminPage.locator(`tr[data-order="${orderNumber}"]`);
  await row.waitFor();
  await row.getByText(buyer.name).waitFor();
  await shot(adminPage, "shop-admin-orders");
  await row.getByRole("button", { name: "Подтвердить" }).click();
  await row.getByText("Подтверждён").waitFor();

  // Now the buyer may download it, from the receipt's link to the file.
  expect(await api.status(`/api/asset/content/download/${sunset}/latest/initial`, buyerBearer)).toBe(200);
  await page.goto("/shop/orders");
  await page
    .getByTestId("my-orders")
    .getByRole("link", { name: `Заказ ${orderNumber}` })
    .click();
  await page.getByText("Файлы доступны для скачивания.").waitFor();
  await shot(page, "shop-receipt-approved");
  await page.getByTestId("open-bought").click();
  await page.getByRole("heading", { level: 1, name: "Закат над морем.png" }).waitFor();
  const download = page.getByRole("button", { name: "Скачать" }).first();
  await download.waitFor();
  await expect.poll(() => download.getAttribute("aria-disabled")).toBeNull();
  // A user who is not an administrator is offered no «Продавать».
  expect(await page.getByRole("button", { name: "Продавать" }).count()).toBe(0);

  // The buyer leaves the viewer (its media link would be refused mid-load once the right ends).
  await page.goto("/shop/orders");
  await page.getByTestId("my-orders").waitFor();

  // The administrator refunds: the right ends.
  await row.getByRole("button", { name: "Вернуть деньги" }).click();
  await adminPage.getByRole("dialog", { name: "Вернуть деньги" }).getByRole("button", { name: "Вернуть деньги" }).click();
  await row.getByText("Возврат").waitFor();
  expect(await api.status(`/api/asset/content/download/${sunset}/latest/initial`, buyerBearer)).toBe(404);
  await page.reload();
  await page.getByTestId("my-orders").getByText("Возврат").waitFor();

  // On a phone: the catalogue, the basket and a receipt.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/shop");
  await page.getByTestId("shop-card").first().waitFor();
  await shot(page, "shop-catalogue-phone");
  await page.getByTestId("shop-card").filter({ hasText: "Горы на рассвете.png" }).getByRole("button", { name: "В корзину покупок" }).click();
  await page.getByRole("link", { name: "Корзина покупок (1)" }).click();
  await page.getByTestId("basket").waitFor();
  await shot(page, "shop-basket-phone");
  await page.getByRole("button", { name: "Оформить заказ" }).click();
  await page.getByTestId("receipt").waitFor();
  await shot(page, "shop-receipt-phone");
  await adminPage.setViewportSize({ width: 390, height: 844 });
  await adminPage.goto("/admin/orders");
  await adminPage.getByTestId("admin-orders").getByText("Ожидает подтверждения").first().waitFor();
  await shot(adminPage, "shop-admin-orders-phone");
});
