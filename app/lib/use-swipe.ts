import { useEffect, useRef, useState } from "react";

/** How far (px) a finger must travel sideways for a swipe; less is a tap or a wobble. */
const MIN_DISTANCE = 50;
/** A move counts as sideways only when it is this many times wider than tall (otherwise the user is scrolling). */
const HORIZONTAL_RATIO = 1.5;

/** What a finger's move (dx, dy in px) was: a swipe to the left or right, or nothing (a tap, a scroll). */
export function swipeDirection(dx: number, dy: number): "left" | "right" | null {
  if (Math.abs(dx) < MIN_DISTANCE || Math.abs(dx) < Math.abs(dy) * HORIZONTAL_RATIO) return null;
  return dx < 0 ? "left" : "right";
}

export interface SwipeHandlers {
  /** the finger moved to the left: show what comes next */
  onLeft?: () => void;
  /** the finger moved to the right: show what came before */
  onRight?: () => void;
}

/**
 * Horizontal touch swipes on an element. The element follows the finger a little while it moves (so the gesture
 * feels attached) and springs back on release; a mostly vertical move is left to the page's scrolling. Returns a
 * callback ref for the element.
 */
export function useSwipe(handlers: SwipeHandlers): (el: HTMLElement | null) => void {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const latest = useRef(handlers);
  latest.current = handlers;

  useEffect(() => {
    if (!el) return;
    let start: { x: number; y: number } | null = null;
    const settle = () => {
      el.style.transition = "transform 0.18s ease-out";
      el.style.transform = "";
    };
    const onStart = (event: TouchEvent) => {
      const touch = event.touches[0];
      start = event.touches.length === 1 && touch ? { x: touch.clientX, y: touch.clientY } : null;
      el.style.transition = "";
    };
    const onMove = (event: TouchEvent) => {
      const touch = event.touches[0];
      if (!start || !touch) return;
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      el.style.transform = Math.abs(dx) > Math.abs(dy) * HORIZONTAL_RATIO ? `translateX(${Math.round(dx * 0.35)}px)` : "";
    };
    const onEnd = (event: TouchEvent) => {
      const touch = event.changedTouches[0];
      const from = start;
      start = null;
      settle();
      if (!from || !touch) return;
      const direction = swipeDirection(touch.clientX - from.x, touch.clientY - from.y);
      if (direction) (direction === "left" ? latest.current.onLeft : latest.current.onRight)?.();
    };
    const onCancel = () => {
      start = null;
      settle();
    };
    el.addEventListener("touchstart", onStart, { passive: true });
    el.addEventListener("touchmove", onMove, { passive: true });
    el.addEventListener("touchend", onEnd);
    el.addEventListener("touchcancel", onCancel);
    return () => {
      el.removeEventListener("touchstart", onStart);
      el.removeEventListener("touchmove", onMove);
      el.removeEventListener("touchend", onEnd);
      el.removeEventListener("touchcancel", onCancel);
    };
  }, [el]);

  return setEl;
}
