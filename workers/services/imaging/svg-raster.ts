import { Resvg, initWasm } from "@resvg/resvg-wasm";
import resvgModule from "@resvg/resvg-wasm/index_bg.wasm";
import { ru } from "../../../shared/i18n/ru";
import type { Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";
import { svgForResvg } from "./svg-gate";

// Compiled by the bundler like the codecs' wasm (image-codec.ts); instantiated once per isolate.
let ready: Promise<void> | null = null;
function initResvg(): Promise<void> {
  ready ??= initWasm(resvgModule).catch((error) => {
    ready = null;
    throw error;
  });
  return ready;
}

/**
 * Draws an SVG (already checked by svgInfo for size and depth) to RGBA pixels whose longer side is `longSide`, the
 * largest preview's. resvg is handed only the document svg-gate rebuilt from the parsed tree (what it decided on);
 * it fetches nothing (no resolver is given for external images), runs no script and renders into a canvas of the
 * asked size whatever the file declares. Throws PreviewUnavailable (LeftToBrowser) for what only a browser draws.
 */
export async function rasteriseSvg(bytes: Uint8Array, longSide: number): Promise<Pixels> {
  const text = svgForResvg(bytes);
  await initResvg();
  let svg: InstanceType<typeof Resvg> | null = null;
  try {
    svg = new Resvg(text, { font: { loadSystemFonts: false } });
    const fitTo = svg.width >= svg.height ? ({ mode: "width", value: longSide } as const) : ({ mode: "height", value: longSide } as const);
    svg.free();
    svg = null;
    svg = new Resvg(text, { font: { loadSystemFonts: false }, fitTo });
    const image = svg.render();
    const pixels = { data: straightAlpha(image.pixels), width: image.width, height: image.height };
    image.free();
    return pixels;
  } catch (error) {
    if (error instanceof PreviewUnavailable) throw error;
    throw new PreviewUnavailable(ru.makers.corrupt("SVG"));
  } finally {
    svg?.free();
  }
}

/** resvg answers premultiplied RGBA (tiny-skia's pixmap); the codecs and onWhite expect straight alpha. */
function straightAlpha(premultiplied: Uint8Array): Uint8ClampedArray {
  const d = new Uint8ClampedArray(premultiplied);
  for (let i = 3; i < d.length; i += 4) {
    const a = d[i];
    if (a === 0 || a === 255) continue;
    d[i - 3] = (d[i - 3] * 255) / a;
    d[i - 2] = (d[i - 2] * 255) / a;
    d[i - 1] = (d[i - 1] * 255) / a;
  }
  return d;
}
