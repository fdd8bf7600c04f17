import { useLocation, useNavigate, useSearchParams } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import { ru } from "../../i18n/ru";
import { suggest, type Suggestion } from "../../lib/search-api";
import { Icon } from "../icons";

/** Pause after the last keystroke before asking for suggestions. */
const DEBOUNCE_MS = 150;

/**
 * The top bar's search box: suggestions (names, tags, field values) as you type, ↑/↓ to move, Enter to search
 * (what was typed, or the highlighted tag or value) or to open the highlighted file or folder; the list closes on Enter on /search?q=…, Escape to close. On /search it is the screen's
 * query box: it shows the query of the URL and a new query keeps the screen's filters (e.g. "search in this folder").
 */
export function SearchBox() {
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const onSearch = location.pathname === "/search";
  const urlQuery = onSearch ? params.get("q") ?? "" : null;
  const [text, setText] = useState(params.get("q") ?? "");
  const input = useRef<HTMLInputElement>(null);
  const [items, setItems] = useState<Suggestion[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const listId = useId();
  const typed = useRef(false);
  /** bumped when a search or a suggestion is chosen: a suggestion request still under way must not reopen the list */
  const asked = useRef(0);

  // The screen's query changed (a link, back/forward): show it; an empty /search (e.g. "search in this folder")
  // waits for typing here.
  useEffect(() => {
    if (urlQuery === null) return;
    typed.current = false;
    setText(urlQuery);
    setOpen(false);
    if (!urlQuery) input.current?.focus();
  }, [urlQuery]);

  useEffect(() => {
    if (!typed.current) return;
    const q = text.trim();
    if (!q) {
      setItems([]);
      return;
    }
    const controller = new AbortController();
    const generation = asked.current;
    const timer = setTimeout(() => {
      suggest(text, controller.signal).then(
        (list) => {
          if (generation !== asked.current || !typed.current) return;
          setItems(list);
          setActive(-1);
          setOpen(list.length > 0);
        },
        () => undefined,
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [text]);

  /** Closes the list for good: until the next keystroke nothing reopens it over the results. */
  function settle() {
    asked.current += 1;
    typed.current = false;
    setOpen(false);
    setActive(-1);
    setItems([]);
  }

  /** A file or folder suggestion opens that file or folder; a tag or field value searches for it. */
  function choose(s: Suggestion) {
    if (s.kind === "name" && s.id && s.type) {
      settle();
      setText(s.text);
      navigate(s.type === "group" ? `/mam/${s.id}` : `/asset/${s.id}`);
    } else go(s.text);
  }

  function go(q: string) {
    const value = q.trim();
    if (!value) return;
    settle();
    setText(value);
    const next = new URLSearchParams(onSearch ? params : undefined);
    for (const key of ["skip", "tab"]) next.delete(key);
    next.set("q", value);
    navigate(`/search?${next}`);
  }

  function onKeyDown(e: React.KeyboardEvent<HTMLInputElement>) {
    if (e.key === "ArrowDown" && items.length) {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (i + 1) % items.length);
    } else if (e.key === "ArrowUp" && items.length) {
      e.preventDefault();
      setActive((i) => (i <= 0 ? items.length - 1 : i - 1));
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (open && active >= 0 && items[active]) choose(items[active]);
      else go(text);
    } else if (e.key === "Escape" && open) {
      // Closes the list only (a search input would also clear its text).
      e.preventDefault();
      setOpen(false);
    }
  }

  return (
    <div className="search-box">
      <Icon name="search" size={16} />
      <input
        ref={input}
        className="input"
        type="search"
        role="combobox"
        aria-label={ru.search.boxLabel}
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
        aria-autocomplete="list"
        placeholder={ru.search.placeholder}
        value={text}
        maxLength={2000}
        onChange={(e) => {
          typed.current = true;
          setText(e.target.value);
        }}
        onKeyDown={onKeyDown}
        onFocus={() => items.length > 0 && setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
      />
      {open && (
        <ul className="search-suggestions" role="listbox" id={listId} aria-label={ru.search.suggestions}>
          {items.map((s, i) => (
            <li
              key={`${s.kind}:${s.text}`}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(s);
              }}
            >
              <Icon name={s.kind === "tag" ? "tag" : s.type === "group" ? "folder" : s.kind === "field" ? "docs" : "other"} size={14} />
              <span className="search-suggestion-text">{s.text}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
