/**
 * Selection and keyboard movement in a folder's grid or list, as pure functions over the ordered ids on screen
 * (the route keeps the state; these decide what a click or a key does to it).
 */

/**
 * Shift-click: every item between the anchor (the last plainly clicked item) and the clicked one, inclusive, is added
 * to the selection. Without an anchor still on screen, only the clicked item is added.
 */
export function selectRange(order: readonly string[], selected: ReadonlySet<string>, anchor: string | null, target: string): Set<string> {
  const next = new Set(selected);
  const to = order.indexOf(target);
  if (to < 0) return next;
  const from = anchor == null ? -1 : order.indexOf(anchor);
  if (from < 0) return next.add(target);
  const [lo, hi] = from < to ? [from, to] : [to, from];
  for (let i = lo; i <= hi; i += 1) next.add(order[i]);
  return next;
}

/** A plain click on the checkbox: the item goes in or out of the selection. */
export function toggleOne(selected: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(selected);
  if (!next.delete(id)) next.add(id);
  return next;
}

export type MoveKey = "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown" | "Home" | "End" | "PageUp" | "PageDown";

/**
 * The index focus moves to in a grid of `columns` columns holding `count` items (a list is one column); PageUp/PageDown
 * move by `page` items (a screenful). Moves stop at the edges instead of wrapping; from nothing focused (-1) any key
 * goes to the first item.
 */
export function moveFocus(index: number, key: MoveKey, columns: number, count: number, page = columns): number {
  if (count === 0) return -1;
  if (index < 0) return 0;
  const cols = Math.max(1, columns);
  const last = count - 1;
  switch (key) {
    case "ArrowLeft":
      return Math.max(0, index - 1);
    case "ArrowRight":
      return Math.min(last, index + 1);
    case "ArrowUp":
      return index - cols >= 0 ? index - cols : index;
    case "ArrowDown":
      return index + cols <= last ? index + cols : index;
    case "Home":
      return 0;
    case "End":
      return last;
    // A screenful of whole rows, keeping the column; stops at the first or last row.
    case "PageUp":
      return index - pageStep(page, cols) >= 0 ? index - pageStep(page, cols) : index % cols;
    case "PageDown": {
      const to = index + pageStep(page, cols);
      if (to <= last) return to;
      const lastRowStart = last - (last % cols);
      return Math.min(last, lastRowStart + (index % cols));
    }
  }
}

/** `page` items rounded down to whole rows, at least one row. */
const pageStep = (page: number, cols: number) => Math.max(cols, page - (page % cols));

/** The neighbours of a file among the folder's files in screen order (null at either end or when it is not there). */
export function neighbours(order: readonly string[], id: string): { prev: string | null; next: string | null; index: number } {
  const index = order.indexOf(id);
  if (index < 0) return { prev: null, next: null, index };
  return { prev: index > 0 ? order[index - 1] : null, next: index < order.length - 1 ? order[index + 1] : null, index };
}
