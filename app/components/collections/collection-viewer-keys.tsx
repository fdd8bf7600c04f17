import { Link, useNavigate } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ru } from "../../i18n/ru";
import { collectionItems } from "../../lib/collections-api";
import { isTypingTarget, overlayOpen } from "../../lib/keyboard";
import { Icon } from "../icons";

/** Items read per page while looking for the open file, and pages at most (the first 10,000 items). */
const PAGE = 500;
const MAX_PAGES = 20;

interface Place {
  prev: string | null;
  next: string | null;
  index: number;
  total: number;
}

/** Where a file sits among the collection's items the caller may read (collection order), or index -1. */
function useCollectionPlace(collectionId: string, assetId: string): Place {
  const [place, setPlace] = useState<Place>({ prev: null, next: null, index: -1, total: 0 });
  useEffect(() => {
    let alive = true;
    setPlace({ prev: null, next: null, index: -1, total: 0 });
    (async () => {
      let before: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const { items, total } = await collectionItems(collectionId, page * PAGE, PAGE);
        const at = items.findIndex((m) => m.asset_id === assetId);
        if (at >= 0) {
          let next = items[at + 1]?.asset_id ?? null;
          if (!next && (page + 1) * PAGE < total) next = (await collectionItems(collectionId, (page + 1) * PAGE, 1)).items[0]?.asset_id ?? null;
          if (alive) setPlace({ prev: items[at - 1]?.asset_id ?? before, next, index: page * PAGE + at, total });
          return;
        }
        if (items.length < PAGE) return;
        before = items[items.length - 1].asset_id;
      }
    })().catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [collectionId, assetId]);
  return place;
}

function mediaTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.closest('video, audio, [role="slider"], .player') != null;
}

/**
 * The viewer opened from a collection: ←/→ and the buttons step through the collection's items the caller may read,
 * in collection order; Esc goes back to the collection. Like a folder's ViewerKeys, keys are left alone while typing,
 * inside a player, or while a dialog or menu is open.
 */
export function CollectionViewerKeys({ collectionId, assetId, back }: { collectionId: string; assetId: string; back: string }) {
  const navigate = useNavigate();
  const { prev, next, index, total } = useCollectionPlace(collectionId, assetId);
  const hrefOf = (id: string) => `/asset/${id}?collection=${collectionId}`;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      if (isTypingTarget(e.target) || mediaTarget(e.target) || overlayOpen()) return;
      if (e.key === "ArrowLeft" && prev) navigate(hrefOf(prev));
      else if (e.key === "ArrowRight" && next) navigate(hrefOf(next));
      else if (e.key === "Escape") navigate(back);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });

  if (index < 0) return null;
  return (
    <nav className="viewer-nav" aria-label={ru.rights.fileOf(index + 1, total)} data-testid="collection-viewer-nav">
      {prev ? (
        <Link className="icon-btn" to={hrefOf(prev)} title={ru.rights.previousFile} aria-label={ru.rights.previousFile} rel="prev">
          <Icon name="prev" size={16} />
        </Link>
      ) : (
        <span className="icon-btn is-refused" aria-hidden="true">
          <Icon name="prev" size={16} />
        </span>
      )}
      <span className="muted viewer-nav-count">{ru.rights.fileOf(index + 1, total)}</span>
      {next ? (
        <Link className="icon-btn" to={hrefOf(next)} title={ru.rights.nextFile} aria-label={ru.rights.nextFile} rel="next">
          <Icon name="chevron" size={16} />
        </Link>
      ) : (
        <span className="icon-btn is-refused" aria-hidden="true">
          <Icon name="chevron" size={16} />
        </span>
      )}
    </nav>
  );
}
