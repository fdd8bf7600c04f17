import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { fetchListing, saveListing, withdrawListing, type CatalogItem } from "../../lib/shop-api";
import { parsePrice, priceInput } from "../../lib/shop-price";
import { showToast } from "../../lib/toast";
import { useCurrentUser } from "../../lib/use-current-user";
import { useFieldErrors } from "../../lib/use-field-errors";
import { CURRENCIES } from "../../../workers/services/shop/pure";
import { Icon } from "../icons";
import { Modal } from "../modal";

const t = ru.shop;

/**
 * «Продавать»: administrators list a file or folder in the shop, change its price, currency and licence, or take it
 * off sale. Shown to administrators only (the API refuses everyone else, decision 022).
 */
export function SellButton({ entityId, name, className = "btn" }: { entityId: string; name?: string; className?: string }) {
  const user = useCurrentUser();
  const [open, setOpen] = useState(false);
  if (!user?.isAdmin) return null;
  return (
    <>
      <button type="button" className={className} title={t.sell} onClick={() => setOpen(true)}>
        <Icon name="shop" size={16} />
        {t.sell}
      </button>
      {open && <SellDialog entityId={entityId} name={name ?? ""} onClose={() => setOpen(false)} />}
    </>
  );
}

export function SellDialog({ entityId, name, onClose }: { entityId: string; name: string; onClose: () => void }) {
  const [listing, setListing] = useState<CatalogItem | null | undefined>(undefined);
  const [price, setPrice] = useState("");
  const [currency, setCurrency] = useState<string>("RUB");
  const [licence, setLicence] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = useFieldErrors();

  useEffect(() => {
    fetchListing(entityId).then(
      (found) => {
        setListing(found);
        if (!found) return;
        setPrice(priceInput(found.price, found.currency));
        setCurrency(found.currency);
        setLicence(found.licence);
      },
      () => setListing(null),
    );
  }, [entityId]);

  async function save(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (!fields.check(e.currentTarget)) return;
    const minor = parsePrice(price, currency);
    if (minor === null) return setError(t.sellBadPrice);
    setError(null);
    setBusy(true);
    try {
      await saveListing(entityId, { price: minor, currency, licence: licence.trim() });
      showToast({ kind: "info", title: t.sellListed, message: name });
      onClose();
    } catch {
      setBusy(false);
    }
  }

  async function withdraw() {
    setBusy(true);
    try {
      await withdrawListing(entityId);
      showToast({ kind: "info", title: t.sellWithdrawn, message: name });
      onClose();
    } catch {
      setBusy(false);
    }
  }

  return (
    <Modal title={t.sellTitle(name)} onClose={onClose}>
      {listing === undefined ? (
        <p className="muted">{ru.common.loading}</p>
      ) : (
        <form onSubmit={(e) => void save(e)} className="shop-sell-form" noValidate>
          <div className="shop-sell-row">
            <label className="field">
              <span>{t.sellPrice}</span>
              <input
                id="shop-price"
                className="input num"
                inputMode="decimal"
                required
                {...fields.props("shop-price")}
                value={price}
                placeholder="1500,00"
                onChange={(e) => setPrice(e.target.value)}
              />
            </label>
            <label className="field">
              <span>{t.sellCurrency}</span>
              <select className="input select" value={currency} onChange={(e) => setCurrency(e.target.value)}>
                {CURRENCIES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {fields.error("shop-price")}
          {error && <p className="field-error">{error}</p>}
          <label className="field">
            <span>{t.sellLicence}</span>
            <textarea
              id="shop-licence"
              className="input shop-licence-input"
              required
              rows={3}
              maxLength={4000}
              {...fields.props("shop-licence")}
              value={licence}
              placeholder={t.sellLicenceHint}
              onChange={(e) => setLicence(e.target.value)}
            />
            {fields.error("shop-licence")}
          </label>
          <p className="muted shop-sell-note">{t.sellWatermark}</p>
          <div className="modal-actions">
            {listing && (
              <button type="button" className="btn btn-danger-outline" disabled={busy} onClick={() => void withdraw()}>
                {t.sellWithdraw}
              </button>
            )}
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {listing ? t.sellUpdate : t.sellSave}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
