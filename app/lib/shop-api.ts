import { apiRequest } from "./api-client";
import type { BasketView, CatalogItem, OrderView } from "../../workers/services/shop";

export type { BasketView, CatalogItem, OrderView };

/** The shop's calls (decision 022), typed by the service's own answer types. */

export interface CatalogQuery {
  q?: string;
  type?: string;
  currency?: string;
  sort?: string;
  skip?: number;
  take?: number;
}

export function fetchCatalog(query: CatalogQuery, signal?: AbortSignal) {
  return apiRequest<{ items: CatalogItem[]; total: number; currencies: string[] }>("/api/shop/catalog", {
    query: query as Record<string, string | number | undefined>,
    signal,
  });
}

export const fetchBasket = () => apiRequest<BasketView>("/api/shop/basket");
export const addToBasket = (entityId: string) =>
  apiRequest<BasketView>("/api/shop/basket", { method: "POST", body: { entity_id: entityId } });
export const removeFromBasket = (entityId: string) => apiRequest<BasketView>(`/api/shop/basket/${entityId}`, { method: "DELETE" });
export const checkout = (email: string) => apiRequest<OrderView>("/api/shop/checkout", { method: "POST", body: { email } });
export const fetchOrders = (query: { all?: boolean; status?: string; skip?: number; take?: number } = {}) =>
  apiRequest<OrderView[]>("/api/shop/orders", { query: { ...query, all: query.all ? "1" : undefined } });
export const fetchOrder = (id: string) => apiRequest<OrderView>(`/api/shop/order/${id}`);
export const decideOrder = (id: string, decision: "approve" | "refund" | "cancel") =>
  apiRequest<OrderView>(`/api/shop/order/${id}/${decision}`, { method: "POST", body: {} });
/** The item's listing, or null when it is not for sale (204: no 404 in the console for a normal answer). */
export const fetchListing = (entityId: string) =>
  apiRequest<CatalogItem | null>(`/api/shop/listing/${entityId}`, { query: { if_listed: 1 }, toast: false });
export const saveListing = (entityId: string, listing: { price: number; currency: string; licence: string }) =>
  apiRequest<CatalogItem>(`/api/shop/listing/${entityId}`, { method: "PUT", body: listing });
export const withdrawListing = (entityId: string) => apiRequest(`/api/shop/listing/${entityId}`, { method: "DELETE" });
