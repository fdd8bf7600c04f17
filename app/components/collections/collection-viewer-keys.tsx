import { useEffect, useState } from "react";
import { collectionItems } from "../../lib/collections-api";
import { ViewerPlaceNav, type ViewerPlace } from "../viewer-keys";

/** Items read per page while looking for the open file, and pages at most (the first 10,000 items). */
const PAGE = 500;
const MAX_PAGES = 20;

type Place = ViewerPlace & { total: number };

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

/**
 * The viewer opened from a collection: ←/→ and the buttons step through the collection's items the caller may read,
 * in collection order; Esc goes back to the collection (the folder viewer's keys and buttons, ViewerPlaceNav).
 */
export function CollectionViewerKeys({ collectionId, assetId, back }: { collectionId: string; assetId: string; back: string }) {
  return (
    <ViewerPlaceNav
      place={useCollectionPlace(collectionId, assetId)}
      hrefOf={(id) => `/asset/${id}?collection=${collectionId}`}
      back={back}
      testId="collection-viewer-nav"
    />
  );
}
