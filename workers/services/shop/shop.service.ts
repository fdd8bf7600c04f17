import { sql, type SQL } from "drizzle-orm";
import { ru } from "../../../shared/i18n/ru";
import { findEntity } from "../../db/repositories/access.repository";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import * as repo from "../../db/repositories/shop.repository";
import type { OrderStatus } from "../../db/schema/shop-orders";
import { AppError } from "../../lib/errors";
import { newId, ROOT_GROUP_ID } from "../../lib/ids";
import { signLink, verifyLink } from "../../lib/signed-url";
import { toIso } from "../../lib/time";
import { forgetCallers } from "../access";
import { maskOf } from "../access/pure";
import { auditStatement } from "../access";
import type { Actor, RequestContext } from "../access";
import { sendEmail } from "../sharing";
import { makeWatermarkedPreview } from "./listing-preview";
import { formatMoney, orderTotal } from "./money";
import { CheckoutSessionAnswerSchema, checkoutSessionRequest, refundRequest } from "./stripe";

/**
 * The shop (decision 022): administrators list assets and folders for sale; anyone signed in browses the catalogue,
 * fills a basket and checks out. With STRIPE_SECRET_KEY the order is paid on Stripe's hosted checkout (the webhook,
 * shop-webhook.service.ts, marks it paid); without it the order waits for an administrator's approval (invoice). A
 * paid or approved order grants the buyer read + download on each bought item through an access rule (SPEC §6),
 * written in the same D1 batch as the status change; a refund deletes those rules in the same way.
 */

/** What a purchase grants on each bought item. */
export const PURCHASE_LEVELS = maskOf(["read", "download"]);

const t = ru.shop;

export interface ListingInput {
  price: number;
  currency: string;
  licence: string;
}

export interface CatalogItem {
  entity_id: string;
  entity_type: "asset" | "group";
  name: string;
  mimetype: string | null;
  price: number;
  currency: string;
  price_text: string;
  licence: string;
  preview_url: string | null;
  listed: string;
  in_basket: boolean;
  owned: boolean;
}

/** Signed links of catalogue previews live at least an hour and change on the hour, so browsers may cache them. */
const PREVIEW_LINK_SECONDS = 3600;

/**
 * The `<img>`-ready URL of a listed asset's watermarked preview: signed for the caller (an image request carries no
 * bearer), bucketed by the hour.
 */
async function previewUrl(rc: RequestContext, actor: Actor, entityId: string): Promise<string> {
  const exp = (Math.floor(Date.now() / 1000 / PREVIEW_LINK_SECONDS) + 2) * PREVIEW_LINK_SECONDS;
  const params = new URLSearchParams(
    await signLink(rc.config.JWT_SECRET, { purpose: "shop-preview", id: entityId, userId: actor.id, exp }),
  );
  return `/api/shop/preview/${entityId}?${params}`;
}

/** Preview URLs of the rows that have a preview, by entity id. */
async function previewUrls(rc: RequestContext, actor: Actor, rows: readonly { entity_id: string; has_preview: number | null }[]) {
  const withPreview = rows.filter((r) => r.has_preview);
  const urls = await Promise.all(withPreview.map((r) => previewUrl(rc, actor, r.entity_id)));
  return new Map(withPreview.map((r, i) => [r.entity_id, urls[i]]));
}

function toItem(r: repo.ListingView & { in_basket?: number; owned?: number }, urls: ReadonlyMap<string, string>): CatalogItem {
  return {
    entity_id: r.entity_id,
    entity_type: r.entity_type,
    name: r.name,
    mimetype: r.mimetype,
    price: r.price,
    currency: r.currency,
    price_text: formatMoney(r.price, r.currency),
    licence: r.licence,
    preview_url: urls.get(r.entity_id) ?? null,
    listed: toIso(r.mtime)!,
    in_basket: Boolean(r.in_basket),
    owned: Boolean(r.owned),
  };
}

function requireShopAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", t.adminOnly);
}

function audit(
  rc: RequestContext,
  actor: Actor | null,
  action: string,
  objectType: string,
  objectId: string,
  details: Record<string, unknown>,
) {
  return auditStatement(rc, { action, actorId: actor?.id ?? null, objectType, objectId, details });
}

// ---------------------------------------------------------------------------------------------------------------
// Listings

/**
 * PUT /shop/listing/{id}: lists an asset or folder for sale, or changes its price, currency and licence
 * (administrators). An asset gets a freshly made watermarked preview; the listing, the preview variant and the audit
 * entry are one batch.
 */
export async function listForSale(rc: RequestContext, actor: Actor, entityId: string, input: ListingInput): Promise<CatalogItem> {
  requireShopAdmin(actor);
  if (entityId === ROOT_GROUP_ID) throw new AppError("BAD_REQUEST", t.rootNotForSale);
  const entity = await findEntity(rc.db, entityId);
  if (!entity) throw new AppError("NOT_FOUND", t.itemNotFound);
  const before = await repo.listingRow(rc.db, entityId);
  const preview = entity.type === "asset" ? await makeWatermarkedPreview(rc, entity, actor.id) : null;
  const now = Date.now();
  // A listing whose new preview could not be made loses the old one too (it may show an older version).
  const dropOld = before?.preview_key && !preview ? [repo.deleteWatermarkSql(before.preview_key)] : [];
  const statements: Statement[] = [
    ...(preview?.statements ?? []),
    ...dropOld,
    repo.upsertListingSql({ entityId, entityType: entity.type, ...input, previewKey: preview?.key ?? null, by: actor.id, now }),
    audit(rc, actor, before ? "shop.listing.update" : "shop.listing.create", entity.type, entityId, { ...input }),
  ];
  try {
    await runBatch(rc.db, statements);
  } catch (error) {
    if (preview) await rc.env.MEDIA.delete(preview.key);
    throw error;
  }
  if (before?.preview_key && before.preview_key !== preview?.key) await rc.env.MEDIA.delete(before.preview_key);
  const listing = (await repo.findListing(rc.db, entityId))!;
  return toItem(listing, await previewUrls(rc, actor, [listing]));
}

/** DELETE /shop/listing/{id}: takes an item off sale (administrators); it leaves every basket, placed orders stay. */
export async function withdraw(rc: RequestContext, actor: Actor, entityId: string): Promise<{ entity_id: string; withdrawn: true }> {
  requireShopAdmin(actor);
  const row = await repo.listingRow(rc.db, entityId);
  if (!row) throw new AppError("NOT_FOUND", t.notListed);
  await runBatch(rc.db, [
    repo.deleteListingSql(entityId),
    repo.deleteFromBasketsSql(entityId),
    ...(row.preview_key ? [repo.deleteWatermarkSql(row.preview_key)] : []),
    audit(rc, actor, "shop.listing.delete", "listing", entityId, {}),
  ]);
  if (row.preview_key) await rc.env.MEDIA.delete(row.preview_key);
  return { entity_id: entityId, withdrawn: true };
}

/** GET /shop/listing/{id}: one item for sale (404 when it is not, or its asset or folder is in the trash). */
export async function getListing(rc: RequestContext, actor: Actor, entityId: string): Promise<CatalogItem> {
  const listing = await repo.findListing(rc.db, entityId);
  if (!listing) throw new AppError("NOT_FOUND", t.notListed);
  const [claims, basket] = await Promise.all([repo.ownedBy(rc.db, actor.id, [entityId]), repo.basketOf(rc.db, actor.id)]);
  const row = { ...listing, owned: claims.has(entityId) ? 1 : 0, in_basket: basket.some((b) => b.entity_id === entityId) ? 1 : 0 };
  return toItem(row, await previewUrls(rc, actor, [listing]));
}

/** GET /shop/catalog: a page of the items for sale, filtered and sorted, with the total and the currencies on offer. */
export async function catalog(rc: RequestContext, actor: Actor, filter: repo.CatalogFilter) {
  const [rows, total, currencies] = await Promise.all([
    repo.catalogPage(rc.db, actor.id, filter),
    repo.catalogCount(rc.db, filter),
    repo.catalogCurrencies(rc.db),
  ]);
  const urls = await previewUrls(rc, actor, rows);
  return { items: rows.map((r) => toItem(r, urls)), total, currencies };
}

/**
 * GET /shop/preview/{id}: the watermarked preview of a listed asset, authorised by the signed link the catalogue
 * handed to a signed-in caller (the original stays closed); 404 for a bad link, as for no preview.
 */
export async function listingPreview(
  rc: RequestContext,
  entityId: string,
  link: { u?: string; exp?: string; sig?: string },
): Promise<R2ObjectBody> {
  if (!(await verifyLink(rc.config.JWT_SECRET, "shop-preview", entityId, link))) throw new AppError("NOT_FOUND", t.noPreview);
  const listing = await repo.findListing(rc.db, entityId);
  const row = listing ? await repo.listingRow(rc.db, entityId) : undefined;
  const object = row?.preview_key ? await rc.env.MEDIA.get(row.preview_key) : null;
  if (!object) throw new AppError("NOT_FOUND", t.noPreview);
  return object;
}

// ---------------------------------------------------------------------------------------------------------------
// Basket

export interface BasketView {
  items: {
    entity_id: string;
    entity_type: "asset" | "group" | null;
    name: string | null;
    price: number | null;
    currency: string | null;
    price_text: string | null;
    licence: string | null;
    preview_url: string | null;
    for_sale: boolean;
  }[];
  /** totals per currency of the items still for sale */
  totals: { currency: string; total: number; total_text: string }[];
}

/** GET /shop/basket: the caller's basket; an item taken off sale stays listed with `for_sale: false` until removed. */
export async function basket(rc: RequestContext, actor: Actor): Promise<BasketView> {
  const rows = await repo.basketOf(rc.db, actor.id);
  const urls = await previewUrls(rc, actor, rows);
  const sums = new Map<string, number>();
  for (const r of rows) if (r.price != null && r.currency) sums.set(r.currency, (sums.get(r.currency) ?? 0) + r.price);
  return {
    items: rows.map((r) => ({
      entity_id: r.entity_id,
      entity_type: r.entity_type,
      name: r.name,
      price: r.price,
      currency: r.currency,
      price_text: r.price != null && r.currency ? formatMoney(r.price, r.currency) : null,
      licence: r.licence,
      preview_url: urls.get(r.entity_id) ?? null,
      for_sale: r.price != null,
    })),
    totals: [...sums].map(([currency, total]) => ({ currency, total, total_text: formatMoney(total, currency) })),
  };
}

/** POST /shop/basket: adds a listed item (409 when it is not for sale, or the caller already bought or ordered it). */
export async function addToBasket(rc: RequestContext, actor: Actor, entityId: string): Promise<BasketView> {
  const listing = await repo.findListing(rc.db, entityId);
  if (!listing) throw new AppError("CONFLICT", t.notForSale(entityId));
  if ((await repo.openClaims(rc.db, actor.id, [entityId])).has(entityId)) throw new AppError("CONFLICT", t.alreadyOrdered(listing.name));
  await runBatch(rc.db, [repo.addToBasketSql(actor.id, entityId, Date.now())]);
  return basket(rc, actor);
}

/** DELETE /shop/basket/{id}. */
export async function removeFromBasket(rc: RequestContext, actor: Actor, entityId: string): Promise<BasketView> {
  await runBatch(rc.db, [repo.removeFromBasketSql(actor.id, entityId)]);
  return basket(rc, actor);
}

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
  return order;
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
    repo.clearBasketSql(actor.id, ids),
    audit(rc, actor, "shop.order.create", "order", id, { total, currency, items: ids, status }),
  ]);
  if (secretKey) await startStripeCheckout(rc, actor, id, { currency, items, email: input.email ?? null, origin: input.origin, secretKey });
  const order = await loadOrder(rc, id);
  await mailOrder(rc, order, "created");
  return order;
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
  await runBatch(rc.db, settleStatements(rc, order, items, "approved", actor, null, Date.now()));
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
  await runBatch(rc.db, refundStatements(rc, order, actor, Date.now()));
  forgetCallers(rc);
  const view = await loadOrder(rc, id);
  await mailOrder(rc, view, "refunded");
  return view;
}

/** POST /shop/order/{id}/cancel: the buyer (or an administrator) drops an order that is not paid or approved yet. */
export async function cancelOrder(rc: RequestContext, actor: Actor, id: string): Promise<OrderView> {
  const order = await requireOrderRow(rc, id);
  if (!actor.isAdmin && order.buyer_id !== actor.id) throw new AppError("NOT_FOUND", t.orderNotFound);
  if (order.status !== "pending_payment" && order.status !== "awaiting_approval")
    throw new AppError("CONFLICT", t.cannotCancel(t.statuses[order.status]));
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
