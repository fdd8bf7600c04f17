import { useLocation, useNavigate, useSearchParams } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import { ru } from "../../i18n/ru";
import { suggest, type Suggestion } from "../../lib/search-api";
import { Icon } from "../icons";

/** Pause after the last keystroke before asking for suggestions. */
const DEBOUNCE_MS = 150;

/**
 * The top bar's search box: suggestions (names, tags, field values) as you type, ↑/↓ to move, Enter to search
 * (the highlighted suggestion or what was typed) on /search?q=…, Escape to close. On /search it is the screen's
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
    const timer = setTimeout(() => {
      suggest(text, controller.signal).then(
        (list) => {
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

  function go(q: string) {
    const value = q.trim();
    if (!value) return;
    setOpen(false);
    typed.current = false;
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
      go(open && active >= 0 ? items[active].text : text);
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
                go(s.text);
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
