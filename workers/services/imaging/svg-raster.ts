import { Resvg, initWasm } from "@resvg/resvg-wasm";
import resvgModule from "@resvg/resvg-wasm/index_bg.wasm";
import { ru } from "../../../shared/i18n/ru";
import { limits } from "../media";
import type { Pixels } from "./image-codec";
import { PreviewUnavailable } from "./preview-unavailable";

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
 * What the Worker's rasteriser must leave to the viewing browser (decision 029): text (resvg here has no fonts and
 * would draw nothing), raster images (an embedded PNG or JPEG is decoded at whatever size it claims, past an isolate's
 * memory), foreign HTML, and `<use>` (ten levels of ten `<use>`s of the level below expand to 10¹⁰ shapes: a
 * rendering that would never end inside one synchronous wasm call), and filters, as `<filter>` elements or CSS filter
 * functions in a `filter` attribute or style (a 607-byte file of five blurred, dilated rectangles kept resvg busy for
 * 192 s: its cost grows with the radius times the canvas, not with the file). The browser draws those in an `<img>`,
 * where nothing runs or is fetched.
 */
const NEEDS_BROWSER = /<(?:[a-z]+:)?(?:text|image|foreignObject|use|filter)\b|\bfilter\s*[=:]/i;

/** An SVG the viewing browser draws instead (its first view heals the preview): not a failure of the file. */
export class LeftToBrowser extends PreviewUnavailable {}

const SHAPES = /<(?:[a-z]+:)?(?:path|rect|circle|ellipse|line|polyline|polygon)\b/gi;
/** Effects that make resvg draw a canvas-sized layer or dash a stroke (`fill-opacity` and `stop-opacity` do not). */
const EFFECTS = /(?<![\w-])(?:opacity|mask|clip-path|stroke-dasharray)\s*[=:]/gi;
const NUMBERS = /[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;
const EFFECT_PROPERTY = /(?<![\w-])(?:opacity|mask|clip-path|stroke-dasharray)\s*:/i;

/**
 * Whether a `<style>` element sets one of the EFFECTS (then it may apply to every shape). Each element's text is
 * found with indexOf and tested once: one pattern spanning `<style>` to the property would rescan the rest of the
 * file from every unclosed `<style>` (600,000 of them fit in 4 MiB).
 */
function styleSetsEffect(text: string): boolean {
  const lower = text.toLowerCase();
  for (let at = lower.indexOf("<style"); at >= 0; ) {
    const end = lower.indexOf("</style", at);
    if (EFFECT_PROPERTY.test(text.slice(at, end < 0 ? text.length : end))) return true;
    if (end < 0) return false;
    at = lower.indexOf("<style", end);
  }
  return false;
}

/** Matches of `pattern` in `text`, counted no further than one past `max`. */
function countUpTo(text: string, pattern: RegExp, max: number): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (n <= max && pattern.exec(text)) n++;
  return n;
}

/**
 * Throws LeftToBrowser when this SVG is more than the Worker may draw (limits.MAX_SVG_RASTER_*). resvg's time grows
 * with the shapes times the area they cover, the layers and dashes, and the points it fills, none of which the file's
 * size bounds; the count is taken from the text because nothing can stop resvg once it draws.
 */
function checkDrawingBudget(text: string): void {
  const past = (what: "shapes" | "effects" | "numbers", max: number) => new LeftToBrowser(ru.makers.svgTooBusy(what, max));
  const shapes = countUpTo(text, SHAPES, limits.MAX_SVG_RASTER_SHAPES);
  if (shapes > limits.MAX_SVG_RASTER_SHAPES) throw past("shapes", limits.MAX_SVG_RASTER_SHAPES);
  const effects = countUpTo(text, EFFECTS, limits.MAX_SVG_RASTER_EFFECTS) + (styleSetsEffect(text) ? shapes : 0);
  if (effects > limits.MAX_SVG_RASTER_EFFECTS) throw past("effects", limits.MAX_SVG_RASTER_EFFECTS);
  if (countUpTo(text, NUMBERS, limits.MAX_SVG_RASTER_NUMBERS) > limits.MAX_SVG_RASTER_NUMBERS) throw past("numbers", limits.MAX_SVG_RASTER_NUMBERS);
}

/**
 * Draws an SVG (already checked by svgInfo for size and depth) to RGBA pixels whose longer side is `longSide`, the
 * largest preview's. resvg fetches nothing (no resolver is given for external images), runs no script and renders
 * into a canvas of the asked size whatever the file declares. Throws PreviewUnavailable for what only a browser draws.
 */
export async function rasteriseSvg(bytes: Uint8Array, longSide: number): Promise<Pixels> {
  const text = new TextDecoder().decode(bytes);
  if (NEEDS_BROWSER.test(text)) throw new LeftToBrowser(ru.makers.svgForBrowser);
  checkDrawingBudget(text);
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
