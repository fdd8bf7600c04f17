import { Link } from "@remix-run/react";
import { ru } from "../i18n/ru";
import { useFavourites } from "../lib/favourites";
import { Icon } from "./icons";

/** «Избранное» in the sidebar: the starred folders and files the user may still open, by name. */
export function FavouritesNav({ onNavigate }: { onNavigate: () => void }) {
  const favourites = useFavourites();
  return (
    <nav className="nav fav-nav" aria-label={ru.favourites.title} data-testid="favourites-nav">
      <div className="fav-nav-title">
        <Icon name="star" size={14} />
        {ru.favourites.title}
      </div>
      {favourites.length === 0 ? (
        <p className="fav-nav-empty">{ru.favourites.empty}</p>
      ) : (
        favourites.map((f) => (
          <Link key={f.id} to={f.type === "group" ? `/mam/${f.id}` : `/asset/${f.id}`} className="nav-link fav-link" onClick={onNavigate} title={f.name}>
            <Icon name={f.type === "group" ? "folder" : "other"} />
            <span className="fav-name">{f.name}</span>
          </Link>
        ))
      )}
    </nav>
  );
}
