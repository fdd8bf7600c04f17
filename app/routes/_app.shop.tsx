import type { MetaFunction } from "@remix-run/cloudflare";
import { NavLink, Outlet } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { PageHeader } from "../components/page-header";
import { ru } from "../i18n/ru";
import { fetchBasket, type BasketView } from "../lib/shop-api";
import type { ShopContext } from "../lib/shop-context";

export const meta: MetaFunction = () => [{ title: `${ru.screens.shop} — ${ru.app.name}` }];

const t = ru.shop;

/** The shop (SPEC §2 /shop, decision 022): catalogue, basket and the buyer's orders under one header. */
export default function ShopLayout() {
  const [basket, setBasket] = useState<BasketView | null>(null);
  const reloadBasket = useCallback(() => void fetchBasket().then(setBasket, () => undefined), []);
  useEffect(reloadBasket, [reloadBasket]);
  const count = basket?.items.length ?? 0;
  const tabs = [
    { to: "/shop", label: t.catalogue, end: true },
    { to: "/shop/basket", label: count > 0 ? t.basketCount(count) : t.basket, end: true },
    { to: "/shop/orders", label: t.myOrders, end: false },
  ];
  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <nav className="tabs" aria-label={t.title}>
        {tabs.map((tab) => (
          <NavLink key={tab.to} to={tab.to} end={tab.end} className={({ isActive }) => `tab${isActive ? " active" : ""}`}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      <Outlet context={{ basket, setBasket, reloadBasket } satisfies ShopContext} />
    </>
  );
}
