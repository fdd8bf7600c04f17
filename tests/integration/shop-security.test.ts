import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError } from "./factories";
import { admin, ordinaryUser } from "./library-factories";
import {
  chargeRefunded,
  downloadStatus,
  expectListed,
  list,
  postWebhook,
  rulesOf,
  sellableAsset,
  sessionCompleted,
  buy,
} from "./shop-fixtures";

/** The shop's security tier: who may list, decide and see orders; Stripe webhooks only with a valid signature. */

describe("access refusals", () => {
  it("a non-administrator cannot list, change or withdraw an item, even one they own", async () => {
    const user = await ordinaryUser();
    const asset = await sellableAsset(user);
    const r = await list(user, asset.id);
    expect(r.status).toBe(403);
    expect(await env.DB.prepare("SELECT 1 FROM shop_listings WHERE entity_id = ?").bind(asset.id).first()).toBeNull();
    const a = await admin();
    await expectListed(a, asset.id);
    await expectError(await call(`/api/shop/listing/${asset.id}`, { method: "DELETE", bearer: user.bearer }), 403);
    expect(await env.DB.prepare("SELECT 1 FROM shop_listings WHERE entity_id = ?").bind(asset.id).first()).not.toBeNull();
  });

  it("a non-administrator cannot approve or refund, not even their own order, and gains nothing trying", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const buyer = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    await expectError(await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: buyer.bearer }), 403);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    await call(`/api/shop/order/${order.id}/approve`, { method: "POST", bearer: a.bearer });
    await expectError(await call(`/api/shop/order/${order.id}/refund`, { method: "POST", bearer: buyer.bearer }), 403);
    expect(await rulesOf(buyer.id, asset.id)).toHaveLength(1);
    await expectError(await call("/api/shop/orders?all=1", { bearer: buyer.bearer }), 403);
  });

  it("a user cannot see, cancel or list another user's order (404, as if it did not exist)", async () => {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id);
    const buyer = await ordinaryUser();
    const other = await ordinaryUser();
    const order = await buy(buyer, [asset.id]);
    await expectError(await call(`/api/shop/order/${order.id}`, { bearer: other.bearer }), 404);
    await expectError(await call(`/api/shop/order/${order.id}/cancel`, { method: "POST", bearer: other.bearer }), 404);
    const theirs = (await (await call("/api/shop/orders", { bearer: other.bearer })).json()) as unknown[];
    expect(theirs).toEqual([]);
    expect((await call(`/api/shop/order/${order.id}`, { bearer: a.bearer })).status).toBe(200);
  });

  it("every shop call needs a bearer", async () => {
    for (const [method, path] of [
      ["GET", "/api/shop/catalog"],
      ["GET", "/api/shop/basket"],
      ["POST", "/api/shop/checkout"],
      ["GET", "/api/shop/orders"],
    ]) {
      await expectError(await call(path, { method, json: method === "POST" ? {} : undefined }), 401);
    }
  });
});

describe("Stripe webhook", () => {
  async function invoicedOrder() {
    const a = await admin();
    const asset = await sellableAsset(a);
    await expectListed(a, asset.id, { price: 4990, currency: "EUR", licence: "Веб" });
    const buyer = await ordinaryUser();
    return { buyer, asset, order: await buy(buyer, [asset.id]) };
  }

  it("a correctly signed checkout.session.completed pays the order and grants download, once", async () => {
    const { buyer, asset, order } = await invoicedOrder();
    const event = sessionCompleted(order, { intent: `pi_${order.id}` });
    const first = await postWebhook(event);
    expect(first).toMatchObject({ status: 200, body: { outcome: "paid" } });
    expect(await downloadStatus(buyer, asset.id)).toBe(200);
    const again = await postWebhook(event);
    expect(again).toMatchObject({ status: 200, body: { outcome: "duplicate" } });
    expect(await rulesOf(buyer.id, asset.id)).toHaveLength(1);
    const view = (await (await call(`/api/shop/order/${order.id}`, { bearer: buyer.bearer })).json()) as {
      status: string;
      paid: string | null;
    };
    expect(view.status).toBe("paid");
    expect(view.paid).not.toBeNull();
  });

  // Times are taken when the test runs, not when the file is read: in a long test group that is minutes later, and a
  // signature "ten minutes ahead" made then is within the five minutes' tolerance by the time it is sent.
  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ["signed with another secret", () => ({ secret: "whsec_forged" })],
    ["stale (ten minutes old)", () => ({ timestamp: now() - 600 })],
    ["from the future", () => ({ timestamp: now() + 600 })],
    ["unsigned", () => ({ header: "" })],
    ["malformed", () => ({ header: "t=abc,v1=zz" })],
    ["v0 only", () => ({ header: `t=${now()},v0=deadbeef` })],
  ])("a forged payment webhook (%s) is refused with 400 and grants nothing", async (_what, options) => {
    const { buyer, asset, order } = await invoicedOrder();
    const res = await postWebhook(sessionCompleted(order), options());
    expect(res.status).toBe(400);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    const row = await env.DB.prepare("SELECT status FROM shop_orders WHERE id = ?").bind(order.id).first<{ status: string }>();
    expect(row?.status).toBe("awaiting_approval");
  });

  it("a signed body that was altered after signing is refused", async () => {
    const { buyer, asset, order } = await invoicedOrder();
    const body = JSON.stringify(sessionCompleted(order));
    const { signStripeBody } = await import("../../workers/services/shop/stripe");
    const header = await signStripeBody("whsec_test_secret_for_vitest_only", body.replace(order.id, "x".repeat(32)));
    const res = await call("/api/shop/stripe/webhook", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "stripe-signature": header },
    });
    await expectError(res, 400);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
  });

  it("a paid session whose amount does not match the order grants nothing", async () => {
    const { buyer, asset, order } = await invoicedOrder();
    const res = await postWebhook(sessionCompleted(order, { amount: 1 }));
    expect(res).toMatchObject({ status: 200, body: { outcome: "ignored" } });
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
  });

  it("charge.refunded revokes the rights of a paid order (idempotently); a partial refund keeps them", async () => {
    const { buyer, asset, order } = await invoicedOrder();
    const intent = `pi_${order.id}`;
    await postWebhook(sessionCompleted(order, { intent }));
    expect(await downloadStatus(buyer, asset.id)).toBe(200);
    expect((await postWebhook(chargeRefunded(intent, order.total, 100))).body.outcome).toBe("ignored");
    expect(await downloadStatus(buyer, asset.id)).toBe(200);
    const full = chargeRefunded(intent, order.total);
    expect((await postWebhook(full)).body.outcome).toBe("refunded");
    expect(await downloadStatus(buyer, asset.id)).toBe(404);
    expect(await rulesOf(buyer.id, asset.id)).toEqual([]);
    expect((await postWebhook(full)).body.outcome).toBe("duplicate");
    const row = await env.DB.prepare("SELECT status FROM shop_orders WHERE id = ?").bind(order.id).first<{ status: string }>();
    expect(row?.status).toBe("refunded");
  });

  it("acknowledges verified events of other types without acting", async () => {
    const res = await postWebhook({ id: "evt_other_1", type: "customer.created", data: { object: {} } });
    expect(res).toMatchObject({ status: 200, body: { outcome: "ignored" } });
  });
});
