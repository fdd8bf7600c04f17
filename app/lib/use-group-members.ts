import { useCallback, useEffect, useRef, useState } from "react";
import { fetchMembers, type GroupMember, type SortKey, type SortOrder } from "./library-api";

export const MEMBERS_PAGE_SIZE = 50;

interface State {
  items: GroupMember[];
  /** which kind of member the next page lists: folders first, then files */
  phase: "group" | "asset" | "done";
  cursor: string | null;
  loading: boolean;
}

const initial: State = { items: [], phase: "group", cursor: null, loading: false };

function sortValue(m: GroupMember, sort: SortKey): string | number {
  if (sort === "name") return m.el_info.name.toLowerCase();
  if (sort === "mtime") return Date.parse(m.el_info.mtime ?? "") || 0;
  return m.el_type === "asset" ? (m.el_info.var_size ?? 0) : 0;
}

/** The server's listing order: folders before files, then the sort key, then the id. */
function sortsBefore(a: GroupMember, b: GroupMember, sort: SortKey, order: SortOrder): boolean {
  if (a.el_type !== b.el_type) return a.el_type === "group";
  const [x, y] = [sortValue(a, sort), sortValue(b, sort)];
  const cmp = x < y ? -1 : x > y ? 1 : a.el_id < b.el_id ? -1 : 1;
  return order === "asc" ? cmp < 0 : cmp > 0;
}

/**
 * Members of a group, folders first and then files, loaded 50 at a time with the server's key-based cursor.
 * `loadMore` is what the infinite scroll calls; `reload` starts over (after a change); `remove`, `rename` and
 * `upsert` (a finished upload) keep the list in step with local actions without a round trip.
 */
export function useGroupMembers(groupId: string, sort: SortKey, order: SortOrder, review: string | null = null) {
  const [state, setStateRaw] = useState<State>(initial);
  // The latest state for async code (an updater function must stay pure).
  const latest = useRef<State>(initial);
  const setState = useCallback((update: (s: State) => State) => {
    setStateRaw((s) => {
      const next = update(s);
      latest.current = next;
      return next;
    });
  }, []);
  const busy = useRef(false);
  const generation = useRef(0);

  const loadMore = useCallback(async () => {
    if (busy.current) return;
    const gen = generation.current;
    const snapshot = latest.current;
    if (snapshot.phase === "done") return;
    busy.current = true;
    setState((s) => ({ ...s, loading: true }));
    try {
      const page = await fetchMembers(groupId, { type: snapshot.phase, sort, order, take: MEMBERS_PAGE_SIZE, after: snapshot.cursor, review });
      if (gen !== generation.current) return;
      setState((s) => {
        const seen = new Set(s.items.map((i) => i.el_id));
        const items = [...s.items, ...page.items.filter((i) => !seen.has(i.el_id))];
        if (page.next) return { items, phase: s.phase, cursor: page.next, loading: false };
        return { items, phase: s.phase === "group" ? "asset" : "done", cursor: null, loading: false };
      });
    } catch {
      if (gen === generation.current) setState((s) => ({ ...s, phase: "done", loading: false }));
    } finally {
      busy.current = false;
      if (gen === generation.current) setState((s) => ({ ...s, loading: false }));
    }
  }, [groupId, sort, order, review, setState]);

  const reload = useCallback(() => {
    generation.current += 1;
    busy.current = false;
    latest.current = initial;
    setStateRaw(initial);
  }, []);

  useEffect(() => {
    reload();
  }, [reload, groupId, sort, order, review]);

  // Keep loading while the list is short of a screenful (the phase switch from folders to files needs a second call).
  useEffect(() => {
    if (state.phase !== "done" && !state.loading && !busy.current && state.items.length < MEMBERS_PAGE_SIZE) void loadMore();
  }, [state.phase, state.loading, state.items.length, loadMore]);

  const remove = useCallback(
    (ids: string[]) => {
      const gone = new Set(ids);
      setState((s) => ({ ...s, items: s.items.filter((i) => !gone.has(i.el_id)) }));
    },
    [setState],
  );

  const rename = useCallback(
    (id: string, name: string) => {
      setState((s) => ({
        ...s,
        items: s.items.map((i) => (i.el_id === id ? ({ ...i, el_info: { ...i.el_info, name } } as GroupMember) : i)),
      }));
    },
    [setState],
  );

  /** Puts members in their sorted places (replacing those already listed), in one render however many. */
  const upsert = useCallback(
    (...members: GroupMember[]) => {
      setState((s) => {
        let items = s.items;
        for (const member of members) {
          const index = items.findIndex((i) => i.el_id === member.el_id);
          if (index >= 0) {
            items = items.map((i, n) => (n === index ? member : i));
            continue;
          }
          const at = items.findIndex((i) => sortsBefore(member, i, sort, order));
          // Past the last loaded member of an unfinished listing: the next page brings it.
          if (at === -1) items = s.phase === "done" ? [...items, member] : items;
          else items = [...items.slice(0, at), member, ...items.slice(at)];
        }
        return items === s.items ? s : { ...s, items };
      });
    },
    [setState, sort, order],
  );

  return { items: state.items, complete: state.phase === "done", loading: state.loading, loadMore, reload, remove, rename, upsert };
}
