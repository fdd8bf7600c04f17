import { Link, useNavigate } from "@remix-run/react";
import { useState } from "react";
import { Icon } from "../components/icons";
import { ShopItemMedia } from "../components/shop/shop-item-media";
import { ru } from "../i18n/ru";
import { checkout, removeFromBasket } from "../lib/shop-api";
import { useShop } from "../lib/shop-context";
import { useFieldErrors } from "../lib/use-field-errors";

const t = ru.shop;

/** /shop/basket: what the user is about to buy, totals, an optional receipt address and «Оформить заказ». */
export default function ShopBasketRoute() {
  const { basket, setBasket, reloadBasket } = useShop();
  const navigate = useNavigate();
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const fields = useFieldErrors();

  async function submit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!fields.check(e.currentTarget)) return;
    setBusy(true);
    try {
      const order = await checkout(email.trim());
      reloadBasket();
      // With Stripe the buyer pays on Stripe's page and comes back to the receipt; otherwise the receipt says it waits.
      if (order.checkout_url) window.location.assign(order.checkout_url);
      else navigate(`/shop/orders/${order.id}`);
    } catch {
      // the toast names the item that is no longer for sale
      reloadBasket();
    } finally {
      setBusy(false);
    }
  }

  if (!basket) return <p className="muted">{ru.common.loading}</p>;
  if (basket.items.length === 0) {
    return (
      <div className="panel empty" data-testid="basket-empty">
        <span className="empty-icon">
          <Icon name="shop" size={26} />
        </span>
        <div className="empty-title">{t.basketEmpty}</div>
        <div>{t.basketEmptyHint}</div>
        <Link className="btn" to="/shop">
          {t.backToShop}
        </Link>
      </div>
    );
  }
  const unavailable = basket.items.some((i) => !i.for_sale);
  return (
    <div className="shop-basket">
      <ul className="panel shop-lines" data-testid="basket">
        {basket.items.map((item) => (
          <li key={item.entity_id} className={`shop-line${item.for_sale ? "" : " gone"}`}>
            <span className="shop-line-media">
              <ShopItemMedia url={item.preview_url} type={item.entity_type} name={item.name ?? ""} />
            </span>
            <span className="shop-line-main">
              <span className="shop-name">{item.name ?? item.entity_id}</span>
              <span className="muted shop-line-licence">{item.for_sale ? `${t.licence}: ${item.licence}` : t.unavailable}</span>
            </span>
            <span className="shop-price num">{item.price_text ?? "—"}</span>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={`${t.remove}: ${item.name ?? item.entity_id}`}
              onClick={() => void removeFromBasket(item.entity_id).then(setBasket, () => undefined)}
            >
              <Icon name="trash" size={16} />
              <span className="shop-remove-label">{t.remove}</span>
            </button>
          </li>
        ))}
      </ul>
      <form className="panel shop-summary" onSubmit={(e) => void submit(e)} noValidate>
        {basket.totals.map((total) => (
          <div key={total.currency} className="shop-total">
            <span>{t.total}</span>
            <span className="num" data-testid="basket-total">
              {total.total_text}
            </span>
          </div>
        ))}
        <label className="field">
          <span>{t.email}</span>
          <input
            id="shop-email"
            className="input"
            type="email"
            maxLength={254}
            {...fields.props("shop-email")}
            value={email}
            autoComplete="email"
            onChange={(e) => setEmail(e.target.value)}
          />
          {fields.error("shop-email")}
        </label>
        {unavailable && <p className="field-error">{t.unavailable}</p>}
        <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
          {t.checkout}
        </button>
      </form>
    </div>
  );
}
