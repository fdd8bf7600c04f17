/**
 * Shop: listings, basket, orders and Stripe payments.
 *
 * The domain's public face (decision record 025): code outside workers/services/shop/ imports only this file or
 * ./pure.
 */
export { handleStripeWebhook } from "./shop-webhook.service";
export { addToBasket, basket, catalog, getListing, isListed, listForSale, listingPreview, removeFromBasket, withdraw } from "./shop.service";
export { approveOrder, cancelOrder, checkout, getOrder, listOrders, refundOrder } from "./shop-orders.service";
export type { BasketView, CatalogItem } from "./shop.service";
export type { OrderView } from "./shop-orders.service";
