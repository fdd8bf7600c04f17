import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { ru } from "../i18n/ru";
import { zoomStep, type ZoomLevel } from "../lib/image-zoom";
import { Icon } from "./icons";

/**
 * An image in the viewer with zoom and full screen: «+»/«−» and Ctrl+wheel (a trackpad pinch) zoom around the
 * pointer, a double click toggles «по размеру» and 100%, a zoomed image is dragged to pan, and the stage goes full
 * screen (F). Keys act only while the stage has focus, so the viewer's ←/→/Esc keep working around it.
 */
export function ImageStage({ src, alt }: { src: string; alt: string }) {
  const root = useRef<HTMLDivElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const image = useRef<HTMLImageElement>(null);
  const drag = useRef<{ x: number; y: number; left: number; top: number } | null>(null);
  const [zoom, setZoom] = useState<ZoomLevel>("fit");
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  const [full, setFull] = useState(false);

  useEffect(() => setZoom("fit"), [src]);
  useEffect(() => {
    const onChange = () => setFull(document.fullscreenElement === root.current);
    document.addEventListener("fullscreenchange", onChange);
    return () => document.removeEventListener("fullscreenchange", onChange);
  }, []);

  /** The scale the image is shown at now (for «fit», what the stage makes of it). */
  const shownScale = useCallback((): number => {
    const img = image.current;
    if (zoom !== "fit") return zoom;
    return img && natural ? img.clientWidth / natural.width : 1;
  }, [zoom, natural]);

  /** Zooms to `next`, keeping the point under (clientX, clientY) — or the centre — where it was. */
  const zoomTo = useCallback(
    (next: ZoomLevel, at?: { clientX: number; clientY: number }) => {
      const box = stage.current;
      if (!box || next === zoom) return setZoom(next);
      const before = shownScale();
      const rect = box.getBoundingClientRect();
      const px = (at?.clientX ?? rect.left + rect.width / 2) - rect.left;
      const py = (at?.clientY ?? rect.top + rect.height / 2) - rect.top;
      const contentX = (box.scrollLeft + px) / before;
      const contentY = (box.scrollTop + py) / before;
      setZoom(next);
      if (next === "fit") return;
      requestAnimationFrame(() => {
        box.scrollLeft = contentX * next - px;
        box.scrollTop = contentY * next - py;
      });
    },
    [zoom, shownScale],
  );

  const step = (direction: 1 | -1, at?: { clientX: number; clientY: number }) => zoomTo(zoomStep(shownScale(), direction), at);

  useEffect(() => {
    const box = stage.current;
    if (!box) return;
    // Ctrl+wheel is also what a trackpad pinch sends; a plain wheel keeps scrolling the page.
    const onWheel = (event: WheelEvent) => {
      if (!event.ctrlKey) return;
      event.preventDefault();
      zoomTo(zoomStep(shownScale(), event.deltaY < 0 ? 1 : -1), event);
    };
    box.addEventListener("wheel", onWheel, { passive: false });
    return () => box.removeEventListener("wheel", onWheel);
  }, [zoomTo, shownScale]);

  const toggleFull = () => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    else void root.current?.requestFullscreen?.().catch(() => undefined);
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (zoom === "fit" || event.button !== 0 || !stage.current) return;
    drag.current = { x: event.clientX, y: event.clientY, left: stage.current.scrollLeft, top: stage.current.scrollTop };
    stage.current.setPointerCapture(event.pointerId);
    // A zoomed image pans; the viewer's swipe between files must not see this gesture.
    event.stopPropagation();
  };
  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const start = drag.current;
    if (!start || !stage.current) return;
    stage.current.scrollLeft = start.left - (event.clientX - start.x);
    stage.current.scrollTop = start.top - (event.clientY - start.y);
    event.stopPropagation();
  };
  const endDrag = () => {
    drag.current = null;
  };

  const percent = Math.round(shownScale() * 100);
  const zoomed = zoom !== "fit";
  return (
    <div ref={root} className={`image-stage${full ? " is-full" : ""}`}>
      <div
        ref={stage}
        className={`image-stage-view${zoomed ? " is-zoomed" : ""}`}
        tabIndex={0}
        aria-label={alt}
        data-zoom={zoomed ? String(zoom) : "fit"}
        onDoubleClick={(event) => zoomTo(zoomed ? "fit" : 1, event)}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onTouchStart={(event) => zoomed && event.stopPropagation()}
        onKeyDown={(event) => {
          const keys: Record<string, () => void> = {
            "+": () => step(1),
            "=": () => step(1),
            "-": () => step(-1),
            "0": () => zoomTo("fit"),
            "1": () => zoomTo(1),
            f: toggleFull,
            F: toggleFull,
            а: toggleFull,
          };
          const act = keys[event.key];
          if (!act || event.ctrlKey || event.metaKey || event.altKey) return;
          event.preventDefault();
          event.stopPropagation();
          act();
        }}
      >
        <img
          ref={image}
          src={src}
          alt={alt}
          draggable={false}
          onLoad={(event) => setNatural({ width: event.currentTarget.naturalWidth, height: event.currentTarget.naturalHeight })}
          style={zoomed && natural ? { width: natural.width * zoom, height: natural.height * zoom, maxWidth: "none", maxHeight: "none" } : undefined}
        />
      </div>
      <div className="image-stage-tools" role="toolbar" aria-label={ru.imageStage.zoom(percent)}>
        <button type="button" className="icon-btn" title={ru.imageStage.zoomOut} aria-label={ru.imageStage.zoomOut} onClick={() => step(-1)}>
          <Icon name="zoom-out" size={16} />
        </button>
        <button
          type="button"
          className="image-stage-percent"
          title={zoomed ? ru.imageStage.fit : ru.imageStage.actual}
          onClick={() => zoomTo(zoomed ? "fit" : 1)}
          data-testid="image-zoom"
        >
          {percent}%
        </button>
        <button type="button" className="icon-btn" title={ru.imageStage.zoomIn} aria-label={ru.imageStage.zoomIn} onClick={() => step(1)}>
          <Icon name="zoom-in" size={16} />
        </button>
        <button
          type="button"
          className="icon-btn"
          title={full ? ru.imageStage.exitFullscreen : ru.imageStage.fullscreen}
          aria-label={full ? ru.imageStage.exitFullscreen : ru.imageStage.fullscreen}
          onClick={toggleFull}
        >
          <Icon name="fullscreen" size={16} />
        </button>
      </div>
    </div>
  );
}
