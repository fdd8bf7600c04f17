import { Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { OrderStatus } from "../components/shop/order-status";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { fetchOrders, type OrderView } from "../lib/shop-api";

const t = ru.shop;

/** /shop/orders («Мои заказы»): the buyer's orders, newest first, each leading to its receipt. */
export default function MyOrdersRoute() {
  const [orders, setOrders] = useState<OrderView[] | null>(null);
  useEffect(() => void fetchOrders({ take: 100 }).then(setOrders, () => setOrders([])), []);
  if (!orders) return <p className="muted">{ru.common.loading}</p>;
  if (orders.length === 0) {
    return (
      <div className="panel empty">
        <span className="empty-icon">
          <Icon name="shop" size={26} />
        </span>
        <div className="empty-title">{t.myOrdersEmpty}</div>
        <Link className="btn" to="/shop">
          {t.backToShop}
        </Link>
      </div>
    );
  }
  return (
    <div className="panel table-scroll">
      <table className="table shop-my-orders" data-testid="my-orders">
        <thead>
          <tr>
            <th>{t.colOrder}</th>
            <th>{t.colDate}</th>
            <th>{t.colItems}</th>
            <th>{t.colTotal}</th>
            <th>{t.colStatus}</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.id}>
              <td className="shop-order-no">
                <Link to={`/shop/orders/${o.id}`}>{t.order(o.number)}</Link>
              </td>
              <td className="num adm-nowrap"><LocalTime iso={o.created} /></td>
              <td>{o.items.map((i) => i.name).join(", ")}</td>
              <td className="num adm-nowrap">{o.total_text}</td>
              <td>
                <OrderStatus status={o.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
