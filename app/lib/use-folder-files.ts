import { useEffect, useState } from "react";
import { fetchMembers, type SortKey, type SortOrder } from "./library-api";
import { neighbours } from "./selection";
import { usePersistentState } from "./use-persistent-state";

/** Files asked per page while looking for the open file among its folder's files. */
const PAGE = 200;
/** Pages read at most (folders beyond 2,000 files give no neighbours past that point rather than a long scan). */
const MAX_PAGES = 10;

/**
 * The previous and next file of the open file in its folder, in the order the folder view shows them (its remembered
 * sort): pages of files are read by cursor until the file is found, plus one more when it ends a page.
 */
export function useFolderNeighbours(groupId: string | undefined, assetId: string) {
  const [sort] = usePersistentState<SortKey>("mamSort", "name");
  const [order] = usePersistentState<SortOrder>("mamOrder", "asc");
  const [state, setState] = useState<{ prev: string | null; next: string | null; index: number; total: number | null }>({
    prev: null,
    next: null,
    index: -1,
    total: null,
  });

  useEffect(() => {
    if (!groupId) return;
    const controller = new AbortController();
    (async () => {
      const ids: string[] = [];
      let after: string | null = null;
      let complete = false;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const { items, next } = await fetchMembers(groupId, { type: "asset", sort, order, take: PAGE, after }, controller.signal);
        ids.push(...items.map((m) => m.el_id));
        after = next;
        if (!next) complete = true;
        const at = ids.indexOf(assetId);
        if (complete || (at >= 0 && at < ids.length - 1)) break;
      }
      if (controller.signal.aborted) return;
      setState({ ...neighbours(ids, assetId), total: complete ? ids.length : null });
    })().catch(() => undefined);
    return () => controller.abort();
  }, [groupId, assetId, sort, order]);

  return state;
}
