import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../client";
import type { OrderStatus } from "../schema/shop-orders";

/**
 * Queries of the shop (decision 022): listings joined with their live asset or folder, baskets, orders and their
 * items. Every list is one or two statements (the page, then the items of the page's orders).
 */

/** Statuses in which an order holds download rights. */
export const GRANTING_STATUSES: readonly OrderStatus[] = ["paid", "approved"];
/** Statuses in which an order still counts as the buyer's claim on its items (no second order for them). */
export const OPEN_STATUSES: readonly OrderStatus[] = ["pending_payment", "awaiting_approval", "paid", "approved"];

const inList = (values: readonly string[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/** A listing with its item's current name and type; null fields never (the join drops deleted items). */
export interface ListingView {
  entity_id: string;
  entity_type: "asset" | "group";
  name: string;
  mimetype: string | null;
  price: number;
  currency: string;
  licence: string;
  has_preview: number;
  ctime: number;
  mtime: number;
}

/** Listings whose item still exists (a trashed asset or folder is not for sale). */
const LIVE_LISTINGS = sql`(
  select l.entity_id, l.entity_type, coalesce(a.name, g.name) as name, a.mime as mimetype, l.price, l.currency,
         l.licence, l.preview_key is not null as has_preview, l.ctime, l.mtime
    from shop_listings l
      left join assets a on l.entity_type = 'asset' and a.id = l.entity_id and a.deleted_at is null
      left join groups g on l.entity_type = 'group' and g.id = l.entity_id and g.deleted_at is null
   where coalesce(a.id, g.id) is not null)`;

export interface CatalogFilter {
  q?: string;
  type?: "asset" | "group";
  currency?: string;
  min?: number;
  max?: number;
  sort: "new" | "price_asc" | "price_desc" | "name";
  skip: number;
  take: number;
}

const UPPER_CYRILLIC = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ";

/**
 * `expr` in lower case for Latin and Cyrillic: SQLite's lower() folds ASCII only (D1 has no ICU), so the Cyrillic
 * capitals are replaced one by one. The catalogue is small enough (administrators curate it) for this to be cheap.
 */
function foldedSql(expr: SQL): SQL {
  let folded = sql`lower(${expr})`;
  // Constant letters inlined (not bound): D1 allows 100 bound parameters a statement.
  for (const c of UPPER_CYRILLIC) folded = sql`replace(${folded}, ${sql.raw(`'${c}'`)}, ${sql.raw(`'${c.toLowerCase()}'`)})`;
  return folded;
}

function catalogWhere(f: CatalogFilter): SQL {
  const parts: SQL[] = [sql`1`];
  if (f.q) {
    const pattern = `%${f.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(sql`(${foldedSql(sql`name`)} like ${pattern} escape '\\' or ${foldedSql(sql`licence`)} like ${pattern} escape '\\')`);
  }
  if (f.type) parts.push(sql`entity_type = ${f.type}`);
  if (f.currency) parts.push(sql`currency = ${f.currency}`);
  if (f.min !== undefined) parts.push(sql`price >= ${f.min}`);
  if (f.max !== undefined) parts.push(sql`price <= ${f.max}`);
  return sql.join(parts, sql` and `);
}

const ORDER_BY: Record<CatalogFilter["sort"], SQL> = {
  new: sql`ctime desc, entity_id`,
  price_asc: sql`price asc, entity_id`,
  price_desc: sql`price desc, entity_id`,
  name: sql`name collate nocase, entity_id`,
};

/** One page of the catalogue, with whether each item is in the caller's basket or already bought by them. */
export function catalogPage(db: Database, userId: string, f: CatalogFilter) {
  return db.all<ListingView & { in_basket: number; owned: number }>(sql`
    select s.*,
      exists(select 1 from shop_basket_items b where b.user_id = ${userId} and b.entity_id = s.entity_id) as in_basket,
      exists(select 1 from shop_order_items i join shop_orders o on o.id = i.order_id
              where i.entity_id = s.entity_id and o.buyer_id = ${userId} and o.status in ${inList(GRANTING_STATUSES)}) as owned
      from ${LIVE_LISTINGS} s where ${catalogWhere(f)}
     order by ${ORDER_BY[f.sort]} limit ${f.take} offset ${f.skip}`);
}

export async function catalogCount(db: Database, f: CatalogFilter): Promise<number> {
  const row = await db.get<{ n: number }>(sql`select count(*) as n from ${LIVE_LISTINGS} s where ${catalogWhere(f)}`);
  return row?.n ?? 0;
}

/** The currencies of live listings, for the catalogue's filter. */
export async function catalogCurrencies(db: Database): Promise<string[]> {
  const rows = await db.all<{ currency: string }>(sql`select distinct currency from ${LIVE_LISTINGS} s order by currency`);
  return rows.map((r) => r.currency);
}

/** One live listing by its item's id. */
export function findListing(db: Database, entityId: string) {
  return db.get<ListingView | undefined>(sql`select * from ${LIVE_LISTINGS} s where s.entity_id = ${entityId}`);
}

/** Live listings of the ids (checkout's re-check: what is missing is no longer for sale). */
export function listingsOf(db: Database, entityIds: readonly string[]) {
  return db.all<ListingView>(sql`select * from ${LIVE_LISTINGS} s where s.entity_id in ${inList(entityIds)}`);
}

/** The raw listing row (with its preview key), deleted item or not. */
export function listingRow(db: Database, entityId: string) {
  return db.get<{ entity_id: string; preview_key: string | null } | undefined>(
    sql`select entity_id, preview_key from shop_listings where entity_id = ${entityId}`,
  );
}

export function upsertListingSql(l: {
  entityId: string;
  entityType: "asset" | "group";
  price: number;
  currency: string;
  licence: string;
  previewKey: string | null;
  by: string;
  now: number;
}): SQL {
  return sql`insert into shop_listings (entity_id, entity_type, price, currency, licence, preview_key, created_by, ctime, mtime)
    values (${l.entityId}, ${l.entityType}, ${l.price}, ${l.currency}, ${l.licence}, ${l.previewKey}, ${l.by}, ${l.now}, ${l.now})
    on conflict (entity_id) do update set price = excluded.price, currency = excluded.currency, licence = excluded.licence,
      preview_key = excluded.preview_key, mtime = excluded.mtime`;
}

export function deleteListingSql(entityId: string): SQL {
  return sql`delete from shop_listings where entity_id = ${entityId}`;
}

/** The `watermarked` variant that holds a listing's preview (by its storage key). */
export function deleteWatermarkSql(storageKey: string): SQL {
  return sql`delete from variants where storage_key = ${storageKey} and variant_type = 'watermarked'`;
}

/** A version's `watermarked` variants, replaced by a new one. */
export function deleteWatermarksOfVersionSql(versionId: string): SQL {
  return sql`delete from variants where version_id = ${versionId} and variant_type = 'watermarked'`;
}

/** A withdrawn item leaves every basket (placed orders keep their copy). */
export function deleteFromBasketsSql(entityId: string): SQL {
  return sql`delete from shop_basket_items where entity_id = ${entityId}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Basket

/** The caller's basket, oldest first; `price` etc. are null for an item that is no longer for sale. */
export function basketOf(db: Database, userId: string) {
  return db.all<{
    entity_id: string;
    added: number;
    entity_type: "asset" | "group" | null;
    name: string | null;
    price: number | null;
    currency: string | null;
    licence: string | null;
    has_preview: number | null;
  }>(sql`
    select b.entity_id, b.ctime as added, s.entity_type, coalesce(s.name, a.name, g.name) as name, s.price, s.currency,
           s.licence, s.has_preview
      from shop_basket_items b left join ${LIVE_LISTINGS} s on s.entity_id = b.entity_id
        left join assets a on a.id = b.entity_id left join groups g on g.id = b.entity_id
     where b.user_id = ${userId} order by b.ctime, b.entity_id limit 500`);
}

export function addToBasketSql(userId: string, entityId: string, now: number): SQL {
  return sql`insert into shop_basket_items (user_id, entity_id, ctime) values (${userId}, ${entityId}, ${now})
    on conflict (user_id, entity_id) do nothing`;
}

export function removeFromBasketSql(userId: string, entityId: string): SQL {
  return sql`delete from shop_basket_items where user_id = ${userId} and entity_id = ${entityId}`;
}

/** Empties the ordered lines of a basket, only when the batch's guarded order insert happened. */
export function clearBasketSql(userId: string, entityIds: readonly string[], orderId: string): SQL {
  return sql`delete from shop_basket_items where user_id = ${userId} and entity_id in ${inList(entityIds)}
    and ${orderExistsSql(orderId)}`;
}

/** Items of the ids the buyer already holds through an open order (bought, or waiting for payment or approval). */
export async function openClaims(db: Database, userId: string, entityIds: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ entity_id: string }>(sql`
    select distinct i.entity_id from shop_order_items i join shop_orders o on o.id = i.order_id
     where o.buyer_id = ${userId} and o.status in ${inList(OPEN_STATUSES)} and i.entity_id in ${inList(entityIds)}`);
  return new Set(rows.map((r) => r.entity_id));
}

/** Items of the ids the buyer holds through a paid or approved order. */
export async function ownedBy(db: Database, userId: string, entityIds: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ entity_id: string }>(sql`
    select distinct i.entity_id from shop_order_items i join shop_orders o on o.id = i.order_id
     where o.buyer_id = ${userId} and o.status in ${inList(GRANTING_STATUSES)} and i.entity_id in ${inList(entityIds)}`);
  return new Set(rows.map((r) => r.entity_id));
}

// ---------------------------------------------------------------------------------------------------------------
// Orders

export interface OrderRow {
  id: string;
  buyer_id: string;
  buyer_name: string | null;
  status: OrderStatus;
  currency: string;
  total: number;
  email: string | null;
  payment: "stripe" | "invoice";
  stripe_session_id: string | null;
  stripe_payment_intent: string | null;
  checkout_url: string | null;
  decided_by: string | null;
  ctime: number;
  mtime: number;
  paid_at: number | null;
  refunded_at: number | null;
}

export interface OrderItemRow {
  order_id: string;
  entity_id: string;
  entity_type: "asset" | "group";
  name: string;
  price: number;
  currency: string;
  licence: string;
  rule_id: string | null;
}

const ORDER_COLUMNS = sql`o.id, o.buyer_id, u.name as buyer_name, o.status, o.currency, o.total, o.email, o.payment,
  o.stripe_session_id, o.stripe_payment_intent, o.checkout_url, o.decided_by, o.ctime, o.mtime, o.paid_at, o.refunded_at`;

export function findOrder(db: Database, id: string) {
  return db.get<OrderRow | undefined>(
    sql`select ${ORDER_COLUMNS} from shop_orders o left join users u on u.id = o.buyer_id where o.id = ${id}`,
  );
}

export function findOrderByIntent(db: Database, paymentIntent: string) {
  return db.get<OrderRow | undefined>(
    sql`select ${ORDER_COLUMNS} from shop_orders o left join users u on u.id = o.buyer_id where o.stripe_payment_intent = ${paymentIntent} limit 1`,
  );
}

/** A page of orders, newest first: one buyer's, or everyone's (administrators), optionally of one status. */
export function ordersPage(db: Database, o: { buyerId?: string; status?: OrderStatus; skip: number; take: number }) {
  const where: SQL[] = [sql`1`];
  if (o.buyerId) where.push(sql`o.buyer_id = ${o.buyerId}`);
  if (o.status) where.push(sql`o.status = ${o.status}`);
  return db.all<OrderRow>(sql`select ${ORDER_COLUMNS} from shop_orders o left join users u on u.id = o.buyer_id
    where ${sql.join(where, sql` and `)} order by o.ctime desc, o.id desc limit ${o.take} offset ${o.skip}`);
}

export function itemsOfOrders(db: Database, orderIds: readonly string[]) {
  if (orderIds.length === 0) return Promise.resolve([] as OrderItemRow[]);
  return db.all<OrderItemRow>(sql`select order_id, entity_id, entity_type, name, price, currency, licence, rule_id
    from shop_order_items where order_id in ${inList(orderIds)} order by order_id, name`);
}

/**
 * Inserts an order only if, when the batch runs, the buyer holds no open order for any of its items and every item is
 * still listed at the price and currency checkout read: two checkouts of one basket sent at once make one order
 * (not two charges), and a price changed between the read and the write orders nothing at the old price. The
 * statements after it in the batch are guarded by `orderExistsSql`; the caller reads whether the order exists.
 */
export function insertOrderSql(o: {
  id: string;
  buyerId: string;
  status: OrderStatus;
  currency: string;
  total: number;
  email: string | null;
  payment: "stripe" | "invoice";
  now: number;
  items: readonly { entity_id: string; price: number; currency: string }[];
}): SQL {
  const items = JSON.stringify(o.items.map((i) => ({ id: i.entity_id, price: i.price, currency: i.currency })));
  return sql`insert into shop_orders (id, buyer_id, status, currency, total, email, payment, ctime, mtime)
    select ${o.id}, ${o.buyerId}, ${o.status}, ${o.currency}, ${o.total}, ${o.email}, ${o.payment}, ${o.now}, ${o.now}
     where not exists (select 1 from shop_order_items i join shop_orders x on x.id = i.order_id
                        where x.buyer_id = ${o.buyerId} and x.status in ${inList(OPEN_STATUSES)}
                          and i.entity_id in (select json_extract(value, '$.id') from json_each(${items})))
       and not exists (select 1 from json_each(${items}) j
                        where not exists (select 1 from shop_listings l where l.entity_id = json_extract(j.value, '$.id')
                                            and l.price = json_extract(j.value, '$.price')
                                            and l.currency = json_extract(j.value, '$.currency')))`;
}

/** The guard of the statements that follow a guarded order insert: the order was written by this batch. */
export function orderExistsSql(orderId: string): SQL {
  return sql`exists (select 1 from shop_orders where id = ${orderId})`;
}

export function insertOrderItemSql(orderId: string, i: Omit<OrderItemRow, "order_id" | "rule_id">): SQL {
  return sql`insert into shop_order_items (order_id, entity_id, entity_type, name, price, currency, licence)
    select ${orderId}, ${i.entity_id}, ${i.entity_type}, ${i.name}, ${i.price}, ${i.currency}, ${i.licence}
     where ${orderExistsSql(orderId)}`;
}

/** An audit entry written only when the batch's guarded order insert happened (a lost race leaves no entry). */
export function auditOrderSql(e: { id: string; actorId: string; action: string; orderId: string; details: Record<string, unknown>; now: number }): SQL {
  return sql`insert into audit_log (id, ctime, actor_id, action, object_type, object_id, details)
    select ${e.id}, ${e.now}, ${e.actorId}, ${e.action}, 'order', ${e.orderId}, ${JSON.stringify(e.details)}
     where ${orderExistsSql(e.orderId)}`;
}

/**
 * Moves an order from one of `from` to `to` (and sets the given columns). The status condition makes concurrent
 * decisions safe: the statements that follow in the same batch check `changes()` through their own guard.
 */
export function setOrderStatusSql(id: string, from: readonly OrderStatus[], to: OrderStatus, set: SQL | null, now: number): SQL {
  return sql`update shop_orders set status = ${to}, mtime = ${now}${set ? sql`, ${set}` : sql``}
    where id = ${id} and status in ${inList(from)}`;
}

export function setCheckoutSql(id: string, sessionId: string, url: string, now: number): SQL {
  return sql`update shop_orders set stripe_session_id = ${sessionId}, checkout_url = ${url}, mtime = ${now} where id = ${id}`;
}

/**
 * The access rule an item's purchase grants (read + download for the buyer), inserted only while the order is in
 * `status` (what the batch's status change just set): a batch that lost a race to another decision grants nothing.
 */
export function grantRuleSql(r: {
  ruleId: string;
  orderId: string;
  status: OrderStatus;
  buyerId: string;
  entityId: string;
  entityType: string;
  acl: number;
  by: string;
  now: number;
}): SQL {
  return sql`insert into access_rules (id, subj_id, subj_type, obj_id, obj_type, acl, ctime, created_by)
    select ${r.ruleId}, ${r.buyerId}, 'user', ${r.entityId}, ${r.entityType}, ${r.acl}, ${r.now}, ${r.by}
     where exists (select 1 from shop_orders where id = ${r.orderId} and status = ${r.status} and mtime = ${r.now})
       and not exists (select 1 from shop_order_items where order_id = ${r.orderId} and entity_id = ${r.entityId} and rule_id is not null)`;
}

/**
 * Links the item to the rule its settlement granted. Two settlements of one order in the same millisecond (two
 * approvals, an approval and the webhook) both pass the status-and-mtime guard; the item's own link decides: the
 * first batch links its rule, the second grants and links nothing, so a refund always finds every rule it must end.
 */
export function setItemRuleSql(orderId: string, entityId: string, ruleId: string, now: number): SQL {
  return sql`update shop_order_items set rule_id = ${ruleId}
    where order_id = ${orderId} and entity_id = ${entityId} and rule_id is null
      and exists (select 1 from access_rules where id = ${ruleId} and ctime = ${now})`;
}

/** Deletes the rules an order's items granted (refund), only if the batch's status change to `status` happened. */
export function revokeRulesSql(orderId: string, status: OrderStatus, now: number): SQL {
  return sql`delete from access_rules where id in (select rule_id from shop_order_items where order_id = ${orderId} and rule_id is not null)
    and exists (select 1 from shop_orders where id = ${orderId} and status = ${status} and mtime = ${now})`;
}

export function clearItemRulesSql(orderId: string, status: OrderStatus, now: number): SQL {
  return sql`update shop_order_items set rule_id = null where order_id = ${orderId}
    and exists (select 1 from shop_orders where id = ${orderId} and status = ${status} and mtime = ${now})`;
}

/** Records a webhook event; `do nothing` on a redelivery, so `changes()` tells the first delivery apart. */
export function recordEventSql(id: string, type: string, now: number): SQL {
  return sql`insert into shop_webhook_events (id, type, ctime) values (${id}, ${type}, ${now}) on conflict (id) do nothing`;
}

export async function eventSeen(db: Database, id: string): Promise<boolean> {
  return Boolean(await db.get(sql`select 1 as x from shop_webhook_events where id = ${id}`));
}
