import { Link, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Icon } from "../components/icons";
import { ShopItemMedia } from "../components/shop/shop-item-media";
import { ru } from "../i18n/ru";
import { addToBasket, fetchCatalog, type CatalogItem } from "../lib/shop-api";
import { useShop } from "../lib/shop-context";

const t = ru.shop;
const PAGE = 24;

type State = { kind: "loading" } | { kind: "done"; items: CatalogItem[]; total: number; currencies: string[] } | { kind: "error" };

/** /shop: the catalogue grid with search, type, currency and sort filters kept in the URL, and «В корзину». */
export default function ShopCatalogRoute() {
  const { basket, setBasket } = useShop();
  const [params, setParams] = useSearchParams();
  const q = params.get("q") ?? "";
  const type = params.get("type") ?? "";
  const currency = params.get("currency") ?? "";
  const sort = params.get("sort") ?? "new";
  const skip = Math.max(0, Number(params.get("skip")) || 0);
  const [draft, setDraft] = useState(q);
  const [state, setState] = useState<State>({ kind: "loading" });
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => setDraft(q), [q]);
  useEffect(() => {
    const controller = new AbortController();
    fetchCatalog(
      { q: q || undefined, type: type || undefined, currency: currency || undefined, sort, skip, take: PAGE },
      controller.signal,
    ).then(
      (answer) => setState({ kind: "done", ...answer }),
      () => !controller.signal.aborted && setState({ kind: "error" }),
    );
    return () => controller.abort();
  }, [q, type, currency, sort, skip]);

  function update(changes: Record<string, string | null>) {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) v ? next.set(k, v) : next.delete(k);
    if (!("skip" in changes)) next.delete("skip");
    setParams(next, { replace: true });
  }

  const inBasket = new Set(basket?.items.map((i) => i.entity_id));
  async function add(item: CatalogItem) {
    setBusy(item.entity_id);
    try {
      setBasket(await addToBasket(item.entity_id));
    } catch {
      // the toast says why
    } finally {
      setBusy(null);
    }
  }

  const filtered = Boolean(q || type || currency);
  return (
    <section className="shop-catalog">
      <form
        className="shop-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          update({ q: draft.trim() || null });
        }}
      >
        <input
          className="input shop-search"
          type="search"
          value={draft}
          placeholder={t.searchPlaceholder}
          aria-label={t.searchPlaceholder}
          onChange={(e) => setDraft(e.target.value)}
        />
        <div className="segmented" role="group" aria-label={t.allTypes}>
          {[
            ["", t.allTypes],
            ["asset", t.typeAsset],
            ["group", t.typeGroup],
          ].map(([value, label]) => (
            <button
              key={value}
              type="button"
              className={`btn btn-ghost${type === value ? " active" : ""}`}
              aria-pressed={type === value}
              onClick={() => update({ type: value || null })}
            >
              {label}
            </button>
          ))}
        </div>
        <select
          className="input select"
          value={currency}
          aria-label={t.allCurrencies}
          onChange={(e) => update({ currency: e.target.value || null })}
        >
          <option value="">{t.allCurrencies}</option>
          {(state.kind === "done" ? state.currencies : []).map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <select
          className="input select"
          value={sort}
          aria-label={t.sort}
          onChange={(e) => update({ sort: e.target.value === "new" ? null : e.target.value })}
        >
          {Object.entries(t.sorts).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </form>

      {state.kind === "loading" && <p className="muted">{ru.common.loading}</p>}
      {state.kind === "done" && state.total === 0 && (
        <div className="panel empty" data-testid="shop-empty">
          <span className="empty-icon">
            <Icon name="shop" size={26} />
          </span>
          <div className="empty-title">{filtered ? t.nothingFound : t.empty}</div>
          <div>{filtered ? t.nothingFoundHint : t.emptyHint}</div>
        </div>
      )}
      {state.kind === "done" && state.total > 0 && (
        <>
          <p className="muted shop-found">{t.found(state.total)}</p>
          <div className="shop-grid" data-testid="shop-grid">
            {state.items.map((item) => (
              <article key={item.entity_id} className="shop-card" data-testid="shop-card">
                <div className="shop-media">
                  <ShopItemMedia url={item.preview_url} type={item.entity_type} mimetype={item.mimetype} name={item.name} />
                  {item.entity_type === "group" && <span className="chip shop-kind">{t.folder}</span>}
                </div>
                <div className="shop-card-body">
                  <h3 className="shop-name" title={item.name}>
                    {item.name}
                  </h3>
                  <p className="shop-licence" title={item.licence}>
                    <span className="muted">{t.licence}: </span>
                    {item.licence}
                  </p>
                </div>
                <div className="shop-card-foot">
                  <span className="shop-price num">{item.price_text}</span>
                  {item.owned ? (
                    <Link className="btn" to="/shop/orders">
                      {t.owned}
                    </Link>
                  ) : inBasket.has(item.entity_id) || item.in_basket ? (
                    <Link className="btn" to="/shop/basket">
                      {t.inBasket}
                    </Link>
                  ) : (
                    <button type="button" className="btn btn-primary" disabled={busy === item.entity_id} onClick={() => void add(item)}>
                      <Icon name="shop" size={16} />
                      {t.toBasket}
                    </button>
                  )}
                </div>
              </article>
            ))}
          </div>
          {state.total > PAGE && (
            <div className="search-pager">
              <button
                type="button"
                className="btn"
                disabled={skip === 0}
                onClick={() => update({ skip: String(Math.max(0, skip - PAGE)) })}
              >
                {ru.search.prev}
              </button>
              <span className="muted">{ru.search.page(Math.floor(skip / PAGE) + 1, Math.ceil(state.total / PAGE), true)}</span>
              <button
                type="button"
                className="btn"
                disabled={skip + PAGE >= state.total}
                onClick={() => update({ skip: String(skip + PAGE) })}
              >
                {ru.search.next}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
