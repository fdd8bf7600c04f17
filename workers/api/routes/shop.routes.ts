import { createRoute, z } from "@hono/zod-openapi";
import { ru } from "../../../shared/i18n/ru";
import { ORDER_STATUSES, PAYMENT_METHODS } from "../../db/schema/shop-orders";
import {
  addToBasket,
  approveOrder,
  basket,
  cancelOrder,
  catalog,
  checkout,
  getListing,
  getOrder,
  isListed,
  listForSale,
  listingPreview,
  listOrders,
  refundOrder,
  removeFromBasket,
  withdraw,
  handleStripeWebhook,
} from "../../services/shop";
import { CURRENCIES, MAX_PRICE_MINOR } from "../../services/shop/pure";
import { acrossLibraries } from "../../services/library";
import { requireAuth } from "../middleware/require-auth";
import { bearerSecurity, createRouter, errorResponses } from "../router";
import { IdParamsSchema, IdSchema, NON_BLANK_PATTERN } from "../schemas";

const t = ru.shop;

/** A price in integer minor units (kopecks, cents): > 0, whole, finite, at most Stripe's eight digits. */
export const PriceSchema = z
  .number({ error: t.price })
  .int(t.price)
  .positive(t.price)
  .max(MAX_PRICE_MINOR, t.price)
  .openapi({ description: "integer minor units (150000 RUB = 1 500,00 ₽)", example: 150000 });

/** An ISO 4217 code the shop accepts; lower case is accepted and stored upper case. */
export const CurrencySchema = z
  .preprocess((v) => (typeof v === "string" ? v.trim().toUpperCase() : v), z.enum(CURRENCIES, { error: t.currency }))
  .openapi({ type: "string", enum: [...CURRENCIES], example: "RUB" });

export const ListingBodySchema = z
  .object({
    price: PriceSchema,
    currency: CurrencySchema,
    licence: z
      .string({ error: t.licenceRequired })
      .trim()
      .min(1, t.licenceRequired)
      .max(4000)
      .openapi({ example: "Редакционное использование, без ограничения срока", pattern: NON_BLANK_PATTERN }),
  })
  .openapi("ShopListingRequest");

const CatalogItemSchema = z
  .object({
    entity_id: z.string(),
    entity_type: z.enum(["asset", "group"]),
    name: z.string(),
    mimetype: z.string().nullable(),
    price: z.number().int(),
    currency: z.string(),
    price_text: z.string().openapi({ example: "1 500,00 ₽" }),
    licence: z.string(),
    preview_url: z.string().nullable().openapi({ description: "signed link to the watermarked preview; null: none" }),
    listed: z.string(),
    in_basket: z.boolean(),
    owned: z.boolean(),
  })
  .openapi("ShopItem");

const CatalogQuerySchema = z.object({
  q: z.string().trim().max(200).optional(),
  type: z.enum(["asset", "group"]).optional(),
  currency: CurrencySchema.optional(),
  min: z.coerce.number().int().min(0).max(MAX_PRICE_MINOR).optional().openapi({ description: "lowest price, minor units" }),
  max: z.coerce.number().int().min(0).max(MAX_PRICE_MINOR).optional().openapi({ description: "highest price, minor units" }),
  sort: z.enum(["new", "price_asc", "price_desc", "name"]).default("new"),
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(100).default(24),
});

const BasketSchema = z
  .object({
    items: z.array(
      z.object({
        entity_id: z.string(),
        entity_type: z.enum(["asset", "group"]).nullable(),
        name: z.string().nullable(),
        price: z.number().int().nullable(),
        currency: z.string().nullable(),
        price_text: z.string().nullable(),
        licence: z.string().nullable(),
        preview_url: z.string().nullable(),
        for_sale: z.boolean(),
      }),
    ),
    totals: z.array(z.object({ currency: z.string(), total: z.number().int(), total_text: z.string() })),
  })
  .openapi("ShopBasket");

const OrderSchema = z
  .object({
    id: z.string(),
    number: z.string().openapi({ example: "3C4D5E6F" }),
    buyer_id: z.string(),
    buyer_name: z.string().nullable(),
    status: z.enum(ORDER_STATUSES),
    payment: z.enum(PAYMENT_METHODS),
    currency: z.string(),
    total: z.number().int(),
    total_text: z.string(),
    email: z.string().nullable(),
    checkout_url: z.string().nullable().openapi({ description: "Stripe's hosted checkout while the order awaits payment" }),
    created: z.string(),
    updated: z.string(),
    paid: z.string().nullable(),
    refunded: z.string().nullable(),
    items: z.array(
      z.object({
        entity_id: z.string(),
        entity_type: z.enum(["asset", "group"]),
        name: z.string(),
        price: z.number().int(),
        price_text: z.string(),
        licence: z.string(),
        granted: z.boolean(),
        preview_url: z.string().nullable().openapi({ description: "The watermarked preview while the item is still listed (the receipt)" }),
      }),
    ),
  })
  .openapi("ShopOrder");

const CheckoutBodySchema = z
  .object({
    email: z
      .union([z.literal("").transform(() => null), z.email(ru.sharing.badEmail).max(254)])
      .nullable()
      .optional()
      // format and bound publish z.email() (an empty value, which the product takes as none, is left out)
      .openapi({ type: "string", format: "email", maxLength: 254, example: "buyer@example.com", description: "where the receipt goes (optional)" }),
  })
  .openapi("ShopCheckout");

const OrdersQuerySchema = z.object({
  all: z
    .enum(["1", "0", "true", "false"])
    .transform((v) => v === "1" || v === "true")
    .optional()
    .openapi({ description: "everyone's orders (administrators only)" }),
  status: z.enum(ORDER_STATUSES).optional(),
  skip: z.coerce.number().int().min(0).max(10_000_000).default(0),
  take: z.coerce.number().int().min(1).max(200).default(50),
});

const PreviewLinkSchema = z.object({
  u: z.string().max(64).optional(),
  exp: z.string().max(20).optional(),
  sig: z.string().max(128).optional(),
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
const tags = ["Shop"];

/** The shop (decision 022): catalogue, basket, checkout, orders, administrators' decisions and Stripe's webhook. */
export const shopRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/catalog",
      tags,
      summary: "Items for sale: search, filters (type, currency, price range), sorting, paging",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: CatalogQuerySchema },
      responses: {
        200: json(
          z.object({ items: z.array(CatalogItemSchema), total: z.number().int(), currencies: z.array(z.string()) }),
          "A page of the catalogue",
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await catalog(c.var.rc, c.var.actor, { ...q, q: q.q || undefined }), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/listing/{id}",
      tags,
      summary: "One item for sale",
      description: "With `if_listed=1` an item that is not for sale answers 204 instead of 404 (the sell dialog's first look, which is no error).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, query: z.object({ if_listed: z.enum(["1"]).optional() }) },
      responses: { 200: json(CatalogItemSchema, "The item"), 204: { description: "Not for sale (with `if_listed=1`)" }, ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (c.req.valid("query").if_listed && !(await isListed(c.var.rc, id))) return c.body(null, 204);
      return c.json(await getListing(c.var.rc, c.var.actor, id), 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/listing/{id}",
      tags,
      summary: "List an asset or folder for sale, or change its price, currency and licence (administrators)",
      description: "An asset gets a watermarked preview (a `watermarked` variant of its latest version) made from its existing preview.",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema, body: body(ListingBodySchema) },
      responses: { 200: json(CatalogItemSchema, "The listing"), ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      // The listing (global) and a file's watermarked preview (its library's) in one batch, in the catalog; across
      // libraries when the library is in its shard (decision 046).
      return c.json(await acrossLibraries(c.var.rc, [id], (rc) => listForSale(rc, c.var.actor, id, c.req.valid("json"))), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/listing/{id}",
      tags,
      summary: "Take an item off sale (administrators); it leaves every basket, placed orders stay",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: {
        200: json(z.object({ entity_id: z.string(), withdrawn: z.literal(true) }), "Withdrawn"),
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      return c.json(await acrossLibraries(c.var.rc, [id], (rc) => withdraw(rc, c.var.actor, id)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/preview/{id}",
      tags,
      summary: "The watermarked preview of a listed asset (signed link from the catalogue)",
      request: { params: IdParamsSchema, query: PreviewLinkSchema },
      responses: {
        200: { description: "JPEG image", content: { "image/jpeg": { schema: z.string().openapi({ format: "binary" }) } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const object = await listingPreview(c.var.rc, c.req.valid("param").id, c.req.valid("query"));
      return c.body(object.body, 200, {
        "Content-Type": "image/jpeg",
        "Cache-Control": "private, max-age=3600",
        "X-Content-Type-Options": "nosniff",
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/basket",
      tags,
      summary: "The caller's basket, with totals per currency",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      responses: { 200: json(BasketSchema, "The basket"), ...errorResponses(401) },
    }),
    async (c) => c.json(await basket(c.var.rc, c.var.actor), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/basket",
      tags,
      summary: "Add an item for sale to the basket (409 when it is not for sale or already bought)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(z.object({ entity_id: IdSchema }).openapi("ShopBasketAdd")) },
      responses: { 200: json(BasketSchema, "The basket"), ...errorResponses(400, 401, 409) },
    }),
    async (c) => c.json(await addToBasket(c.var.rc, c.var.actor, c.req.valid("json").entity_id), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/basket/{id}",
      tags,
      summary: "Remove an item from the basket",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(BasketSchema, "The basket"), ...errorResponses(400, 401) },
    }),
    async (c) => c.json(await removeFromBasket(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/checkout",
      tags,
      summary: "Turn the basket into an order",
      description:
        "Re-checks every item (409 naming one no longer for sale, already ordered, or a mix of currencies). With STRIPE_SECRET_KEY the order is `pending_payment` and `checkout_url` leads to Stripe; otherwise it is `awaiting_approval` (invoice).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { body: body(CheckoutBodySchema) },
      responses: { 201: json(OrderSchema, "The order"), ...errorResponses(400, 401, 409, 503) },
    }),
    async (c) =>
      c.json(await checkout(c.var.rc, c.var.actor, { email: c.req.valid("json").email, origin: new URL(c.req.url).origin }), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/orders",
      tags,
      summary: "The caller's orders, newest first; `all=1`: everyone's (administrators)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { query: OrdersQuerySchema },
      responses: { 200: json(z.array(OrderSchema), "Orders"), ...errorResponses(400, 401, 403) },
    }),
    async (c) => c.json(await listOrders(c.var.rc, c.var.actor, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/order/{id}",
      tags,
      summary: "One order (its buyer or administrators; others get 404)",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(OrderSchema, "The order"), ...errorResponses(400, 401, 404) },
    }),
    async (c) => c.json(await getOrder(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/order/{id}/approve",
      tags,
      summary: "Approve an invoiced order (administrators): the buyer gets read + download on its items",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(OrderSchema, "The approved order"), ...errorResponses(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await approveOrder(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/order/{id}/refund",
      tags,
      summary: "Refund a paid or approved order (administrators): the rights it granted are revoked",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(OrderSchema, "The refunded order"), ...errorResponses(400, 401, 403, 404, 409, 503) },
    }),
    async (c) => c.json(await refundOrder(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/order/{id}/cancel",
      tags,
      summary: "Cancel an order not yet paid or approved (its buyer or administrators)",
      description:
        "An order awaiting payment has its Stripe Checkout Session expired first, so it can no longer be paid: 409 when Stripe already took the payment (the webhook settles the order), 503 when Stripe cannot be reached (nothing is cancelled).",
      security: bearerSecurity,
      middleware: [requireAuth] as const,
      request: { params: IdParamsSchema },
      responses: { 200: json(OrderSchema, "The cancelled order"), ...errorResponses(400, 401, 404, 409, 503) },
    }),
    async (c) => c.json(await cancelOrder(c.var.rc, c.var.actor, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/stripe/webhook",
      tags,
      summary: "Stripe's webhook: checkout.session.completed pays an order, charge.refunded refunds it",
      description:
        "Authorised by the `Stripe-Signature` header (HMAC-SHA256 with STRIPE_WEBHOOK_SECRET, five minutes' tolerance): forged or stale signatures answer 400 and change nothing. Redelivered events are acknowledged without acting twice.",
      // No body validator: the signature is checked on the raw bytes before the body is parsed at all.
      request: { headers: z.object({ "stripe-signature": z.string().max(2000).optional() }) },
      responses: {
        200: json(z.object({ received: z.literal(true), outcome: z.enum(["paid", "refunded", "duplicate", "ignored"]) }), "Acknowledged"),
        ...errorResponses(400, 503),
      },
    }),
    // The raw body is what Stripe signed: read as text, never re-serialised JSON.
    async (c) => c.json(await handleStripeWebhook(c.var.rc, await c.req.text(), c.req.header("stripe-signature")), 200),
  );
