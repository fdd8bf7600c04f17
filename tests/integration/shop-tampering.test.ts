import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDb } from "../../workers/db/client";
import { runBatch } from "../../workers/db/repositories/asset.repository";
import { insertOrderSql, insertOrderItemSql } from "../../workers/db/repositories/shop.repository";
import { AppError } from "../../workers/lib/errors";
import { newId } from "../../workers/lib/ids";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { cancelOrder, checkout } from "../../workers/services/shop/shop-orders.service";
import { call, expectError } from "./factories";
import { admin, ordinaryUser } from "./library-factories";
import {
  buy,
  chargeRefunded,
  downloadStatus,
  expectListed,
  list,
  postWebhook,
  rulesOf,
  sellableAsset,
  sessionCompleted,
  type OrderJson,
} from "./shop-fixtures";

/**
 * The shop attacked as a buyer would: prices, currencies and quantities sent by the client, someone else's order,
 * webhooks replayed or crossed between orders, the original downloaded without paying, and requests that race.
 */

async function listed(price = 4990, currency = "EUR") {
  const a = await admin();
  const asset = await sellableAsset(a);
  await expectListed(a, asset.id, { price, currency, licence: "Веб" });
  return { a, asset };
}

async function orderRow(id: string) {
  return env.DB.prepare("SELECT status, total, currency FROM shop_orders WHERE id = ?")
    .bind(id)
    .first<{ status: string; total: number; currency: string }>();
}

describe("what the client sends about money is ignored or refused", () => {
  it("checkout ignores a price, total, currency, quantity or item list sent in the body", async () => {
    const { asset } = await listed(4990, "EUR");
    const buyer = await ordinaryUser();
    await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } });
    const res = await call("/api/shop/checkout", {
      method: "POST",
      bearer: buyer.bearer,
      json: { price: 1, total: 1, currency: "JPY", quantity: -5, items: [{ entity_id: asset.id, price: 1 }] },
    });
    const order = (await res.json()) as OrderJson;
    expect(res.status, JSON.stringify(order)).toBe(201);
    expect(order).toMatchObject({ total: 4990, currency: "EUR" });
    expect(order.items).toEqual([expect.objectContaining({ entity_id: asset.id, price: 4990 })]);
  });

  it.each([
    ["zero", 0],
    ["negative", -100],
    ["fractional", 10.5],
    ["above Stripe's eight digits", 100_000_000],
    ["a string", "100"],
    ["exponent overflow", 1e308],
  ])("a listing price that is %s is a 400 and lists nothing", async (_what, price) => {
    const a = await admin();
    const asset = await sellableAsset(a);
    const r = await list(a, asset.id, { price, currency: "RUB", licence: "Веб" });
    expect(r.status).toBe(400);
    expect(await env.DB.prepare("SELECT 1 FROM shop_listings WHERE entity_id = ?").bind(asset.id).first()).toBeNull();
  });

  it("adding the same item many times is one line of the basket and one line of the order (no quantities)", async () => {
    const { asset } = await listed(700, "EUR");
    const buyer = await ordinaryUser();
    for (let i = 0; i < 3; i++) await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id, quantity: 1000 } });
    const basket = (await (await call("/api/shop/basket", { bearer: buyer.bearer })).json()) as { items: unknown[]; totals: { total: number }[] };
    expect(basket.items).toHaveLength(1);
    expect(basket.totals).toEqual([expect.objectContaining({ total: 700 })]);
    const order = (await (await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} })).json()) as OrderJson;
    expect(order.total).toBe(700);
  });
});

describe("orders and webhooks of someone else", () => {
  it("a session paid for a cheap order does not pay another order of the same buyer or of anyone else", async () => {
    const cheap = await listed(100, "EUR");
    const dear = await listed(99_000, "EUR");
    const buyer = await ordinaryUser();
    const victim = await ordinaryUser();
    const cheapOrder = await buy(buyer, [cheap.asset.id]);
    const dearOrder = await buy(buyer, [dear.asset.id]);
    const victimsOrder = await buy(victim, [cheap.asset.id]);
    // Stripe's event for the cheap session, with the metadata pointing at the dear order: the amount gives it away.
    const crossed = sessionCompleted(cheapOrder);
    crossed.data.object.metadata = { order_id: dearOrder.id };
    expect((await postWebhook(crossed)).body.outcome).toBe("ignored");
    expect((await orderRow(dearOrder.id))?.status).toBe("awaiting_approval");
    expect(await downloadStatus(buyer, dear.asset.id)).toBe(404);
    // The right amount in the wrong currency is no payment either.
    const wrongCurrency = sessionCompleted(dearOrder);
    wrongCurrency.data.object.currency = "jpy";
    expect((await postWebhook(wrongCurrency)).body.outcome).toBe("ignored");
    // A payment for the buyer's own order settles that order only, never the victim's identical one.
    expect((await postWebhook(sessionCompleted(cheapOrder))).body.outcome).toBe("paid");
    expect((await orderRow(victimsOrder.id))?.status).toBe("awaiting_approval");
    expect(await rulesOf(victim.id, cheap.asset.id)).toEqual([]);
  });

  it("a paid event replayed under a new id after a refund does not give the rights back", async () => {
    const { asset } = await listed(2500, "EUR");
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    const intent = `pi_${order.id}`;
    expect((await postWebhook(sessionCompleted(order, { intent }))).body.outcome).toBe("paid");
    expect((await postWebhook(chargeRefunded(intent, order.total))).body.outcome).toBe("refunded");
    expect((await postWebhook(sessionCompleted(order, { intent }))).body.outcome).toBe("ignored");
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
  });

  it("a session for a cancelled order grants nothing", async () => {
    const { asset } = await listed(2500, "EUR");
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    expect((await call(`/api/shop/order/${order.id}/cancel`, { method: "POST", bearer: buyer.bearer })).status).toBe(200);
    expect((await postWebhook(sessionCompleted(order))).body.outcome).toBe("ignored");
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
  });

  it("someone else's order cannot be read, cancelled, approved or refunded by its id", async () => {
    const { asset } = await listed();
    const buyer = await ordinaryUser();
    const other = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    for (const action of ["cancel", "approve", "refund"]) {
      const res = await call(`/api/shop/order/${order.id}/${action}`, { method: "POST", bearer: other.bearer });
      expect([403, 404]).toContain(res.status);
      await res.body?.cancel();
    }
    await expectError(await call(`/api/shop/order/${order.id}`, { bearer: other.bearer }), 404);
    expect((await orderRow(order.id))?.status).toBe("awaiting_approval");
  });
});

describe("the original stays closed until the order is settled", () => {
  it("basket, a pending order and a cancelled one never open the original; only the watermark is served", async () => {
    const { asset } = await listed();
    const buyer = await ordinaryUser();
    await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } });
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    const order = (await (await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} })).json()) as OrderJson;
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    const versions = await call(`/api/asset/versions/${asset.id}`, { bearer: buyer.bearer });
    expect(versions.status).toBe(404);
    await versions.body?.cancel();
    await call(`/api/shop/order/${order.id}/cancel`, { method: "POST", bearer: buyer.bearer });
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    // The catalogue's link serves the watermarked JPEG and nothing else: the link does not open another listed item.
    const item = (await (await call(`/api/shop/listing/${asset.id}`, { bearer: buyer.bearer })).json()) as { preview_url: string | null };
    expect(item.preview_url).toMatch(/^\/api\/shop\/preview\//);
    const preview = await call(item.preview_url!);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/jpeg");
    await preview.body?.cancel();
    const other = await listed();
    const crossed = await call(item.preview_url!.replace(asset.id, other.asset.id));
    expect(crossed.status).toBe(404);
    await crossed.body?.cancel();
  });
});

describe("requests that race", () => {
  it("two checkouts of one basket sent at once make one order, not two charges for the same item", async () => {
    const { asset } = await listed(3000, "EUR");
    const buyer = await ordinaryUser();
    await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: asset.id } });
    const answers = await Promise.all(
      [0, 1, 2].map(() => call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: {} })),
    );
    const statuses = answers.map((r) => r.status).sort();
    await Promise.all(answers.map((r) => r.body?.cancel()));
    const { results } = await env.DB.prepare(
      "SELECT o.id FROM shop_orders o JOIN shop_order_items i ON i.order_id = o.id WHERE o.buyer_id = ? AND i.entity_id = ? AND o.status <> 'cancelled'",
    )
      .bind(buyer.id, asset.id)
      .all();
    expect(results, `statuses ${statuses.join(",")}`).toHaveLength(1);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409 || s === 400)).toBe(true);
  });

  it("approvals and webhook deliveries of one order sent at once grant one rule, and the refund leaves none", async () => {
    const { a, asset } = await listed(3000, "EUR");
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    const intent = `pi_${order.id}`;
    const event = sessionCompleted(order, { intent });
    const answers = await Promise.all([
      call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer }),
      call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer }),
      postWebhook(event),
      postWebhook(event),
      postWebhook({ ...event, id: `${event.id}x` }),
    ]);
    for (const r of answers) if (r instanceof Response) await r.body?.cancel();
    const { results: linked } = await env.DB.prepare("SELECT rule_id FROM shop_order_items WHERE order_id = ?").bind(order.id).all();
    expect(linked).toHaveLength(1);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([expect.objectContaining({ id: linked[0].rule_id })]);
    const refund = await call(`/api/shop/order/${order.id}/refund`, { method: "POST", bearer: a.bearer });
    const refundBody = await refund.text();
    if (refund.status === 200) {
      expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
      expect(await downloadStatus(buyer, asset.id)).toBe(404);
    } else {
      // Paid through the webhook: refunding needs Stripe, which the test has no key for.
      expect(refund.status, refundBody).toBe(503);
      expect((await postWebhook(chargeRefunded(intent, order.total))).body.outcome).toBe("refunded");
      expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
    }
  });

  it("an order written with the price read before an administrator changed it is not written (checkout's guard)", async () => {
    const { a, asset } = await listed(1000, "EUR");
    const buyer = await ordinaryUser();
    // What a checkout read just before the administrator's change lands: 1000 EUR.
    const stale = { entity_id: asset.id, entity_type: "asset" as const, name: "Закат.jpg", price: 1000, currency: "EUR", licence: "Веб" };
    await expectListed(a, asset.id, { price: 90_000, currency: "EUR", licence: "Веб" });
    const id = newId();
    const now = Date.now();
    const db = createDb(env.DB);
    await runBatch(db, [
      insertOrderSql({ id, buyerId: buyer.id, status: "awaiting_approval", currency: "EUR", total: 1000, email: null, payment: "invoice", now, items: [stale] }),
      insertOrderItemSql(id, stale),
    ]);
    expect(await orderRow(id)).toBeNull();
    expect(await env.DB.prepare("SELECT 1 FROM shop_order_items WHERE order_id = ?").bind(id).first()).toBeNull();
    // The same write with the price in force goes through.
    const fresh = { ...stale, price: 90_000 };
    await runBatch(db, [
      insertOrderSql({ id, buyerId: buyer.id, status: "awaiting_approval", currency: "EUR", total: 90_000, email: null, payment: "invoice", now, items: [fresh] }),
      insertOrderItemSql(id, fresh),
    ]);
    expect(await orderRow(id)).toMatchObject({ total: 90_000 });
  });
});

describe("cancelling an order Stripe may still take money for", () => {
  afterEach(() => vi.restoreAllMocks());
  const stripeContext = () => createRequestContext({ ...env, STRIPE_SECRET_KEY: "sk_test_tampering" } as Env, () => undefined, "test-stripe");

  async function stripeOrder() {
    const { asset } = await listed(2990, "USD");
    const user = await ordinaryUser();
    await call("/api/shop/basket", { method: "POST", bearer: user.bearer, json: { entity_id: asset.id } });
    const actor: Actor = { id: user.id, name: user.name, login: user.login, isAdmin: false, isRobot: false, sessionFamily: null };
    vi.spyOn(globalThis, "fetch").mockResolvedValueOnce(Response.json({ id: "cs_test_open", url: "https://checkout.stripe.com/c/pay/cs_test_open" }));
    const order = await checkout(stripeContext(), actor, { origin: "https://mam.test" });
    vi.restoreAllMocks();
    return { user, actor, asset, order };
  }

  it("a session the buyer already paid cannot be cancelled under him (409), and the payment then grants the item", async () => {
    const { user, actor, asset, order } = await stripeOrder();
    const sent: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (url) => {
      sent.push(String(url));
      return String(url).endsWith("/expire")
        ? Response.json({ error: { message: "Only Checkout Sessions with a status of open can be expired." } }, { status: 400 })
        : Response.json({ id: "cs_test_open", status: "complete" });
    });
    const error = await cancelOrder(stripeContext(), actor, order.id).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(409);
    expect(sent[0]).toBe("https://api.stripe.com/v1/checkout/sessions/cs_test_open/expire");
    expect((await orderRow(order.id))?.status).toBe("pending_payment");
    expect((await postWebhook(sessionCompleted({ id: order.id, total: order.total, currency: order.currency }))).body.outcome).toBe("paid");
    expect(await rulesOf(user.id, asset.id)).toHaveLength(1);
  });

  it("an open session is expired at Stripe first, then the order is cancelled; Stripe unreachable cancels nothing (503)", async () => {
    const { actor, order } = await stripeOrder();
    vi.spyOn(globalThis, "fetch").mockRejectedValue(new Error("network down"));
    const down = await cancelOrder(stripeContext(), actor, order.id).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect((down as AppError).status).toBe(503);
    expect((await orderRow(order.id))?.status).toBe("pending_payment");
    vi.spyOn(globalThis, "fetch").mockResolvedValue(Response.json({ id: "cs_test_open", status: "expired" }));
    const view = await cancelOrder(stripeContext(), actor, order.id);
    vi.restoreAllMocks();
    expect(view.status).toBe("cancelled");
  });
});
