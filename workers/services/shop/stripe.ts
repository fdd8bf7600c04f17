import { z } from "zod";

/**
 * Stripe without an SDK (decision 022): the Checkout Session request is built here as plain data (so a unit test can
 * check every field without a network), sent with `fetch`; webhooks are verified with WebCrypto exactly as Stripe
 * documents (`Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`).
 */

export const STRIPE_API = "https://api.stripe.com";
/** Stripe's default tolerance: a signature older (or newer) than five minutes is refused, so replays go stale. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface CheckoutLine {
  name: string;
  price: number;
}

export interface CheckoutSessionInput {
  orderId: string;
  currency: string;
  lines: readonly CheckoutLine[];
  email: string | null;
  successUrl: string;
  cancelUrl: string;
  secretKey: string;
}

/**
 * The `POST /v1/checkout/sessions` request of an order: form-encoded as Stripe's API wants, the order id in
 * `client_reference_id`, in the session's metadata and in the payment intent's metadata, and as the idempotency key
 * (a retried checkout never creates a second session).
 */
export function checkoutSessionRequest(input: CheckoutSessionInput): {
  url: string;
  init: RequestInit & { headers: Record<string, string>; body: string };
} {
  const form = new URLSearchParams();
  form.set("mode", "payment");
  form.set("success_url", input.successUrl);
  form.set("cancel_url", input.cancelUrl);
  form.set("client_reference_id", input.orderId);
  form.set("metadata[order_id]", input.orderId);
  form.set("payment_intent_data[metadata][order_id]", input.orderId);
  if (input.email) form.set("customer_email", input.email);
  input.lines.forEach((line, i) => {
    form.set(`line_items[${i}][quantity]`, "1");
    form.set(`line_items[${i}][price_data][currency]`, input.currency.toLowerCase());
    form.set(`line_items[${i}][price_data][unit_amount]`, String(line.price));
    form.set(`line_items[${i}][price_data][product_data][name]`, line.name.slice(0, 250));
  });
  return {
    url: `${STRIPE_API}/v1/checkout/sessions`,
    init: {
      method: "POST",
      headers: {
        authorization: `Bearer ${input.secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": `checkout-${input.orderId}`,
      },
      body: form.toString(),
    },
  };
}

/** The `POST /v1/refunds` request for a paid order's payment intent (idempotent per order). */
export function refundRequest(paymentIntent: string, orderId: string, secretKey: string) {
  const form = new URLSearchParams({ payment_intent: paymentIntent, "metadata[order_id]": orderId });
  return {
    url: `${STRIPE_API}/v1/refunds`,
    init: {
      method: "POST",
      headers: {
        authorization: `Bearer ${secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": `refund-${orderId}`,
      },
      body: form.toString(),
    },
  };
}

/**
 * The `POST /v1/checkout/sessions/{id}/expire` request: an expired session can no longer be paid, so an order is
 * cancelled only after its session is (else the buyer could pay on the still-open page for an order that grants
 * nothing).
 */
export function expireSessionRequest(sessionId: string, secretKey: string) {
  return {
    url: `${STRIPE_API}/v1/checkout/sessions/${encodeURIComponent(sessionId)}/expire`,
    init: { method: "POST", headers: { authorization: `Bearer ${secretKey}` } },
  };
}

/** The `GET /v1/checkout/sessions/{id}` request: what an expire that was refused says about the session. */
export function sessionStatusRequest(sessionId: string, secretKey: string) {
  return {
    url: `${STRIPE_API}/v1/checkout/sessions/${encodeURIComponent(sessionId)}`,
    init: { method: "GET", headers: { authorization: `Bearer ${secretKey}` } },
  };
}

export const SessionStatusSchema = z.object({ status: z.enum(["open", "complete", "expired"]) });

export const CheckoutSessionAnswerSchema = z.object({ id: z.string().min(1), url: z.string().url() });

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** HMAC-SHA256 of `${t}.${body}` with the webhook secret, hex: what `v1` carries. */
export async function stripeSignature(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`)));
}

/** Constant-time comparison of two hex strings (a timing difference must not reveal how much of a forgery matched). */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export type SignatureVerdict = "ok" | "missing" | "malformed" | "stale" | "mismatch";

/**
 * Verifies a `Stripe-Signature` header against the raw body: some `v1` must equal the HMAC of `${t}.${body}` and `t`
 * must lie within `tolerance` seconds of `now` (seconds). Any other scheme (`v0`, test signatures) is ignored, as
 * Stripe's own libraries do.
 */
export async function verifyStripeSignature(
  header: string | null | undefined,
  body: string,
  secret: string,
  now = Math.floor(Date.now() / 1000),
  tolerance = SIGNATURE_TOLERANCE_SECONDS,
): Promise<SignatureVerdict> {
  if (!header) return "missing";
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = parts.find(([k]) => k === "t")?.[1];
  const signatures = parts.filter(([k, v]) => k === "v1" && v).map(([, v]) => v.toLowerCase());
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return "malformed";
  const timestamp = Number(t);
  if (Math.abs(now - timestamp) > tolerance) return "stale";
  const expected = await stripeSignature(secret, timestamp, body);
  return signatures.some((s) => sameHex(s, expected)) ? "ok" : "mismatch";
}

/** The header Stripe would send for `body` at `timestamp` (tests sign their webhook bodies with it). */
export async function signStripeBody(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${timestamp},v1=${await stripeSignature(secret, timestamp, body)}`;
}

/** The events the shop acts on; any other verified event is acknowledged and ignored. */
export const StripeEventSchema = z.discriminatedUnion("type", [
  z.object({
    id: z.string().min(1).max(255),
    type: z.literal("checkout.session.completed"),
    data: z.object({
      object: z.object({
        id: z.string(),
        client_reference_id: z.string().nullish(),
        metadata: z.record(z.string(), z.string()).nullish(),
        payment_intent: z.string().nullish(),
        payment_status: z.string(),
        amount_total: z.number().int().nullish(),
        currency: z.string().nullish(),
      }),
    }),
  }),
  z.object({
    id: z.string().min(1).max(255),
    type: z.literal("charge.refunded"),
    data: z.object({
      object: z.object({
        payment_intent: z.string().nullish(),
        amount: z.number().int(),
        amount_refunded: z.number().int(),
        refunded: z.boolean().optional(),
      }),
    }),
  }),
]);
export type StripeEvent = z.infer<typeof StripeEventSchema>;

/** Just the id and type of any event, to acknowledge the ones the shop does not act on. */
export const AnyStripeEventSchema = z.object({ id: z.string().min(1).max(255), type: z.string().min(1).max(255) });
