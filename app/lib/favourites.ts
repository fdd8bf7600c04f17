import { useCallback, useSyncExternalStore } from "react";
import { apiRequest } from "./api-client";

/**
 * The user's favourite folders and files, kept in the server-side `bookmarks` document (SPEC §7 Users): one key per
 * starred id, `{ type, at }`, `null` to unstar. The server answers only those the user may still read, with their
 * current names (favourites of deleted or hidden things are dropped there), so the list here never shows them.
 */

export interface Favourite {
  id: string;
  type: "group" | "asset";
  name: string;
  at: number;
}

const ID = /^[0-9a-f]{32}$/;
let list: Favourite[] = [];
let loading: Promise<void> | null = null;
const listeners = new Set<() => void>();

function setFrom(doc: Record<string, unknown>) {
  list = Object.entries(doc)
    .flatMap(([id, value]) => {
      const v = value as Partial<Favourite> | null;
      if (!ID.test(id) || !v || (v.type !== "group" && v.type !== "asset") || typeof v.name !== "string") return [];
      return [{ id, type: v.type, name: v.name, at: typeof v.at === "number" ? v.at : 0 }];
    })
    .sort((a, b) => a.name.localeCompare(b.name, "ru"));
  for (const listener of listeners) listener();
}

/** Fetches the favourites (once per page unless `force`). */
export function loadFavourites(force = false): Promise<void> {
  if (!loading || force) {
    loading = apiRequest<Record<string, unknown>>("/api/user/bookmarks", { toast: false }).then(setFrom, () => {
      loading = null;
    });
  }
  return loading;
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  void loadFavourites();
  return () => listeners.delete(listener);
}

const EMPTY: Favourite[] = [];

/** The favourites, sorted by name; re-renders when they change anywhere on the page. */
export function useFavourites(): Favourite[] {
  return useSyncExternalStore(
    subscribe,
    () => list,
    () => EMPTY,
  );
}

/** Stars or unstars a folder or file; the list follows the server's answer. */
export async function setFavourite(entity: { id: string; type: "group" | "asset"; name: string }, starred: boolean): Promise<void> {
  // Shown at once; the server's answer then replaces the list.
  const before = list;
  list = starred ? [...list.filter((f) => f.id !== entity.id), { ...entity, at: Date.now() }] : list.filter((f) => f.id !== entity.id);
  for (const listener of listeners) listener();
  try {
    const doc = await apiRequest<Record<string, unknown>>("/api/user/bookmarks", {
      method: "PATCH",
      body: { [entity.id]: starred ? { type: entity.type, at: Date.now() } : null },
    });
    setFrom(doc);
  } catch {
    list = before;
    for (const listener of listeners) listener();
  }
}

/** Whether an id is starred, and the toggle. */
export function useFavourite(entity: { id: string; type: "group" | "asset"; name: string }): [boolean, () => void] {
  const favourites = useFavourites();
  const starred = favourites.some((f) => f.id === entity.id);
  const toggle = useCallback(() => void setFavourite(entity, !starred), [entity, starred]);
  return [starred, toggle];
}
