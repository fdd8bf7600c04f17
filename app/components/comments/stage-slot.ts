import { useEffect, useState } from "react";

/**
 * An element of our own inside (or right after) the viewer's stage, for portals: the comments layer draws over the
 * picture and the marker strip sits under the player without the stage components knowing about comments.
 */
export function useStageSlot(className: string, where: "inside" | "after"): HTMLDivElement | null {
  const [slot, setSlot] = useState<HTMLDivElement | null>(null);
  useEffect(() => {
    const stage = document.querySelector<HTMLElement>(".viewer-stage");
    if (!stage) return;
    const el = document.createElement("div");
    el.className = className;
    if (where === "inside") stage.appendChild(el);
    else stage.insertAdjacentElement("afterend", el);
    setSlot(el);
    return () => {
      el.remove();
      setSlot(null);
    };
  }, [className, where]);
  return slot;
}
