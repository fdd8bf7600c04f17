import { Link, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { COLLECTIONS_CHANGED, listCollections, type ListedCollection } from "../../lib/collections-api";
import { Icon } from "../icons";
import { Thumbnail } from "../thumbnail";

/** The caller's collections, re-read when they change here (create, add, delete) and on navigation. */
export function useCollections(): ListedCollection[] | null {
  const [items, setItems] = useState<ListedCollection[] | null>(null);
  const location = useLocation();
  useEffect(() => {
    let current = true;
    const load = () => listCollections().then((r) => current && setItems(r.items), () => undefined);
    load();
    window.addEventListener(COLLECTIONS_CHANGED, load);
    return () => {
      current = false;
      window.removeEventListener(COLLECTIONS_CHANGED, load);
    };
  }, [location.pathname]);
  return items;
}

/** The first readable item's thumbnail (the same authorised thumbnail the grids show). */
function Cover({ src }: { src: string | null }) {
  return (
    <span className="coll-cover" aria-hidden="true">
      <Thumbnail type="asset" mime="image/jpeg" preview={src} size={22} />
    </span>
  );
}

function Entry({ c, onNavigate }: { c: ListedCollection; onNavigate: () => void }) {
  return (
    <Link to={`/collections/${c.collection_id}`} className="nav-link coll-link" onClick={onNavigate} title={c.name} data-testid="collection-link">
      <Cover src={c.cover} />
      <span className="fav-name">{c.name}</span>
      <span className="coll-count" aria-label={ru.collections.count(c.count)}>
        {c.count}
      </span>
    </Link>
  );
}

/** «Коллекции» in the sidebar: mine, then those shared with me, each with its cover and the count I may see. */
export function CollectionsNav({ onNavigate }: { onNavigate: () => void }) {
  const items = useCollections();
  const mine = items?.filter((c) => c.role === "owner") ?? [];
  const shared = items?.filter((c) => c.role !== "owner") ?? [];
  return (
    <nav className="nav fav-nav coll-nav" aria-label={ru.collections.title} data-testid="collections-nav">
      <div className="fav-nav-title">
        <Icon name="grid" size={14} />
        {ru.collections.title}
      </div>
      {items && items.length === 0 && <p className="fav-nav-empty">{ru.collections.empty}</p>}
      {mine.length > 0 && <div className="coll-nav-sub">{ru.collections.mine}</div>}
      {mine.map((c) => (
        <Entry key={c.collection_id} c={c} onNavigate={onNavigate} />
      ))}
      {shared.length > 0 && <div className="coll-nav-sub">{ru.collections.shared}</div>}
      {shared.map((c) => (
        <Entry key={c.collection_id} c={c} onNavigate={onNavigate} />
      ))}
    </nav>
  );
}
