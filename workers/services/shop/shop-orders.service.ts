/** Orders of the shop: checkout from the basket, approval, payment, cancelling and refunds. */
import { sql, type SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import * as repo from "../../db/repositories/shop.repository";
import type { OrderStatus } from "../../db/schema/shop-orders";
import { AppError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { toIso } from "../../lib/time";
import { forgetCallers } from "../access";
import type { Actor, RequestContext } from "../access";
import { acrossLibraries } from "../library";
import { sendEmail } from "../sharing";
import { formatMoney, orderTotal } from "./money";
import {
  CheckoutSessionAnswerSchema,
  checkoutSessionRequest,
  expireSessionRequest,
  refundRequest,
  SessionStatusSchema,
  sessionStatusRequest,
} from "./stripe";
import { PURCHASE_LEVELS, previewUrls, requireShopAdmin, audit } from "./shop.service";

const t = ru.shop;

// ---------------------------------------------------------------------------------------------------------------
// Orders

export interface OrderView {
  id: string;
  number: string;
  buyer_id: string;
  buyer_name: string | null;
  status: OrderStatus;
  payment: "stripe" | "invoice";
  currency: string;
  total: number;
  total_text: string;
  email: string | null;
  checkout_url: string | null;
  created: string;
  updated: string;
  paid: string | null;
  refunded: string | null;
  items: {
    entity_id: string;
    entity_type: "asset" | "group";
    name: string;
    price: number;
    price_text: string;
    licence: string;
    /** the bought right is in force (the order is paid or approved) */
    granted: boolean;
    /** the listing's watermarked preview while it is still listed (the receipt's picture), else null */
    preview_url: string | null;
  }[];
}

/** The short number people quote (receipts, emails): the id's random tail, upper case. */
export function orderNumber(id: string): string {
  return id.slice(-8).toUpperCase();
}

function toOrder(o: repo.OrderRow, items: readonly repo.OrderItemRow[]): OrderView {
  return {
    id: o.id,
    number: orderNumber(o.id),
    buyer_id: o.buyer_id,
    buyer_name: o.buyer_name,
    status: o.status,
    payment: o.payment,
    currency: o.currency,
    total: o.total,
    total_text: formatMoney(o.total, o.currency),
    email: o.email,
    checkout_url: o.status === "pending_payment" ? o.checkout_url : null,
    created: toIso(o.ctime)!,
    updated: toIso(o.mtime)!,
    paid: toIso(o.paid_at),
    refunded: toIso(o.refunded_at),
    items: items
      .filter((i) => i.order_id === o.id)
      .map((i) => ({
        entity_id: i.entity_id,
        entity_type: i.entity_type,
        name: i.name,
        price: i.price,
        price_text: formatMoney(i.price, i.currency),
        licence: i.licence,
        granted: i.rule_id != null,
        preview_url: null,
      })),
  };
}

/** An order by id with no caller check: for the webhook's receipts (the webhook has no signed-in caller). */
export function getOrderForMail(rc: RequestContext, id: string): Promise<OrderView> {
  return loadOrder(rc, id);
}

async function loadOrder(rc: RequestContext, id: string): Promise<OrderView> {
  const order = await repo.findOrder(rc.db, id);
  if (!order) throw new AppError("NOT_FOUND", t.orderNotFound);
  return toOrder(order, await repo.itemsOfOrders(rc.db, [id]));
}

/** GET /shop/order/{id}: the buyer's own order, or any order for administrators; others get the same 404 as no order. */
export async function getOrder(rc: RequestContext, actor: Actor, id: string): Promise<OrderView> {
  const order = await loadOrder(rc, id);
  if (!actor.isAdmin && order.buyer_id !== actor.id) throw new AppError("NOT_FOUND", t.orderNotFound);
  // The receipt shows the pictures the catalogue showed, for the items still listed.
  const listed = await repo.listingsOf(rc.db, order.items.map((i) => i.entity_id));
  const urls = await previewUrls(rc, actor, listed);
  return { ...order, items: order.items.map((i) => ({ ...i, preview_url: urls.get(i.entity_id) ?? null })) };
}

/** GET /shop/orders: the caller's orders; with `all` (administrators only) everyone's, optionally of one status. */
export async function listOrders(
  rc: RequestContext,
  actor: Actor,
  q: { all?: boolean; status?: OrderStatus; skip: number; take: number },
): Promise<OrderView[]> {
  if (q.all) requireShopAdmin(actor);
  const rows = await repo.ordersPage(rc.db, { buyerId: q.all ? undefined : actor.id, status: q.status, skip: q.skip, take: q.take });
  const items = await repo.itemsOfOrders(
    rc.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toOrder(r, items));
}

export interface CheckoutInput {
  email?: string | null;
  /** where Stripe sends the buyer back: this site's origin */
  origin: string;
}

/**
 * POST /shop/checkout: turns the basket into an order. Every item is checked again: one that is no longer for sale,
 * or that the buyer already ordered, is a 409 naming it (nothing is written); a basket mixing currencies is a 409 too
 * (one order, one payment). Order, items, emptied basket and audit entry are one batch. With a Stripe key a Checkout
 * Session is created and the answer carries its URL; without one the order awaits an administrator's approval.
 */
export async function checkout(rc: RequestContext, actor: Actor, input: CheckoutInput): Promise<OrderView> {
  const rows = await repo.basketOf(rc.db, actor.id);
  if (rows.length === 0) throw new AppError("BAD_REQUEST", t.basketEmpty);
  const ids = rows.map((r) => r.entity_id);
  const listings = new Map((await repo.listingsOf(rc.db, ids)).map((l) => [l.entity_id, l]));
  const gone = rows.find((r) => !listings.has(r.entity_id));
  if (gone) throw new AppError("CONFLICT", t.notForSale(gone.name ?? gone.entity_id));
  const claims = await repo.openClaims(rc.db, actor.id, ids);
  const claimed = ids.find((id) => claims.has(id));
  if (claimed) throw new AppError("CONFLICT", t.alreadyOrdered(listings.get(claimed)!.name));
  const items = ids.map((id) => listings.get(id)!);
  const currencies = new Set(items.map((i) => i.currency));
  if (currencies.size > 1) throw new AppError("CONFLICT", t.mixedCurrencies([...currencies].join(", ")));
  const currency = items[0].currency;
  const secretKey = rc.config.STRIPE_SECRET_KEY;
  const now = Date.now();
  const id = newId(now);
  const total = orderTotal(items);
  const status: OrderStatus = secretKey ? "pending_payment" : "awaiting_approval";
  // Every statement is guarded by the order insert, which re-checks claims and prices inside the batch: what was read
  // above may have changed by now (a second checkout of the same basket, an administrator's new price).
  await runBatch(rc.db, [
    repo.insertOrderSql({
      id,
      buyerId: actor.id,
      status,
      currency,
      total,
      email: input.email ?? null,
      payment: secretKey ? "stripe" : "invoice",
      now,
      items,
    }),
    ...items.map((i) =>
      repo.insertOrderItemSql(id, {
        entity_id: i.entity_id,
        entity_type: i.entity_type,
        name: i.name,
        price: i.price,
        currency: i.currency,
        licence: i.licence,
      }),
    ),
    repo.clearBasketSql(actor.id, ids, id),
    repo.auditOrderSql({ id: newId(now), actorId: actor.id, action: "shop.order.create", orderId: id, details: { total, currency, items: ids, status }, now }),
  ]);
  if (!(await repo.findOrder(rc.db, id))) await refuseLostCheckout(rc, actor, ids);
  if (secretKey) await startStripeCheckout(rc, actor, id, { currency, items, email: input.email ?? null, origin: input.origin, secretKey });
  const order = await loadOrder(rc, id);
  await mailOrder(rc, order, "created");
  return order;
}

/** Why a checkout's guarded insert wrote nothing: a concurrent order took the items, or a price changed (409 either way). */
async function refuseLostCheckout(rc: RequestContext, actor: Actor, ids: readonly string[]): Promise<never> {
  const claims = await repo.openClaims(rc.db, actor.id, ids);
  const listings = new Map((await repo.listingsOf(rc.db, ids)).map((l) => [l.entity_id, l]));
  const claimed = ids.find((i) => claims.has(i));
  if (claimed) throw new AppError("CONFLICT", t.alreadyOrdered(listings.get(claimed)?.name ?? claimed));
  const gone = ids.find((i) => !listings.has(i));
  if (gone) throw new AppError("CONFLICT", t.notForSale(gone));
  throw new AppError("CONFLICT", t.priceChanged);
}

/** Creates the order's Checkout Session; if Stripe cannot be reached the order is cancelled and the basket restored. */
async function startStripeCheckout(
  rc: RequestContext,
  actor: Actor,
  orderId: string,
  o: { currency: string; items: repo.ListingView[]; email: string | null; origin: string; secretKey: string },
) {
  const request = checkoutSessionRequest({
    orderId,
    currency: o.currency,
    lines: o.items.map((i) => ({ name: i.name, price: i.price })),
    email: o.email,
    successUrl: `${o.origin}/shop/orders/${orderId}?paid=1`,
    cancelUrl: `${o.origin}/shop/orders/${orderId}`,
    secretKey: o.secretKey,
  });
  let session: { id: string; url: string } | null = null;
  try {
    const res = await fetch(request.url, request.init);
    const parsed = CheckoutSessionAnswerSchema.safeParse(await res.json());
    if (res.ok && parsed.success) session = parsed.data;
  } catch {
    session = null;
  }
  const now = Date.now();
  if (!session) {
    await runBatch(rc.db, [
      repo.setOrderStatusSql(orderId, ["pending_payment"], "cancelled", null, now),
      ...o.items.map((i) => repo.addToBasketSql(actor.id, i.entity_id, now)),
      audit(rc, actor, "shop.order.cancel", "order", orderId, { reason: "stripe unavailable" }),
    ]);
    throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
  }
  await runBatch(rc.db, [repo.setCheckoutSql(orderId, session.id, session.url, now)]);
}

/**
 * The batch that settles an order (paid by Stripe, or approved by an administrator): the status change and one
 * read + download rule per item for the buyer, guarded so that a batch losing a race grants nothing.
 */
export function settleStatements(
  rc: RequestContext,
  order: repo.OrderRow,
  items: readonly repo.OrderItemRow[],
  to: "paid" | "approved",
  by: Actor | null,
  extra: SQL | null,
  now: number,
): Statement[] {
  const statements: Statement[] = [
    repo.setOrderStatusSql(
      order.id,
      ["pending_payment", "awaiting_approval"],
      to,
      sql`paid_at = ${now}${by ? sql`, decided_by = ${by.id}` : sql``}${extra ? sql`, ${extra}` : sql``}`,
      now,
    ),
  ];
  for (const item of items) {
    const ruleId = newId(now);
    statements.push(
      repo.grantRuleSql({
        ruleId,
        orderId: order.id,
        status: to,
        buyerId: order.buyer_id,
        entityId: item.entity_id,
        entityType: item.entity_type,
        acl: PURCHASE_LEVELS,
        by: by?.id ?? order.buyer_id,
        now,
      }),
      repo.setItemRuleSql(order.id, item.entity_id, ruleId, now),
    );
  }
  statements.push(audit(rc, by, `shop.order.${to}`, "order", order.id, { items: items.map((i) => i.entity_id) }));
  return statements;
}

/** The batch that refunds an order: status change, and the rules its items granted deleted. */
export function refundStatements(rc: RequestContext, order: repo.OrderRow, by: Actor | null, now: number): Statement[] {
  return [
    repo.setOrderStatusSql(
      order.id,
      ["paid", "approved"],
      "refunded",
      sql`refunded_at = ${now}${by ? sql`, decided_by = ${by.id}` : sql``}`,
      now,
    ),
    repo.revokeRulesSql(order.id, "refunded", now),
    repo.clearItemRulesSql(order.id, "refunded", now),
    audit(rc, by, "shop.order.refund", "order", order.id, {}),
  ];
}

async function requireOrderRow(rc: RequestContext, id: string): Promise<repo.OrderRow> {
  const order = await repo.findOrder(rc.db, id);
  if (!order) throw new AppError("NOT_FOUND", t.orderNotFound);
  return order;
}

/** POST /shop/order/{id}/approve: an administrator accepts an invoiced order; the buyer may download from now on. */
export async function approveOrder(rc: RequestContext, actor: Actor, id: string): Promise<OrderView> {
  requireShopAdmin(actor);
  const order = await requireOrderRow(rc, id);
  if (order.status !== "awaiting_approval") throw new AppError("CONFLICT", t.cannotApprove(t.statuses[order.status]));
  const items = await repo.itemsOfOrders(rc.db, [id]);
  await runOrderBatch(rc, items, settleStatements(rc, order, items, "approved", actor, null, Date.now()));
  forgetCallers(rc);
  const view = await loadOrder(rc, id);
  if (view.status !== "approved") throw new AppError("CONFLICT", t.cannotApprove(t.statuses[view.status]));
  await mailOrder(rc, view, "settled");
  return view;
}

/**
 * POST /shop/order/{id}/refund: an administrator refunds a paid or approved order; the rights it granted end in the
 * same batch. A Stripe-paid order is refunded at Stripe first (its charge.refunded webhook then finds it refunded).
 */
export async function refundOrder(rc: RequestContext, actor: Actor, id: string): Promise<OrderView> {
  requireShopAdmin(actor);
  const order = await requireOrderRow(rc, id);
  if (order.status !== "paid" && order.status !== "approved") throw new AppError("CONFLICT", t.cannotRefund(t.statuses[order.status]));
  const secretKey = rc.config.STRIPE_SECRET_KEY;
  if (order.stripe_payment_intent) {
    if (!secretKey) throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
    const request = refundRequest(order.stripe_payment_intent, order.id, secretKey);
    const res = await fetch(request.url, request.init).catch(() => null);
    if (!res?.ok) throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
  }
  await runOrderBatch(rc, await repo.itemsOfOrders(rc.db, [id]), refundStatements(rc, order, actor, Date.now()));
  forgetCallers(rc);
  const view = await loadOrder(rc, id);
  await mailOrder(rc, view, "refunded");
  return view;
}

/**
 * An order's batch that grants or revokes rights on its items: the rules live with the files and folders, so for an
 * item in a library in its shard the batch runs across libraries (decision 046) — in the catalog, the shard held.
 */
export async function runOrderBatch(rc: RequestContext, items: readonly { entity_id: string }[], statements: Statement[]): Promise<void> {
  const entities = items.map((i) => i.entity_id);
  await acrossLibraries(rc, entities, () => runBatch(rc.db, statements));
}

/** POST /shop/order/{id}/cancel: the buyer (or an administrator) drops an order that is not paid or approved yet. */
export async function cancelOrder(rc: RequestContext, actor: Actor, id: string): Promise<OrderView> {
  const order = await requireOrderRow(rc, id);
  if (!actor.isAdmin && order.buyer_id !== actor.id) throw new AppError("NOT_FOUND", t.orderNotFound);
  if (order.status !== "pending_payment" && order.status !== "awaiting_approval")
    throw new AppError("CONFLICT", t.cannotCancel(t.statuses[order.status]));
  if (order.status === "pending_payment" && order.stripe_session_id) await expireStripeSession(rc, order.stripe_session_id);
  const now = Date.now();
  await runBatch(rc.db, [
    repo.setOrderStatusSql(
      id,
      ["pending_payment", "awaiting_approval"],
      "cancelled",
      actor.isAdmin ? sql`decided_by = ${actor.id}` : null,
      now,
    ),
    audit(rc, actor, "shop.order.cancel", "order", id, {}),
  ]);
  return loadOrder(rc, id);
}

/**
 * Ends the order's Checkout Session at Stripe before the order is cancelled: a session left open could still be paid,
 * and the webhook would find a cancelled order and grant nothing for the money. A session Stripe already completed is
 * a 409 (the payment's webhook settles the order); Stripe unreachable or not configured is a 503, nothing cancelled.
 */
async function expireStripeSession(rc: RequestContext, sessionId: string): Promise<void> {
  const secretKey = rc.config.STRIPE_SECRET_KEY;
  if (!secretKey) throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
  const expire = expireSessionRequest(sessionId, secretKey);
  const expired = await fetch(expire.url, expire.init).catch(() => null);
  await expired?.body?.cancel();
  if (expired?.ok) return;
  // Refused: the session is no longer open. Whether it was paid or had already expired decides.
  const lookup = sessionStatusRequest(sessionId, secretKey);
  const res = await fetch(lookup.url, lookup.init).catch(() => null);
  const parsed = SessionStatusSchema.safeParse(res?.ok ? await res.json().catch(() => null) : null);
  if (!parsed.success) throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
  if (parsed.data.status === "complete") throw new AppError("CONFLICT", t.alreadyPaidAtStripe);
  if (parsed.data.status === "open") throw new AppError("SERVICE_UNAVAILABLE", t.paymentUnavailable);
}

/** Receipt and status mails go to the address given at checkout, if any; they never fail the call (email.service). */
export async function mailOrder(rc: RequestContext, order: OrderView, what: "created" | "settled" | "refunded"): Promise<void> {
  if (!order.email) return;
  const lines = order.items.map((i) => `• ${i.name} — ${i.price_text}`).join("\n");
  const mail = t.mail[what](order.number, order.total_text, lines);
  await sendEmail(rc, {
    to: [order.email],
    subject: mail.subject,
    text: mail.text,
    about: { type: "order", id: order.id },
    actorId: order.buyer_id,
  });
}
