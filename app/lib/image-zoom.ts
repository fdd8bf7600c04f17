/** Zoom of the viewer's image: "fit" (the whole image in the stage) or a scale where 1 is the image's own pixels. */
export type ZoomLevel = "fit" | number;

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 8;
/** The steps «+» and «−» go through, as in most image viewers. */
const STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8];

export function clampZoom(scale: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, scale));
}

/** The next step above (1) or below (−1) the scale shown now; from a fitted scale between steps, the nearest. */
export function zoomStep(current: number, direction: 1 | -1): number {
  const next = direction > 0 ? STEPS.find((s) => s > current + 1e-6) : [...STEPS].reverse().find((s) => s < current - 1e-6);
  return clampZoom(next ?? current);
}
