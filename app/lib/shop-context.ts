import { useOutletContext } from "@remix-run/react";
import type { BasketView } from "./shop-api";

/** What the shop's screens share through the /shop layout: the basket (its count shows in the tabs) and a reload. */
export interface ShopContext {
  basket: BasketView | null;
  setBasket: (basket: BasketView) => void;
  reloadBasket: () => void;
}

export function useShop(): ShopContext {
  return useOutletContext<ShopContext>();
}
