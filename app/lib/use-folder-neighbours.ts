import { useEffect, useState } from "react";
import { fetchMembers, type SortKey, type SortOrder } from "./library-api";

/** Pages of files read at most while looking for the open file (a folder of 2,000 files). */
const MAX_PAGES = 10;
const PAGE = 200;

export interface FolderNeighbours {
  previous: string | null;
  next: string | null;
}

/** The folder view's sort, as it remembered it (see the `mamSort` / `mamOrder` state of the folder screen). */
function folderSort(): { sort: SortKey; order: SortOrder } {
  const sort = localStorage.getItem("mamSort");
  const order = localStorage.getItem("mamOrder");
  return {
    sort: sort === "mtime" || sort === "size" ? sort : "name",
    order: order === "desc" ? "desc" : "asc",
  };
}

/** Swipes need a finger: a mouse-only screen never asks for the neighbours. */
const TOUCH_QUERY = "(any-pointer: coarse)";

/**
 * The files just before and after an asset in its folder, in the order the folder view shows them, so the viewer can
 * step through the folder (swipes on a touch screen). Sub-folders are skipped; outside a folder there are no
 * neighbours. Looked up only once `ready` (the asset itself has loaded: its own requests go first) and only on a
 * touch screen.
 */
export function useFolderNeighbours(groupId: string | undefined, assetId: string, ready: boolean): FolderNeighbours {
  const [neighbours, setNeighbours] = useState<FolderNeighbours>({ previous: null, next: null });
  useEffect(() => {
    setNeighbours({ previous: null, next: null });
    if (!groupId || !ready || !window.matchMedia(TOUCH_QUERY).matches) return;
    const controller = new AbortController();
    (async () => {
      const { sort, order } = folderSort();
      let previous: string | null = null;
      let after: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const { items, next } = await fetchMembers(groupId, { type: "asset", sort, order, take: PAGE, after }, controller.signal);
        const at = items.findIndex((m) => m.el_id === assetId);
        if (at >= 0) {
          let following = items[at + 1]?.el_id ?? null;
          if (!following && next) {
            const more = await fetchMembers(groupId, { type: "asset", sort, order, take: 1, after: next }, controller.signal);
            following = more.items[0]?.el_id ?? null;
          }
          if (!controller.signal.aborted) setNeighbours({ previous: items[at - 1]?.el_id ?? previous, next: following });
          return;
        }
        if (!next) return;
        previous = items[items.length - 1]?.el_id ?? previous;
        after = next;
      }
    })().catch(() => undefined);
    return () => controller.abort();
  }, [groupId, assetId, ready]);
  return neighbours;
}
