import { ru } from "../../i18n/ru";
import type { OrderView } from "../../lib/shop-api";

/** An order's status as a coloured chip (waiting amber, settled green, refunded/cancelled grey). */
export function OrderStatus({ status }: { status: OrderView["status"] }) {
  return (
    <span className={`chip order-status order-${status}`} data-testid="order-status">
      {ru.shop.statuses[status]}
    </span>
  );
}
