import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { Icon, type IconName } from "./icons";

export interface MenuItem {
  key: string;
  label: string;
  icon?: IconName;
  /** why the caller may not do this (shown disabled, the reason as tooltip); null or absent: allowed */
  refused?: string | null;
  danger?: boolean;
  onSelect: () => void;
}

export interface MenuAt {
  x: number;
  y: number;
  label: string;
  items: MenuItem[];
}

/** Margin kept between the menu and the window's edges. */
const EDGE = 8;

/**
 * The right-click / long-press menu of a file or folder: the same actions as its toolbar, refused ones disabled with
 * their reason. Opens at the pointer, kept inside the window; Esc, a click outside, scrolling or a choice close it;
 * ↑/↓ move between items, Enter chooses.
 */
export function ContextMenu({ menu, onClose }: { menu: MenuAt; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [pos, setPos] = useState({ left: menu.x, top: menu.y });

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const { width, height } = el.getBoundingClientRect();
    setPos({
      left: Math.max(EDGE, Math.min(menu.x, window.innerWidth - width - EDGE)),
      top: Math.max(EDGE, Math.min(menu.y, window.innerHeight - height - EDGE)),
    });
    el.querySelector<HTMLButtonElement>('[role="menuitem"]:not([aria-disabled])')?.focus({ preventScroll: true });
  }, [menu]);

  useEffect(() => {
    const away = (e: Event) => {
      if (ref.current && e.target instanceof Node && ref.current.contains(e.target)) return;
      onClose();
    };
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }
    };
    // Resize and scroll events can arrive a frame after what caused them (a phone's address bar, a restored scroll
    // position on a busy page): only a change after the menu opened closes it.
    const opened = { width: window.innerWidth, height: window.innerHeight, x: window.scrollX, y: window.scrollY };
    const resized = () => {
      if (window.innerWidth !== opened.width || window.innerHeight !== opened.height) onClose();
    };
    const scrolled = (e: Event) => {
      const page = e.target === document || e.target === document.documentElement;
      if (!page || window.scrollX !== opened.x || window.scrollY !== opened.y) onClose();
    };
    document.addEventListener("pointerdown", away, true);
    document.addEventListener("keydown", key, true);
    window.addEventListener("blur", onClose);
    window.addEventListener("resize", resized);
    document.addEventListener("scroll", scrolled, true);
    return () => {
      document.removeEventListener("pointerdown", away, true);
      document.removeEventListener("keydown", key, true);
      window.removeEventListener("blur", onClose);
      window.removeEventListener("resize", resized);
      document.removeEventListener("scroll", scrolled, true);
    };
  }, [onClose]);

  const step = (e: React.KeyboardEvent, by: number) => {
    e.preventDefault();
    const items = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    items[(at + by + items.length) % items.length]?.focus();
  };

  return (
    <div
      ref={ref}
      className="context-menu"
      role="menu"
      aria-label={menu.label}
      style={{ left: pos.left, top: pos.top }}
      onContextMenu={(e) => e.preventDefault()}
      onKeyDown={(e) => {
        if (e.key === "ArrowDown") step(e, 1);
        else if (e.key === "ArrowUp") step(e, -1);
        else if (e.key === "Tab") onClose();
      }}
    >
      {menu.items.map((item) => (
        <button
          key={item.key}
          type="button"
          role="menuitem"
          className={`context-item${item.danger ? " danger" : ""}`}
          aria-disabled={item.refused ? true : undefined}
          title={item.refused ?? undefined}
          onClick={() => {
            if (item.refused) return;
            onClose();
            item.onSelect();
          }}
        >
          {item.icon && <Icon name={item.icon} size={16} />}
          <span>{item.label}</span>
        </button>
      ))}
    </div>
  );
}

/** How long a finger rests on an item before its menu opens (iOS Safari sends no contextmenu event). */
const LONG_PRESS_MS = 550;
/** A finger that travels further than this is scrolling, not pressing. */
const LONG_PRESS_SLOP = 10;

/**
 * The press in progress. One finger presses one item at a time, and keeping this outside the handlers lets a
 * re-render between touchstart and touchend (new handler closures) still cancel the timer.
 */
const press: { timer: ReturnType<typeof setTimeout> | null; x: number; y: number; fired: boolean } = {
  timer: null,
  x: 0,
  y: 0,
  fired: false,
};

function cancelPress() {
  if (press.timer) clearTimeout(press.timer);
  press.timer = null;
}

/**
 * Touch handlers that call `open` at the finger after a long press; the click that ends the press is swallowed so
 * the item is not opened as well. Browsers that send contextmenu on a long press (Android) reach the same `open`.
 */
export function longPress(open: (x: number, y: number) => void) {
  return {
    onTouchStart: (e: React.TouchEvent) => {
      cancelPress();
      const t = e.touches[0];
      if (!t || e.touches.length > 1) return;
      press.fired = false;
      press.x = t.clientX;
      press.y = t.clientY;
      press.timer = setTimeout(() => {
        press.timer = null;
        press.fired = true;
        open(press.x, press.y);
      }, LONG_PRESS_MS);
    },
    onTouchMove: (e: React.TouchEvent) => {
      const t = e.touches[0];
      if (t && Math.hypot(t.clientX - press.x, t.clientY - press.y) > LONG_PRESS_SLOP) cancelPress();
    },
    onTouchEnd: (e: React.TouchEvent) => {
      cancelPress();
      if (press.fired) {
        press.fired = false;
        e.preventDefault();
      }
    },
    onTouchCancel: cancelPress,
  };
}
