import { ru } from "../../../shared/i18n/ru";
import { findEntity } from "../../db/repositories/access.repository";
import { runBatch, type Statement } from "../../db/repositories/asset.repository";
import * as repo from "../../db/repositories/shop.repository";
import { AppError } from "../../lib/errors";
import { ROOT_GROUP_ID } from "../../lib/ids";
import { signLink, verifyLink } from "../../lib/signed-url";
import { toIso } from "../../lib/time";
import { auditStatement } from "../access";
import { maskOf } from "../access/pure";
import type { Actor, RequestContext } from "../access";
import { makeWatermarkedPreview } from "./listing-preview";
import { formatMoney } from "./money";

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
export async function previewUrls(rc: RequestContext, actor: Actor, rows: readonly { entity_id: string; has_preview: number | null }[]) {
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

export function requireShopAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError("FORBIDDEN", t.adminOnly);
}

export function audit(
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
/** Whether the item is for sale now (a live listing). */
export async function isListed(rc: RequestContext, entityId: string): Promise<boolean> {
  return (await repo.findListing(rc.db, entityId)) !== undefined;
}

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
