import { describe, expect, it } from "vitest";
import { SVG_DEFAULT_SIDE, svgDrawSize, svgRootSize, withoutExternalImages } from "../../app/lib/browser-previews";

/** SVG through the browser (decision 029): the size it is drawn at, and the external pictures dropped first. */

describe("svgRootSize / svgDrawSize", () => {
  const natural300 = { width: 300, height: 150 };

  it("keeps the size the <img> resolved when the root has an absolute width and height", () => {
    const root = svgRootSize(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="640" height='480' viewBox="0 0 64 48">`);
    expect(root).toEqual({ sized: true, viewBox: { width: 64, height: 48 } });
    expect(svgDrawSize({ width: 640, height: 480 }, root)).toEqual({ width: 640, height: 480 });
  });

  it("draws an unsized SVG at 1024 px on the long side in its viewBox's proportions, whatever the browser reports", () => {
    const root = svgRootSize(`<svg viewBox="0,0 200 100" xmlns="http://www.w3.org/2000/svg"><rect/></svg>`);
    expect(root).toEqual({ sized: false, viewBox: { width: 200, height: 100 } });
    expect(svgDrawSize(natural300, root)).toEqual({ width: SVG_DEFAULT_SIDE, height: 512 });
    expect(svgDrawSize({ width: 0, height: 0 }, svgRootSize(`<svg viewBox="0 0 10 40">`))).toEqual({ width: 256, height: 1024 });
  });

  it("treats percentages as unsized and falls back to a 1024 square without a usable viewBox", () => {
    expect(svgRootSize(`<svg width="100%" height="100%">`).sized).toBe(false);
    expect(svgDrawSize(natural300, svgRootSize(`<svg width="100%" height="50">`))).toEqual({ width: 1024, height: 1024 });
    expect(svgDrawSize(natural300, svgRootSize(`<svg viewBox="0 0 0 10">`))).toEqual({ width: 1024, height: 1024 });
    expect(svgDrawSize(natural300, svgRootSize(`no svg here`))).toEqual({ width: 1024, height: 1024 });
  });
});

describe("withoutExternalImages", () => {
  it("drops the links of external <image>/<feImage> and keeps inline and local ones and everything else", () => {
    const svg = `<svg><image href="http://example.invalid/x.png" x="1"/><image xlink:href='//cdn.example/y.png'/><feImage href="https://e/z"/><image href="data:image/png;base64,AA"/><feImage xlink:href="#shape"/><a href="http://example.invalid/">t</a></svg>`;
    expect(withoutExternalImages(svg)).toBe(
      `<svg><image x="1"/><image/><feImage/><image href="data:image/png;base64,AA"/><feImage xlink:href="#shape"/><a href="http://example.invalid/">t</a></svg>`,
    );
  });
});
