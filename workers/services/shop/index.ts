/**
 * Shop: listings, basket, orders and Stripe payments.
 *
 * The domain's public face (decision record 025): code outside workers/services/shop/ imports only this file or
 * ./pure.
 */
export { handleStripeWebhook } from "./shop-webhook.service";
export {
  addToBasket,
  approveOrder,
  basket,
  cancelOrder,
  catalog,
  checkout,
  getListing,
  getOrder,
  listForSale,
  listOrders,
  listingPreview,
  refundOrder,
  removeFromBasket,
  withdraw,
} from "./shop.service";
export type { BasketView, CatalogItem, OrderView } from "./shop.service";
