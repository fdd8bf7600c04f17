import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { ru } from "../i18n/ru";
import { Icon } from "./icons";

/** Set on a toolbar item that does not fit: CSS hides it, and «Ещё» offers it instead. */
const OVERFLOWED = "data-overflowed";

/** One action of the «Ещё» menu: a control of a hidden toolbar item, which the menu works through. */
interface MenuEntry {
  key: string;
  label: string;
  /** the control's own icon (our SVG, copied), or a one-character glyph such as "↑" */
  icon: { svg: string } | { glyph: string } | null;
  role: "menuitem" | "menuitemcheckbox" | "menuitemradio";
  checked?: boolean;
  disabled: boolean;
  /** the heading of a run of options (a select's label) */
  group?: string;
  run: () => void;
}

/** Where toolbars fold into «Ещё» (the phone rules of app.css start at the same width). */
const FOLD_QUERY = "(max-width: 720px)";

const useIsomorphicLayoutEffect = typeof window === "undefined" ? useEffect : useLayoutEffect;

/** An item takes part in the row unless it is out of flow (a dialog a button renders next to itself) or has no box. */
function inFlow(el: HTMLElement): boolean {
  const style = getComputedStyle(el);
  if (style.display === "none" || style.position === "fixed" || style.position === "absolute") return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

/** True when some of the shown items have wrapped onto a second line. */
function wraps(items: HTMLElement[]): boolean {
  const boxes = items.filter((el) => !el.hasAttribute(OVERFLOWED)).map((el) => el.getBoundingClientRect());
  if (boxes.length < 2) return false;
  const firstRowBottom = Math.min(...boxes.map((b) => b.bottom));
  return boxes.some((b) => b.top >= firstRowBottom - 0.5);
}

/**
 * The order in which a row's items give way when it does not fit: lowest priority first, and among equals the last
 * one first (the row keeps its beginning); kept items never.
 */
export function hideOrder<T>(items: { item: T; priority: number; keep: boolean }[]): T[] {
  return items
    .map((entry, index) => ({ ...entry, index }))
    .filter((entry) => !entry.keep)
    .sort((a, b) => a.priority - b.priority || b.index - a.index)
    .map((entry) => entry.item);
}

/**
 * Fits the toolbar on one line on a phone: shows every item, and while the row wraps hides items — lowest
 * `data-overflow-priority` first, then from the end — with «Ещё» shown after the rest. `data-overflow="never"` keeps an
 * item (a label, the main action).
 */
function layOut(bar: HTMLElement, more: HTMLElement, everyWidth: boolean) {
  const children = [...bar.children].filter((el): el is HTMLElement => el instanceof HTMLElement && el !== more);
  for (const el of children) el.removeAttribute(OVERFLOWED);
  more.setAttribute(OVERFLOWED, "");
  // Wider screens keep their wrapping toolbars exactly as they were, unless the toolbar folds at every width.
  if (!everyWidth && !window.matchMedia(FOLD_QUERY).matches) return;
  const row = children.filter(inFlow);
  if (!wraps(row)) return;
  more.removeAttribute(OVERFLOWED);
  const order = hideOrder(row.map((el) => ({ item: el, priority: Number(el.dataset.overflowPriority ?? 0), keep: el.dataset.overflow === "never" })));
  for (const el of order) {
    el.setAttribute(OVERFLOWED, "");
    if (!wraps([...row, more])) break;
  }
}

/** What a control says: its aria-label, else its text, else its title (an icon button's text is a glyph). */
function labelOf(el: HTMLElement): string {
  const text = el.textContent?.trim() ?? "";
  return el.getAttribute("aria-label") || (text.length > 1 ? text : "") || el.title || text;
}

function iconOf(el: HTMLElement): MenuEntry["icon"] {
  const svg = el.querySelector("svg");
  if (svg) return { svg: svg.outerHTML };
  const text = el.textContent?.trim() ?? "";
  return text.length === 1 ? { glyph: text } : null;
}

/** A select's label text (a wrapping label also holds the select, whose options are not part of the name). */
function selectLabel(select: HTMLSelectElement): string {
  const label = select.labels[0];
  if (!label) return "";
  return [...label.childNodes]
    .filter((node) => !node.contains(select))
    .map((node) => node.textContent ?? "")
    .join("")
    .trim();
}

/** A select's new value, told to React the way a user's choice is (React listens to the change event). */
function choose(select: HTMLSelectElement, value: string) {
  Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")?.set?.call(select, value);
  select.dispatchEvent(new Event("change", { bubbles: true }));
}

/** The menu entries of the hidden items: their buttons and links, and a select's options as a run of choices. */
function entriesOf(hidden: HTMLElement[]): MenuEntry[] {
  const entries: MenuEntry[] = [];
  hidden.forEach((item, i) => {
    const controls = item.matches("button, a[href], select")
      ? [item]
      : [...item.querySelectorAll<HTMLElement>("button, a[href], select")];
    controls.forEach((control, j) => {
      if (control instanceof HTMLSelectElement) {
        const group = control.getAttribute("aria-label") || selectLabel(control);
        for (const option of control.options) {
          entries.push({
            key: `${i}.${j}.${option.value}`,
            label: option.text,
            icon: null,
            role: "menuitemradio",
            checked: option.selected,
            disabled: control.disabled || option.disabled,
            group,
            run: () => choose(control, option.value),
          });
        }
        return;
      }
      const pressed = control.getAttribute("aria-pressed");
      entries.push({
        key: `${i}.${j}`,
        label: labelOf(control),
        icon: iconOf(control),
        role: pressed === null ? "menuitem" : "menuitemcheckbox",
        checked: pressed === null ? undefined : pressed === "true",
        disabled: control.matches(":disabled") || control.getAttribute("aria-disabled") === "true",
        run: () => control.click(),
      });
    });
  });
  return entries;
}

function EntryIcon({ icon }: { icon: MenuEntry["icon"] }) {
  if (!icon) return <span className="overflow-icon" aria-hidden="true" />;
  // The SVG is a copy of one of our own icons, read from our own DOM.
  if ("svg" in icon) return <span className="overflow-icon" aria-hidden="true" dangerouslySetInnerHTML={{ __html: icon.svg }} />;
  return (
    <span className="overflow-icon" aria-hidden="true">
      {icon.glyph}
    </span>
  );
}

/**
 * A toolbar that stays on one line on a phone: the items that do not fit move into the «Ещё» menu (a bottom sheet),
 * which works the hidden controls themselves — so every handler, dialog and rights check stays the toolbar's own.
 * Wider screens, and a phone where everything fits, see the plain wrapping toolbar.
 */
export function OverflowToolbar({
  className,
  label,
  children,
  everyWidth = false,
}: {
  className: string;
  label: string;
  children: React.ReactNode;
  /** fold at every width, not only on a phone: the row never wraps (the viewer's header, issue 28) */
  everyWidth?: boolean;
}) {
  const bar = useRef<HTMLDivElement>(null);
  const more = useRef<HTMLDivElement>(null);
  const moreButton = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const [entries, setEntries] = useState<MenuEntry[] | null>(null);
  const menuId = useId();
  // While the menu is open the row stays as it is: laying out would hide «Ещё» for a moment and drop the focus.
  const menuOpen = useRef(false);
  menuOpen.current = entries !== null;

  // Every render can change the items (a selection, a right that arrived), so lay out after each one.
  useIsomorphicLayoutEffect(() => {
    if (bar.current && more.current && !menuOpen.current) layOut(bar.current, more.current, everyWidth);
  });
  useEffect(() => {
    const el = bar.current;
    const moreEl = more.current;
    if (!el || !moreEl) return;
    let frame = 0;
    const again = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => !menuOpen.current && layOut(el, moreEl, everyWidth));
    };
    const resize = new ResizeObserver(again);
    resize.observe(el);
    // A child component that adds or removes its button (rights arriving) does not re-render the toolbar.
    const mutation = new MutationObserver(again);
    mutation.observe(el, { childList: true });
    document.fonts?.ready.then(again, () => undefined);
    return () => {
      cancelAnimationFrame(frame);
      resize.disconnect();
      mutation.disconnect();
    };
  }, [everyWidth]);

  // Open: the first entry takes the focus (arrows move it, Escape gives it back to «Ещё»).
  useEffect(() => {
    if (entries) menu.current?.querySelector<HTMLElement>('[role^="menuitem"]:not(:disabled)')?.focus();
  }, [entries]);

  function open() {
    const hidden = bar.current ? [...bar.current.querySelectorAll<HTMLElement>(`:scope > [${OVERFLOWED}]`)].filter((el) => el !== more.current) : [];
    setEntries(entriesOf(hidden));
  }

  function close(refocus: boolean) {
    setEntries(null);
    if (refocus) moreButton.current?.focus();
  }

  function onMenuKey(event: React.KeyboardEvent) {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]:not(:disabled)') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (index: number) => items[(index + items.length) % items.length]?.focus();
    if (event.key === "Escape") {
      // Only the menu closes: not a dialog or the screen underneath that also listens for Escape.
      event.stopPropagation();
      close(true);
    }
    else if (event.key === "Tab") close(false);
    else if (event.key === "ArrowDown") go(at + 1);
    else if (event.key === "ArrowUp") go(at - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(items.length - 1);
    else return;
    if (event.key !== "Tab") event.preventDefault();
  }

  let lastGroup: string | undefined;
  return (
    <div className={className} role="toolbar" aria-label={label} ref={bar}>
      {children}
      <div className="overflow-more" ref={more} data-overflowed="">
        <button
          type="button"
          className="btn overflow-more-btn"
          ref={moreButton}
          aria-haspopup="menu"
          aria-expanded={entries !== null}
          aria-controls={entries ? menuId : undefined}
          onClick={() => (entries ? close(false) : open())}
        >
          <Icon name="more" size={16} />
          {ru.common.more}
        </button>
        {entries && (
          <>
            <div className="overflow-backdrop" aria-hidden="true" onClick={() => close(false)} />
            <div
              className="overflow-menu"
              role="menu"
              id={menuId}
              aria-label={ru.common.moreActions}
              ref={menu}
              onKeyDown={onMenuKey}
            >
              {entries.map((entry) => {
                const heading = entry.group && entry.group !== lastGroup ? entry.group : null;
                // The first plain action after a run of options is set off from it by a line.
                const afterGroup = !entry.group && lastGroup !== undefined;
                lastGroup = entry.group;
                return (
                  <div key={entry.key} className={`overflow-entry${afterGroup ? " after-group" : ""}`} role="none">
                    {heading && (
                      <div className="overflow-group" role="presentation">
                        {heading}
                      </div>
                    )}
                    <button
                      type="button"
                      role={entry.role}
                      aria-checked={entry.checked}
                      className={`overflow-item${entry.checked ? " checked" : ""}`}
                      disabled={entry.disabled}
                      tabIndex={-1}
                      onClick={() => {
                        close(false);
                        entry.run();
                      }}
                    >
                      <EntryIcon icon={entry.icon} />
                      <span className="overflow-label">{entry.label}</span>
                      {entry.checked && <span className="overflow-check" aria-hidden="true">✓</span>}
                    </button>
                  </div>
                );
              })}
            </div>
          </>
        )}
      </div>
    </div>
  );
}
