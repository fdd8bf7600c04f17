import { describe, expect, it } from "vitest";
import { clampZoom, MAX_ZOOM, MIN_ZOOM, zoomStep } from "../../app/lib/image-zoom";

describe("the viewer's image zoom steps", () => {
  it("go to the next step up or down from a step", () => {
    expect(zoomStep(1, 1)).toBe(1.5);
    expect(zoomStep(1, -1)).toBe(0.75);
    expect(zoomStep(0.25, -1)).toBe(0.1);
  });

  it("go from a fitted scale between steps to the nearest step in that direction", () => {
    expect(zoomStep(0.43, 1)).toBe(0.5);
    expect(zoomStep(0.43, -1)).toBe(0.25);
  });

  it("stop at the ends", () => {
    expect(zoomStep(MAX_ZOOM, 1)).toBe(MAX_ZOOM);
    expect(zoomStep(MIN_ZOOM, -1)).toBe(MIN_ZOOM);
    expect(clampZoom(100)).toBe(MAX_ZOOM);
    expect(clampZoom(0)).toBe(MIN_ZOOM);
  });
});
