import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { OrderStatus } from "../components/shop/order-status";
import { ShopItemMedia } from "../components/shop/shop-item-media";
import { UnavailablePage } from "../components/unavailable-page";
import { ru } from "../i18n/ru";
import { ApiError } from "../lib/api-error";
import { LocalTime } from "../components/local-time";
import { decideOrder, fetchOrder, type OrderView } from "../lib/shop-api";
import { ID_PATTERN } from "../../workers/lib/ids";

const t = ru.shop;

export function loader({ params }: LoaderFunctionArgs) {
  if (!params.id || !ID_PATTERN.test(params.id)) throw new Response(t.orderNotFound, { status: 404 });
  return { orderId: params.id };
}

/** What the receipt says under the status: what happens next, or what happened. */
function note(o: OrderView, back: boolean): string {
  if (o.status === "awaiting_approval") return t.waitApproval;
  // Back from Stripe before its webhook arrived: the payment is being confirmed.
  if (o.status === "pending_payment") return back ? t.paymentConfirming : t.waitPayment;
  if (o.status === "refunded") return t.refundedNote;
  if (o.status === "cancelled") return t.cancelledNote;
  return t.paidNote;
}

/** /shop/orders/{id}: the receipt of one order, with links to the bought files once they are paid or approved. */
export default function OrderReceiptRoute() {
  const { orderId } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const [order, setOrder] = useState<OrderView | null>(null);
  const [missing, setMissing] = useState(false);
  const load = useCallback(
    () => void fetchOrder(orderId).then(setOrder, (e: unknown) => e instanceof ApiError && e.status === 404 && setMissing(true)),
    [orderId],
  );
  useEffect(load, [load]);
  const back = params.get("paid") === "1";
  const confirming = back && order?.status === "pending_payment";
  // Back from Stripe before its webhook: look again every few seconds until the order is paid.
  useEffect(() => {
    if (!confirming) return;
    const timer = window.setInterval(load, 3000);
    return () => window.clearInterval(timer);
  }, [confirming, load]);
  if (missing) return <UnavailablePage title={t.orderNotFound} hint={t.orderMissingHint} icon="shop" />;
  if (!order) return <p className="muted">{ru.common.loading}</p>;
  const open = order.status === "pending_payment" || order.status === "awaiting_approval";
  return (
    <article className="panel shop-receipt" data-testid="receipt">
      <header className="shop-receipt-head">
        <div>
          <div className="muted">{t.receipt}</div>
          <h2 className="shop-receipt-title">{t.order(order.number)}</h2>
        </div>
        <OrderStatus status={order.status} />
      </header>
      <p className={`shop-note${order.status === "paid" || order.status === "approved" ? " ok" : ""}`}>{note(order, back)}</p>
      <dl className="shop-facts">
        <dt>{t.created}</dt>
        <dd className="num"><LocalTime iso={order.created} /></dd>
        {order.paid && (
          <>
            <dt>{order.payment === "invoice" ? t.approvedAt : t.paid}</dt>
            <dd className="num"><LocalTime iso={order.paid} /></dd>
          </>
        )}
        {order.refunded && (
          <>
            <dt>{t.refunded}</dt>
            <dd className="num"><LocalTime iso={order.refunded} /></dd>
          </>
        )}
        <dt>{t.payment}</dt>
        <dd>{t.payments[order.payment]}</dd>
        <dt>{t.buyer}</dt>
        <dd>{order.buyer_name ?? order.buyer_id}</dd>
      </dl>
      <ul className="shop-lines">
        {order.items.map((item) => (
          <li key={item.entity_id} className="shop-line">
            <span className="shop-line-media">
              <ShopItemMedia url={item.preview_url} type={item.entity_type} name={item.name} />
            </span>
            <span className="shop-line-main">
              <span className="shop-name">{item.name}</span>
              <span className="muted shop-line-licence">
                {t.licence}: {item.licence}
              </span>
            </span>
            <span className="shop-price num">{item.price_text}</span>
            {item.granted && (
              <Link
                className="btn"
                to={item.entity_type === "group" ? `/mam/${item.entity_id}` : `/asset/${item.entity_id}`}
                data-testid="open-bought"
              >
                <Icon name={item.entity_type === "group" ? "folder" : "download"} size={16} />
                {item.entity_type === "group" ? t.openFolder : t.download}
              </Link>
            )}
          </li>
        ))}
      </ul>
      <div className="shop-total shop-receipt-total">
        <span>{t.total}</span>
        <span className="num">{order.total_text}</span>
      </div>
      <div className="shop-receipt-actions">
        {order.checkout_url && (
          <a className="btn btn-primary" href={order.checkout_url}>
            {t.payNow}
          </a>
        )}
        {open && (
          <button
            type="button"
            className="btn btn-danger-outline"
            onClick={() => void decideOrder(order.id, "cancel").then(setOrder, () => undefined)}
          >
            {t.cancel}
          </button>
        )}
        <Link className="btn btn-ghost" to="/shop/orders">
          {t.myOrders}
        </Link>
      </div>
    </article>
  );
}
