import { sql } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { runBatch } from "../../db/repositories/asset.repository";
import * as repo from "../../db/repositories/shop.repository";
import { AppError } from "../../lib/errors";
import type { RequestContext } from "../access";
import { mailOrder, refundStatements, runOrderBatch, settleStatements, getOrderForMail } from "./shop-orders.service";
import { AnyStripeEventSchema, StripeEventSchema, verifyStripeSignature } from "./stripe";

const t = ru.shop;

export interface WebhookAnswer {
  received: true;
  /** what the event did: settled or refunded an order, or nothing (duplicate, unknown order, other event type) */
  outcome: "paid" | "refunded" | "duplicate" | "ignored";
}

/**
 * POST /shop/stripe/webhook (decision 022). The `Stripe-Signature` header is verified against the raw body with
 * STRIPE_WEBHOOK_SECRET before anything is read: a forged or stale signature is a 400 and changes nothing. Events are
 * recorded by id in the same batch as their effect, so a redelivery is acknowledged without acting twice.
 * - checkout.session.completed (paid, amount and currency matching the order): the order becomes `paid` and the
 *   buyer gets read + download on each item.
 * - charge.refunded (fully refunded): the paid order becomes `refunded` and those rights are deleted.
 * Anything else verified is acknowledged (200) so Stripe stops retrying, and recorded.
 */
export async function handleStripeWebhook(rc: RequestContext, body: string, signature: string | undefined): Promise<WebhookAnswer> {
  const secret = rc.config.STRIPE_WEBHOOK_SECRET;
  if (!secret) throw new AppError("SERVICE_UNAVAILABLE", t.webhookNotConfigured);
  const verdict = await verifyStripeSignature(signature, body, secret);
  if (verdict !== "ok") throw new AppError("BAD_REQUEST", t.badSignature(verdict));
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new AppError("BAD_REQUEST", ru.errors.malformedJson);
  }
  const head = AnyStripeEventSchema.safeParse(json);
  if (!head.success) throw new AppError("BAD_REQUEST", t.badEvent);
  if (await repo.eventSeen(rc.db, head.data.id)) return { received: true, outcome: "duplicate" };
  const now = Date.now();
  const record = repo.recordEventSql(head.data.id, head.data.type, now);
  const event = StripeEventSchema.safeParse(json);
  if (!event.success) {
    await runBatch(rc.db, [record]);
    return { received: true, outcome: "ignored" };
  }
  if (event.data.type === "checkout.session.completed") {
    const session = event.data.data.object;
    const orderId = session.metadata?.order_id ?? session.client_reference_id ?? "";
    const order = orderId ? await repo.findOrder(rc.db, orderId) : undefined;
    const matches =
      order &&
      session.payment_status === "paid" &&
      session.amount_total === order.total &&
      (session.currency ?? "").toUpperCase() === order.currency &&
      (order.status === "pending_payment" || order.status === "awaiting_approval");
    if (!order || !matches) {
      await runBatch(rc.db, [record]);
      return { received: true, outcome: "ignored" };
    }
    const items = await repo.itemsOfOrders(rc.db, [order.id]);
    const intent = session.payment_intent ?? null;
    await runOrderBatch(rc, items, [
      record,
      ...settleStatements(
        rc,
        order,
        items,
        "paid",
        null,
        sql`stripe_payment_intent = ${intent}, stripe_session_id = coalesce(stripe_session_id, ${session.id})`,
        now,
      ),
    ]);
    const view = await getOrderForMail(rc, order.id);
    if (view.status === "paid") await mailOrder(rc, view, "settled");
    return { received: true, outcome: "paid" };
  }
  const charge = event.data.data.object;
  const order = charge.payment_intent ? await repo.findOrderByIntent(rc.db, charge.payment_intent) : undefined;
  if (!order || (order.status !== "paid" && order.status !== "approved") || charge.amount_refunded < charge.amount) {
    await runBatch(rc.db, [record]);
    return { received: true, outcome: "ignored" };
  }
  await runOrderBatch(rc, await repo.itemsOfOrders(rc.db, [order.id]), [record, ...refundStatements(rc, order, null, now)]);
  const view = await getOrderForMail(rc, order.id);
  if (view.status === "refunded") await mailOrder(rc, view, "refunded");
  return { received: true, outcome: "refunded" };
}
