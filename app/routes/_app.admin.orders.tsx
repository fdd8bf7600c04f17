import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { Pager } from "../components/admin/pager";
import { Icon } from "../components/icons";
import { Modal } from "../components/modal";
import { OrderStatus } from "../components/shop/order-status";
import { ru } from "../i18n/ru";
import { LocalTime } from "../components/local-time";
import { decideOrder, fetchOrders, type OrderView } from "../lib/shop-api";
import { showToast } from "../lib/toast";

export const meta: MetaFunction = () => [{ title: `${ru.shop.adminTitle} — ${ru.app.name}` }];

const t = ru.shop;
const TAKE = 50;
const STATUSES = Object.keys(t.statuses) as OrderView["status"][];

/** /admin/orders: every order, newest first, filtered by status, with approval of invoices and refunds. */
export default function AdminOrdersRoute() {
  const [status, setStatus] = useState("");
  const [skip, setSkip] = useState(0);
  const [orders, setOrders] = useState<OrderView[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<OrderView | null>(null);
  const load = useCallback(() => {
    fetchOrders({ all: true, status: status || undefined, skip, take: TAKE }).then(setOrders, () => undefined);
  }, [status, skip]);
  useEffect(load, [load]);

  async function decide(o: OrderView, decision: "approve" | "refund") {
    setConfirming(null);
    setBusy(o.id);
    try {
      await decideOrder(o.id, decision);
      showToast({ kind: "info", title: t.order(o.number), message: decision === "approve" ? t.approved : t.refundDone });
      load();
    } catch {
      // the toast says why
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="adm-section">
      <div className="shop-admin-filters">
        <select
          className="input select"
          value={status}
          aria-label={t.colStatus}
          onChange={(e) => {
            setSkip(0);
            setStatus(e.target.value);
          }}
        >
          <option value="">{t.allStatuses}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t.statuses[s]}
            </option>
          ))}
        </select>
      </div>
      {orders && orders.length === 0 && skip === 0 ? (
        <div className="panel empty adm-empty-sm">
          <span className="empty-icon">
            <Icon name="shop" size={26} />
          </span>
          <div className="empty-title">{t.adminEmpty}</div>
        </div>
      ) : (
        <div className="panel table-scroll">
          <table className="table adm-table shop-orders-table" data-testid="admin-orders">
            <thead>
              <tr>
                <th>{t.colOrder}</th>
                <th>{t.colBuyer}</th>
                <th>{t.colItems}</th>
                <th>{t.colTotal}</th>
                <th>{t.colStatus}</th>
                <th>{t.colDate}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {orders?.map((o) => (
                <tr key={o.id} data-order={o.number}>
                  <td className="shop-order-no">
                    <Link to={`/shop/orders/${o.id}`}>{o.number}</Link>
                  </td>
                  <td>{o.buyer_name ?? o.buyer_id}</td>
                  <td className="adm-sub-cell">{o.items.map((i) => i.name).join(", ")}</td>
                  <td className="num adm-nowrap">{o.total_text}</td>
                  <td>
                    <OrderStatus status={o.status} />
                  </td>
                  <td className="num adm-nowrap"><LocalTime iso={o.created} /></td>
                  <td className="row-actions-cell">
                    {o.status === "awaiting_approval" && (
                      <button type="button" className="btn btn-primary" disabled={busy === o.id} onClick={() => void decide(o, "approve")}>
                        {t.approve}
                      </button>
                    )}
                    {(o.status === "paid" || o.status === "approved") && (
                      <button type="button" className="btn btn-danger-outline" disabled={busy === o.id} onClick={() => setConfirming(o)}>
                        {t.refund}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager skip={skip} take={TAKE} count={orders?.length ?? 0} onSkip={setSkip} />
        </div>
      )}
      {confirming && (
        <Modal
          title={t.refund}
          onClose={() => setConfirming(null)}
          footer={
            <>
              <button type="button" className="btn" onClick={() => setConfirming(null)}>
                {ru.common.cancel}
              </button>
              <button type="button" className="btn btn-danger" onClick={() => void decide(confirming, "refund")}>
                {t.refund}
              </button>
            </>
          }
        >
          <p>{t.refundConfirm(confirming.number)}</p>
        </Modal>
      )}
    </section>
  );
}
