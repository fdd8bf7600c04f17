import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError } from "./factories";
import { admin, createGroup, insertAsset, ordinaryUser, uniqueName } from "./library-factories";
import { buy, downloadStatus, expectListed, list, rulesOf, sellableAsset, type OrderJson } from "./shop-fixtures";

/** The shop's happy paths and bad input (decision 022): listing, catalogue, basket, checkout, approval, refund. */

describe("listing for sale", () => {
  it("lists an asset with a price, currency and licence, and makes a watermarked preview variant", async () => {
    const a = await admin();
    const asset = await sellableAsset(a, "Рассвет над рекой.jpg");
    const item = await expectListed(a, asset.id, { price: 250050, currency: "rub", licence: "Для печати и веба" });
    expect(item).toMatchObject({ entity_id: asset.id, entity_type: "asset", price: 250050, currency: "RUB", licence: "Для печати и веба" });
    expect(item.price_text).toMatch(/2\s500,50\s₽/);
    const variant = await env.DB.prepare("SELECT storage_key, mime_type FROM variants WHERE asset_id = ? AND variant_type = 'watermarked'")
      .bind(asset.id)
      .first<{ storage_key: string; mime_type: string }>();
    expect(variant?.mime_type).toBe("image/jpeg");
    // The catalogue's signed preview link serves the watermarked JPEG, not the original preview.
    const buyer = await ordinaryUser();
    const page = (await (await call(`/api/shop/catalog?q=${encodeURIComponent("Рассвет над")}`, { bearer: buyer.bearer })).json()) as {
      items: { preview_url: string }[];
    };
    expect(page.items).toHaveLength(1);
    const res = await call(page.items[0].preview_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    const stored = await env.MEDIA.get(variant!.storage_key);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
    // Without the signature (or with another entity's) the preview is not served.
    await expectError(await call(`/api/shop/preview/${asset.id}`), 404);
  });

  it("changes price and licence of a listed item in place", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const changed = await expectListed(a, asset.id, { price: 99, currency: "USD", licence: "Другая" });
    expect(changed).toMatchObject({ price: 99, currency: "USD", licence: "Другая" });
    const count = await env.DB.prepare("SELECT count(*) AS n FROM shop_listings WHERE entity_id = ?").bind(asset.id).first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it.each([
    ["zero", 0],
    ["negative", -100],
    ["fractional minor units", 10.5],
    ["a string NaN", "NaN"],
    ["null", null],
    ["too large", 100_000_000],
  ])("refuses a price that is %s with 400 naming the field, writing nothing", async (_what, price) => {
    const a = await admin();
    const asset = await sellableAsset(a);
    const r = await list(a, asset.id, { price, currency: "RUB", licence: "x" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("price");
    expect(await env.DB.prepare("SELECT 1 FROM shop_listings WHERE entity_id = ?").bind(asset.id).first()).toBeNull();
  });

  it("refuses NaN and Infinity sent as raw JSON numbers", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    for (const raw of ["NaN", "Infinity", "1e400"]) {
      const res = await call(`/api/shop/listing/${asset.id}`, {
        method: "PUT",
        bearer: a.bearer,
        body: `{"price": ${raw}, "currency": "RUB", "licence": "x"}`,
        headers: { "content-type": "application/json" },
      });
      await expectError(res, 400);
    }
  });

  it("refuses an unknown currency and an empty licence", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    const badCurrency = await list(a, asset.id, { price: 100, currency: "XXX", licence: "x" });
    expect(badCurrency.status).toBe(400);
    expect(badCurrency.body.message).toContain("currency");
    const noLicence = await list(a, asset.id, { price: 100, currency: "EUR", licence: "   " });
    expect(noLicence.status).toBe(400);
    expect(noLicence.body.message).toContain("licence");
  });

  it("answers 404 for an unknown item and 400 for the virtual root", async () => {
    const a = await admin();
    expect((await list(a, "0".repeat(31) + "1")).status).toBe(404);
    expect((await list(a, "f".repeat(32))).status).toBe(400);
  });
});

describe("catalogue", () => {
  it("filters by type, currency and price range, searches names, sorts and pages", async () => {
    const a = await admin();
    const tag = uniqueName("Лот");
    const cheap = await sellableAsset(a, `${tag} дешёвый.jpg`);
    const dear = await sellableAsset(a, `${tag} дорогой.jpg`);
    const folder = await createGroup(a, `${tag} папка`);
    await expectListed(a, cheap.id, { price: 1000, currency: "EUR", licence: "A" });
    await expectListed(a, dear.id, { price: 900000, currency: "EUR", licence: "B" });
    await expectListed(a, folder, { price: 50000, currency: "KZT", licence: "C" });
    const buyer = await ordinaryUser();
    const get = async (qs: string) =>
      (await (await call(`/api/shop/catalog?q=${encodeURIComponent(tag)}&${qs}`, { bearer: buyer.bearer })).json()) as {
        items: { entity_id: string; entity_type: string }[];
        total: number;
        currencies: string[];
      };
    expect((await get("")).total).toBe(3);
    expect((await get("type=group")).items.map((i) => i.entity_id)).toEqual([folder]);
    expect((await get("currency=eur&sort=price_desc")).items.map((i) => i.entity_id)).toEqual([dear.id, cheap.id]);
    expect((await get("min=2000&max=100000")).items.map((i) => i.entity_id)).toEqual([folder]);
    const first = await get("sort=price_asc&take=1");
    expect(first.items.map((i) => i.entity_id)).toEqual([cheap.id]);
    expect(first.total).toBe(3);
    expect((await get("")).currencies).toEqual(expect.arrayContaining(["EUR", "KZT"]));
    await expectError(await call("/api/shop/catalog?sort=cheapest", { bearer: buyer.bearer }), 400);
  });

  it("drops items whose asset went to the trash", async () => {
    const a = await admin();
    const asset = await sellableAsset(a, `${uniqueName("Корзина")}.jpg`);
    await expectListed(a, asset.id);
    await env.DB.prepare("UPDATE assets SET deleted_at = ? WHERE id = ?").bind(Date.now(), asset.id).run();
    const buyer = await ordinaryUser();
    await expectError(await call(`/api/shop/listing/${asset.id}`, { bearer: buyer.bearer }), 404);
  });
});

describe("basket and checkout", () => {
  it("checkout re-checks every item: one withdrawn meanwhile is a 409 naming it, and nothing is ordered", async () => {
    const a = await admin();
    const kept = await sellableAsset(a, "Останется.jpg");
    const gone = await sellableAsset(a, "Снимут с продажи.jpg");
    await expectListed(a, kept.id);
    await expectListed(a, gone.id);
    const buyer = await ordinaryUser();
    for (const id of [kept.id, gone.id])
      expect((await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: id } })).status).toBe(200);
    // Withdrawing through the API also empties baskets; here the listing vanishes between adding and checking out
    // (its asset trashed, or a withdrawal racing the checkout), which the checkout must notice by itself.
    await env.DB.prepare("DELETE FROM shop_listings WHERE entity_id = ?").bind(gone.id).run();
    const basket = (await (await call("/api/shop/basket", { bearer: buyer.bearer })).json()) as {
      items: { entity_id: string; for_sale: boolean }[];
    };
    expect(basket.items.find((i) => i.entity_id === gone.id)?.for_sale).toBe(false);
    const error = await expectError(await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} }), 409);
    expect(error.message).toContain("Снимут с продажи.jpg");
    const orders = await env.DB.prepare("SELECT count(*) AS n FROM shop_orders WHERE buyer_id = ?").bind(buyer.id).first<{ n: number }>();
    expect(orders?.n).toBe(0);
  });

  it("refuses adding an item that is not for sale (409) and an empty checkout (400)", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    const buyer = await ordinaryUser();
    await expectError(await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } }), 409);
    await expectError(await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} }), 400);
    await expectError(await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: "nope" } }), 400);
  });

  it("withdrawing an item removes it from baskets", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const buyer = await ordinaryUser();
    await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } });
    expect((await call(`/api/shop/listing/${asset.id}`, { method: "DELETE", bearer: a.bearer })).status).toBe(200);
    const basket = (await (await call("/api/shop/basket", { bearer: buyer.bearer })).json()) as { items: unknown[] };
    expect(basket.items).toEqual([]);
    expect(
      await env.DB.prepare("SELECT 1 FROM variants WHERE asset_id = ? AND variant_type = 'watermarked'").bind(asset.id).first(),
    ).toBeNull();
  });

  it("refuses a basket mixing currencies", async () => {
    const a = await admin();
    const rub = await sellableAsset(a);
    const usd = await sellableAsset(a);
    await expectListed(a, rub.id, { price: 100, currency: "RUB", licence: "x" });
    await expectListed(a, usd.id, { price: 100, currency: "USD", licence: "x" });
    const buyer = await ordinaryUser();
    for (const id of [rub.id, usd.id]) await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: id } });
    const error = await expectError(await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} }), 409);
    expect(error.message).toContain("RUB");
  });
});

describe("orders: pricing, rights only after approval, refund revokes", () => {
  it("totals the order, grants nothing before approval, read + download after, and revokes on refund", async () => {
    const a = await admin();
    const owner = await ordinaryUser();
    const one = await insertAsset({ ownerId: owner.id, name: "Первый.mp4", putBytes: true });
    const two = await insertAsset({ ownerId: owner.id, name: "Второй.mp4", putBytes: true });
    await expectListed(a, one.id, { price: 150000, currency: "RUB", licence: "L1" });
    await expectListed(a, two.id, { price: 2550, currency: "RUB", licence: "L2" });
    const buyer = await ordinaryUser();
    expect(await downloadStatus(buyer, one.id)).toBe(404);

    const order = await buy(buyer, [one.id, two.id], "buyer@example.com");
    expect(order).toMatchObject({ status: "awaiting_approval", total: 152550, currency: "RUB", buyer_id: buyer.id });
    expect(order.items.every((i) => !i.granted)).toBe(true);
    expect(await downloadStatus(buyer, one.id)).toBe(404);
    expect(await rulesOf(buyer.id, one.id)).toEqual([]);
    // The basket is empty after checkout, and the receipt mail was recorded.
    expect(((await (await call("/api/shop/basket", { bearer: buyer.bearer })).json()) as { items: unknown[] }).items).toEqual([]);
    const mail = await env.DB.prepare("SELECT subject FROM outgoing_emails WHERE object_id = ?")
      .bind(order.id)
      .first<{ subject: string }>();
    expect(mail?.subject).toContain(order.number);

    const approved = (await (await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer })).json()) as OrderJson;
    expect(approved.status).toBe("approved");
    expect(approved.items.every((i) => i.granted)).toBe(true);
    expect(await downloadStatus(buyer, one.id)).toBe(200);
    expect(await downloadStatus(buyer, two.id)).toBe(200);
    expect(await rulesOf(buyer.id, one.id)).toHaveLength(1);
    // A second approval is a conflict and grants nothing more.
    await expectError(await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer }), 409);
    expect(await rulesOf(buyer.id, one.id)).toHaveLength(1);
    // Bought once: the same item cannot be ordered again while the order stands.
    await expectError(await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: one.id } }), 409);

    const refunded = (await (await call(`/api/shop/order/${order.id}/refund`, { method: "POST", bearer: a.bearer })).json()) as OrderJson;
    expect(refunded.status).toBe("refunded");
    expect(refunded.items.every((i) => !i.granted)).toBe(true);
    expect(await downloadStatus(buyer, one.id)).toBe(404);
    expect(await rulesOf(buyer.id, one.id)).toEqual([]);
    await expectError(await call(`/api/shop/order/${order.id}/refund`, { method: "POST", bearer: a.bearer }), 409);
  });

  it("a bought folder grants download on the files inside it through inheritance", async () => {
    const a = await admin();
    const owner = await ordinaryUser();
    const folder = await createGroup(owner, uniqueName("Подборка"));
    const inside = await insertAsset({ ownerId: owner.id, groups: [folder], putBytes: true });
    await expectListed(a, folder, { price: 500000, currency: "RUB", licence: "Папка целиком" });
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [folder]);
    expect(await downloadStatus(buyer, inside.id)).toBe(404);
    expect((await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer })).status).toBe(200);
    expect(await downloadStatus(buyer, inside.id)).toBe(200);
  });

  it("the buyer may cancel an order awaiting approval; a cancelled order cannot be approved", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    const cancelled = (await (
      await call(`/api/shop/order/${order.id}/cancel`, { method: "POST", bearer: buyer.bearer })
    ).json()) as OrderJson;
    expect(cancelled.status).toBe("cancelled");
    await expectError(await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer }), 409);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
  });

  it("lists the buyer's own orders and, for administrators, everyone's by status", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    const mine = (await (await call("/api/shop/orders", { bearer: buyer.bearer })).json()) as OrderJson[];
    expect(mine.map((o) => o.id)).toEqual([order.id]);
    const waiting = (await (await call("/api/shop/orders?all=1&status=awaiting_approval", { bearer: a.bearer })).json()) as OrderJson[];
    expect(waiting.map((o) => o.id)).toContain(order.id);
    expect(waiting.every((o) => o.status === "awaiting_approval")).toBe(true);
  });
});
