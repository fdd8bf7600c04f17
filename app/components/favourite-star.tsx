import { ru } from "../i18n/ru";
import { useFavourite } from "../lib/favourites";
import { Icon } from "./icons";

/** The star that adds a folder or file to «Избранное» or takes it out (a toggle button, pressed when starred). */
export function FavouriteStar({
  id,
  type,
  name,
  className = "",
  tabIndex,
}: {
  id: string;
  type: "group" | "asset";
  name: string;
  className?: string;
  /** -1 on a tile: the grid has one tab stop (roving tabindex) */
  tabIndex?: number;
}) {
  const [starred, toggle] = useFavourite({ id, type, name });
  const label = starred ? ru.favourites.unstar(name) : ru.favourites.star(name);
  return (
    <button
      type="button"
      className={`icon-btn fav-star${starred ? " on" : ""} ${className}`}
      aria-pressed={starred}
      tabIndex={tabIndex}
      aria-label={label}
      title={label}
      data-testid="favourite-star"
      onClick={(e) => {
        // On a tile the star must not open the file or select the tile.
        e.stopPropagation();
        e.preventDefault();
        toggle();
      }}
    >
      <Icon name="star" />
    </button>
  );
}
