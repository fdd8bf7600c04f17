import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRequestContext, type Actor } from "../../workers/services/access/context";
import { checkout, getOrder } from "../../workers/services/shop/shop-orders.service";
import { AppError } from "../../workers/lib/errors";
import { admin, ordinaryUser } from "./library-factories";
import { expectListed, postWebhook, rulesOf, sellableAsset, sessionCompleted } from "./shop-fixtures";
import { call } from "./factories";

/**
 * The Stripe path of checkout (decision 022), with the network cut at the one `fetch` the service makes: the request
 * it sends is checked, Stripe's answer is played back. The tier's env has no key, so these tests build a request
 * context with one.
 */

const KEY = "sk_test_integration";

function stripeContext() {
  return createRequestContext({ ...env, STRIPE_SECRET_KEY: KEY } as Env, () => undefined, "test-stripe");
}

async function buyerWithBasket() {
  const a = await admin();
  const asset = await sellableAsset(a);
  await expectListed(a, asset.id, { price: 2990, currency: "USD", licence: "Веб" });
  const user = await ordinaryUser();
  expect((await call("/api/shop/basket", { method: "POST", bearer: user.bearer, json: { entity_id: asset.id } })).status).toBe(200);
  const actor: Actor = { id: user.id, name: user.name, login: user.login, isAdmin: false, isRobot: false, sessionFamily: null };
  return { user, actor, asset };
}

afterEach(() => vi.restoreAllMocks());

describe("checkout with a Stripe key", () => {
  it("creates a Checkout Session for the order and answers its URL; the signed webhook then pays it", async () => {
    const { user, actor, asset } = await buyerWithBasket();
    const sent: { url: string; init: RequestInit }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (url, init) => {
      sent.push({ url: String(url), init: init! });
      return Response.json({ id: "cs_test_1", url: "https://checkout.stripe.com/c/pay/cs_test_1" });
    });
    const order = await checkout(stripeContext(), actor, { email: "buyer@example.com", origin: "https://mam.test" });
    vi.restoreAllMocks();
    expect(order).toMatchObject({
      status: "pending_payment",
      payment: "stripe",
      checkout_url: "https://checkout.stripe.com/c/pay/cs_test_1",
      total: 2990,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe("https://api.stripe.com/v1/checkout/sessions");
    const form = new URLSearchParams(String(sent[0].init.body));
    expect(form.get("metadata[order_id]")).toBe(order.id);
    expect(form.get("line_items[0][price_data][unit_amount]")).toBe("2990");
    expect(form.get("line_items[0][price_data][currency]")).toBe("usd");
    expect(form.get("success_url")).toBe(`https://mam.test/shop/orders/${order.id}?paid=1`);
    expect(new Headers(sent[0].init.headers).get("authorization")).toBe(`Bearer ${KEY}`);
    // Nothing granted while Stripe has not confirmed the payment.
    expect(await rulesOf(user.id, asset.id)).toEqual([]);
    const paid = await postWebhook(sessionCompleted(order));
    expect(paid.body.outcome).toBe("paid");
    expect(await rulesOf(user.id, asset.id)).toHaveLength(1);
    expect((await getOrder(stripeContext(), actor, order.id)).status).toBe("paid");
  });

  it("when Stripe refuses or cannot be reached: 503, the order cancelled, the basket as it was", async () => {
    const { user, actor, asset } = await buyerWithBasket();
    vi.spyOn(globalThis, "fetch").mockResolvedValue(Response.json({ error: { message: "Invalid API Key" } }, { status: 401 }));
    const error = await checkout(stripeContext(), actor, { origin: "https://mam.test" }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    const orders = await env.DB.prepare("SELECT status FROM shop_orders WHERE buyer_id = ?").bind(user.id).all<{ status: string }>();
    expect(orders.results.map((o) => o.status)).toEqual(["cancelled"]);
    const basket = (await (await call("/api/shop/basket", { bearer: user.bearer })).json()) as { items: { entity_id: string }[] };
    expect(basket.items.map((i) => i.entity_id)).toEqual([asset.id]);
    expect(await rulesOf(user.id, asset.id)).toEqual([]);
  });
});
