import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkoutSessionRequest, refundRequest, signStripeBody, verifyStripeSignature } from "../../workers/services/shop/stripe";

const SECRET = "whsec_unit";
const NOW = 1_780_000_000;

/** Stripe's documented scheme, computed independently with Node's crypto: HMAC-SHA256 of `${t}.${body}`. */
function nodeSignature(secret: string, t: number, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

describe("checkoutSessionRequest", () => {
  const request = checkoutSessionRequest({
    orderId: "01936f0c8a4b7c3d9e2f0a1b2c3d4e5f",
    currency: "RUB",
    lines: [
      { name: "Закат.jpg", price: 150000 },
      { name: "Папка «Съёмка»", price: 2550 },
    ],
    email: "buyer@example.com",
    successUrl: "https://mam.example/shop/orders/01936f0c8a4b7c3d9e2f0a1b2c3d4e5f?paid=1",
    cancelUrl: "https://mam.example/shop/orders/01936f0c8a4b7c3d9e2f0a1b2c3d4e5f",
    secretKey: "sk_test_123",
  });
  const form = new URLSearchParams(request.init.body);

  it("posts a form to Stripe's Checkout Sessions endpoint with the key and an idempotency key per order", () => {
    expect(request.url).toBe("https://api.stripe.com/v1/checkout/sessions");
    expect(request.init.method).toBe("POST");
    expect(request.init.headers.authorization).toBe("Bearer sk_test_123");
    expect(request.init.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request.init.headers["idempotency-key"]).toBe("checkout-01936f0c8a4b7c3d9e2f0a1b2c3d4e5f");
  });

  it("carries one line per item in integer minor units and lower-case currency", () => {
    expect(form.get("mode")).toBe("payment");
    expect(form.get("line_items[0][price_data][unit_amount]")).toBe("150000");
    expect(form.get("line_items[0][price_data][currency]")).toBe("rub");
    expect(form.get("line_items[0][price_data][product_data][name]")).toBe("Закат.jpg");
    expect(form.get("line_items[0][quantity]")).toBe("1");
    expect(form.get("line_items[1][price_data][unit_amount]")).toBe("2550");
    expect(form.get("line_items[1][price_data][product_data][name]")).toBe("Папка «Съёмка»");
    expect(form.has("line_items[2][quantity]")).toBe(false);
  });

  it("ties the session and the payment intent to the order, and returns the buyer to the receipt", () => {
    expect(form.get("client_reference_id")).toBe("01936f0c8a4b7c3d9e2f0a1b2c3d4e5f");
    expect(form.get("metadata[order_id]")).toBe("01936f0c8a4b7c3d9e2f0a1b2c3d4e5f");
    expect(form.get("payment_intent_data[metadata][order_id]")).toBe("01936f0c8a4b7c3d9e2f0a1b2c3d4e5f");
    expect(form.get("customer_email")).toBe("buyer@example.com");
    expect(form.get("success_url")).toContain("/shop/orders/01936f0c8a4b7c3d9e2f0a1b2c3d4e5f?paid=1");
  });

  it("leaves customer_email out when the buyer gave none", () => {
    const r = checkoutSessionRequest({
      orderId: "x",
      currency: "USD",
      lines: [{ name: "a", price: 1 }],
      email: null,
      successUrl: "https://a/",
      cancelUrl: "https://a/",
      secretKey: "k",
    });
    expect(new URLSearchParams(r.init.body).has("customer_email")).toBe(false);
  });

  it("builds an idempotent refund of the payment intent", () => {
    const r = refundRequest("pi_1", "order1", "sk_test_123");
    expect(r.url).toBe("https://api.stripe.com/v1/refunds");
    expect(new URLSearchParams(r.init.body).get("payment_intent")).toBe("pi_1");
    expect(r.init.headers["idempotency-key"]).toBe("refund-order1");
  });
});

describe("verifyStripeSignature", () => {
  const body = JSON.stringify({ id: "evt_1", type: "checkout.session.completed" });

  it("accepts Stripe's scheme as Node computes it", async () => {
    expect(await verifyStripeSignature(`t=${NOW},v1=${nodeSignature(SECRET, NOW, body)}`, body, SECRET, NOW)).toBe("ok");
  });

  it("accepts when any of several v1 signatures matches (secret rotation)", async () => {
    const header = `t=${NOW},v1=${"0".repeat(64)},v1=${nodeSignature(SECRET, NOW, body)}`;
    expect(await verifyStripeSignature(header, body, SECRET, NOW)).toBe("ok");
  });

  it("signs what it verifies", async () => {
    expect(await verifyStripeSignature(await signStripeBody(SECRET, body, NOW), body, SECRET, NOW)).toBe("ok");
  });

  it("refuses another secret, an altered body, stale and future timestamps, and malformed headers", async () => {
    expect(await verifyStripeSignature(`t=${NOW},v1=${nodeSignature("whsec_other", NOW, body)}`, body, SECRET, NOW)).toBe("mismatch");
    expect(await verifyStripeSignature(`t=${NOW},v1=${nodeSignature(SECRET, NOW, body)}`, `${body} `, SECRET, NOW)).toBe("mismatch");
    expect(await verifyStripeSignature(`t=${NOW - 301},v1=${nodeSignature(SECRET, NOW - 301, body)}`, body, SECRET, NOW)).toBe("stale");
    expect(await verifyStripeSignature(`t=${NOW + 301},v1=${nodeSignature(SECRET, NOW + 301, body)}`, body, SECRET, NOW)).toBe("stale");
    expect(await verifyStripeSignature(`t=${NOW - 299},v1=${nodeSignature(SECRET, NOW - 299, body)}`, body, SECRET, NOW)).toBe("ok");
    expect(await verifyStripeSignature(undefined, body, SECRET, NOW)).toBe("missing");
    expect(await verifyStripeSignature("", body, SECRET, NOW)).toBe("missing");
    expect(await verifyStripeSignature(`v1=${nodeSignature(SECRET, NOW, body)}`, body, SECRET, NOW)).toBe("malformed");
    expect(await verifyStripeSignature(`t=${NOW},v0=${nodeSignature(SECRET, NOW, body)}`, body, SECRET, NOW)).toBe("malformed");
    expect(await verifyStripeSignature(`t=soon,v1=${nodeSignature(SECRET, NOW, body)}`, body, SECRET, NOW)).toBe("malformed");
  });
});
