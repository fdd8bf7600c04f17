import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { signStripeBody } from "../../workers/services/shop/stripe";
import { call } from "./factories";
import { fixture } from "./processing-fixtures";
import { insertAsset, type Caller } from "./library-factories";

/** The webhook secret vitest.config.ts binds (STRIPE_WEBHOOK_SECRET); STRIPE_SECRET_KEY stays unset: invoice flow. */
export const WEBHOOK_SECRET = "whsec_test_secret_for_vitest_only";

/** An asset of `owner` with bytes in R2 and a real JPEG thumb preview (what the watermark is made from). */
export async function sellableAsset(owner: Caller, name = "Закат.jpg") {
  const asset = await insertAsset({ ownerId: owner.id, name, mime: "image/jpeg", preview: true, putBytes: true });
  await env.MEDIA.put(asset.previewKey!, fixture("tiny"));
  return asset;
}

/** PUT /api/shop/listing/{id} as `who`; answers status and body. */
export async function list(
  who: Caller,
  entityId: string,
  listing: Record<string, unknown> = { price: 150000, currency: "RUB", licence: "Редакционное использование" },
) {
  const res = await call(`/api/shop/listing/${entityId}`, { method: "PUT", bearer: who.bearer, json: listing });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { message?: string } };
}

export async function expectListed(who: Caller, entityId: string, listing?: Record<string, unknown>) {
  const r = await list(who, entityId, listing);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export interface OrderJson {
  id: string;
  number: string;
  status: string;
  total: number;
  currency: string;
  buyer_id: string;
  items: { entity_id: string; granted: boolean; price: number }[];
}

/** Adds the items to `buyer`'s basket and checks out; fails the test unless the order is created. */
export async function buy(buyer: Caller, entityIds: string[], email?: string): Promise<OrderJson> {
  for (const id of entityIds) {
    const res = await call("/api/shop/basket", { method: "POST", bearer: buyer.bearer, json: { entity_id: id } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  const res = await call("/api/shop/checkout", { method: "POST", bearer: buyer.bearer, json: email ? { email } : {} });
  const order = (await res.json()) as OrderJson;
  expect(res.status, JSON.stringify(order)).toBe(201);
  return order;
}

/** Status of downloading the asset's latest master variant as `who`. */
export async function downloadStatus(who: Caller, assetId: string): Promise<number> {
  const res = await call(`/api/asset/content/download/${assetId}/latest/master`, { bearer: who.bearer });
  await res.body?.cancel();
  return res.status;
}

/** Posts a webhook body, signed with `secret` at `timestamp` unless a header is given. */
export async function postWebhook(event: unknown, o: { secret?: string; timestamp?: number; header?: string } = {}) {
  const body = JSON.stringify(event);
  const header = o.header ?? (await signStripeBody(o.secret ?? WEBHOOK_SECRET, body, o.timestamp));
  const res = await call("/api/shop/stripe/webhook", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "stripe-signature": header },
  });
  return { status: res.status, body: (await res.json()) as { outcome?: string; message?: string } };
}

export function sessionCompleted(
  order: { id: string; total: number; currency: string },
  o: { eventId?: string; intent?: string; amount?: number } = {},
) {
  return {
    id: o.eventId ?? `evt_${crypto.randomUUID().replace(/-/g, "")}`,
    type: "checkout.session.completed",
    data: {
      object: {
        id: `cs_test_${order.id}`,
        client_reference_id: order.id,
        metadata: { order_id: order.id },
        payment_intent: o.intent ?? `pi_${order.id}`,
        payment_status: "paid",
        amount_total: o.amount ?? order.total,
        currency: order.currency.toLowerCase(),
      },
    },
  };
}

export function chargeRefunded(intent: string, amount: number, refunded = amount, eventId?: string) {
  return {
    id: eventId ?? `evt_${crypto.randomUUID().replace(/-/g, "")}`,
    type: "charge.refunded",
    data: { object: { payment_intent: intent, amount, amount_refunded: refunded, refunded: refunded >= amount } },
  };
}

/** The access rules the shop granted (rows of access_rules for the user on the entity). */
export async function rulesOf(userId: string, entityId: string) {
  const { results } = await env.DB.prepare("SELECT id, acl FROM access_rules WHERE subj_id = ? AND obj_id = ?")
    .bind(userId, entityId)
    .all<{ id: string; acl: number }>();
  return results;
}
