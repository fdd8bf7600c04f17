import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { createPortal } from "react-dom";
import { ru } from "../../i18n/ru";
import type { Region } from "../../lib/comments-api";
import { useStageSlot } from "./stage-slot";

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Where the picture is shown inside the stage now (it may be letterboxed, zoomed or scrolled). */
function pictureBox(slot: HTMLElement): Box | null {
  const stage = slot.parentElement;
  const img = stage?.querySelector<HTMLElement>("img, canvas");
  if (!stage || !img) return null;
  const s = stage.getBoundingClientRect();
  const r = img.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return null;
  return { left: r.left - s.left, top: r.top - s.top, width: r.width, height: r.height };
}

const clamp = (v: number) => Math.min(1, Math.max(0, v));

/**
 * The comments' regions on the picture: numbered pins (a click selects the comment) and, while drawing, a layer that
 * turns a drag into a region in fractions of the picture.
 */
export function RegionLayer({
  active,
  drawing,
  pins,
  draft,
  selected,
  onSelect,
  onDrawn,
}: {
  active: boolean;
  drawing: boolean;
  pins: { id: string; n: number; region: Region }[];
  draft: Region | null;
  selected: string | null;
  onSelect: (id: string) => void;
  onDrawn: (region: Region) => void;
}) {
  const slot = useStageSlot("comment-layer-slot", "inside");
  const [box, setBox] = useState<Box | null>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  const [rubber, setRubber] = useState<Region | null>(null);

  // The picture moves with zoom, scroll and resizing: follow it.
  useEffect(() => {
    if (!slot) return;
    const update = () => setBox(pictureBox(slot));
    update();
    const timer = setInterval(update, 400);
    window.addEventListener("resize", update);
    return () => {
      clearInterval(timer);
      window.removeEventListener("resize", update);
    };
  }, [slot]);

  if (!slot || !box || (!active && !drawing)) return null;
  const at = (e: ReactPointerEvent<HTMLDivElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: clamp((e.clientX - r.left) / r.width), y: clamp((e.clientY - r.top) / r.height) };
  };
  const regionOf = (a: { x: number; y: number }, b: { x: number; y: number }): Region => ({
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    w: Math.abs(a.x - b.x),
    h: Math.abs(a.y - b.y),
  });
  const style = (r: Region) => ({ left: `${r.x * 100}%`, top: `${r.y * 100}%`, width: `${r.w * 100}%`, height: `${r.h * 100}%` });

  return createPortal(
    <div
      className={drawing ? "comment-layer drawing" : "comment-layer"}
      style={{ left: box.left, top: box.top, width: box.width, height: box.height }}
      data-testid="comment-layer"
      onPointerDown={(e) => {
        if (!drawing) return;
        e.preventDefault();
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        start.current = at(e);
        setRubber(null);
      }}
      onPointerMove={(e) => {
        if (!drawing || !start.current) return;
        setRubber(regionOf(start.current, at(e)));
      }}
      onPointerUp={(e) => {
        if (!drawing || !start.current) return;
        const r = regionOf(start.current, at(e));
        start.current = null;
        setRubber(null);
        // A click without a drag is no region.
        if (r.w > 0.005 && r.h > 0.005) onDrawn({ x: round(r.x), y: round(r.y), w: round(Math.min(r.w, 1 - round(r.x))), h: round(Math.min(r.h, 1 - round(r.y))) });
      }}
    >
      {pins.map((p) => (
        <button
          key={p.id}
          type="button"
          className={p.id === selected ? "comment-region selected" : "comment-region"}
          style={style(p.region)}
          aria-label={ru.commentsUi.pin(p.n)}
          onClick={() => onSelect(p.id)}
          tabIndex={drawing ? -1 : 0}
        >
          <span className="comment-pin">{p.n}</span>
        </button>
      ))}
      {draft && <div className="comment-region draft" style={style(draft)} />}
      {rubber && <div className="comment-region draft" style={style(rubber)} />}
    </div>,
    slot,
  );
}

/** Four decimals are finer than any screen; rounding down keeps x + w inside the picture. */
function round(v: number): number {
  return Math.floor(v * 10_000) / 10_000;
}
