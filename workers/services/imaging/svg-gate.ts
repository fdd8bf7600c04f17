import { ru } from "../../../shared/i18n/ru";
import { limits, parseSvgDocument, SVG_NS, SvgNotWellFormed, XLINK_NS, type SvgAttribute, type SvgElement } from "../media/decode";
import { PreviewUnavailable } from "./preview-unavailable";
import { cleanStyleAttribute, cleanStyleSheet, PAINT_PROPERTIES, type CleanCss } from "./svg-css";

/**
 * What the Worker's rasteriser must leave to the viewing browser (decision 029): text (resvg here has no fonts and
 * would draw nothing), raster images (an embedded PNG or JPEG is decoded at whatever size it claims, past an isolate's
 * memory), foreign HTML, `<use>` (ten levels of ten `<use>`s of the level below expand to 10¹⁰ shapes: a rendering
 * that would never end inside one synchronous wasm call), markers (drawn again at every vertex of every shape that
 * names them) and filters, as `<filter>` elements or a `filter` attribute or CSS property (a 607-byte file of five
 * blurred, dilated rectangles kept resvg busy for 192 s: its cost grows with the radius times the canvas, not with the
 * file). The browser draws those in an `<img>`, where nothing runs or is fetched.
 */
export class LeftToBrowser extends PreviewUnavailable {}

const FOR_BROWSER = new Set(["text", "tspan", "textPath", "image", "foreignObject", "use", "filter", "marker"]);
const CONTAINERS = new Set(["svg", "g", "defs", "a", "switch"]);
const SHAPES = new Set(["path", "rect", "circle", "ellipse", "line", "polyline", "polygon"]);
const PAINT_SERVERS = new Set(["linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask"]);
/** Attributes of geometry, coordinate systems and paint servers resvg may be handed (besides PAINT_PROPERTIES). */
const GEOMETRY = new Set(
  (
    "id class x y width height rx ry cx cy r fx fy fr x1 y1 x2 y2 d points pathLength transform viewBox preserveAspectRatio " +
    "offset gradientUnits gradientTransform spreadMethod patternUnits patternContentUnits patternTransform clipPathUnits " +
    "maskUnits maskContentUnits"
  ).split(" "),
);
/** Paint servers that may inherit from another by a reference inside the file. */
const REFERRING = new Set(["linearGradient", "radialGradient", "pattern"]);
/** Effects that make resvg draw a canvas-sized layer or dash a stroke (`fill-opacity` and `stop-opacity` do not). */
const EFFECTS = new Set(["opacity", "mask", "clip-path", "stroke-dasharray"]);
const NUMBERS = /[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;

/** Numbers in one attribute value or declaration (a path's coordinates), counted no further than `max`. */
function numbersIn(value: string, max: number): number {
  NUMBERS.lastIndex = 0;
  let n = 0;
  while (n <= max && NUMBERS.exec(value)) n++;
  return n;
}

const tooBusy = (what: "shapes" | "effects" | "numbers" | "elements", max: number) => new LeftToBrowser(ru.makers.svgTooBusy(what, max));
const forBrowser = () => new LeftToBrowser(ru.makers.svgForBrowser);

/** The running drawing budget (limits.MAX_SVG_RASTER_*): resvg's time grows with these, not with the file's size. */
class Budget {
  elements = 0;
  shapes = 0;
  effects = 0;
  numbers = 0;
  sheetSetsEffect = false;

  element(local: string): void {
    if (++this.elements > limits.MAX_SVG_RASTER_ELEMENTS) throw tooBusy("elements", limits.MAX_SVG_RASTER_ELEMENTS);
    if (SHAPES.has(local) && ++this.shapes > limits.MAX_SVG_RASTER_SHAPES) throw tooBusy("shapes", limits.MAX_SVG_RASTER_SHAPES);
  }

  effect(n = 1): void {
    this.effects += n;
    if (this.effects > limits.MAX_SVG_RASTER_EFFECTS) throw tooBusy("effects", limits.MAX_SVG_RASTER_EFFECTS);
  }

  geometry(value: string): void {
    this.numbers += numbersIn(value, limits.MAX_SVG_RASTER_NUMBERS - this.numbers);
    if (this.numbers > limits.MAX_SVG_RASTER_NUMBERS) throw tooBusy("numbers", limits.MAX_SVG_RASTER_NUMBERS);
  }

  /** CSS the gate has cleaned: a filter anywhere sends the file to the browser; kept declarations count. */
  css(clean: CleanCss): void {
    if (clean.declared.has("filter")) throw forBrowser();
    for (const property of clean.kept) if (EFFECTS.has(property)) this.effect();
    this.geometry(clean.css);
  }
}

/** The attributes of one kept element that resvg may read, each checked and counted. */
function keptAttributes(element: SvgElement, budget: Budget): SvgAttribute[] {
  const out: SvgAttribute[] = [];
  for (const a of element.attributes) {
    const isHref = a.local === "href" && (a.uri === "" || a.uri === XLINK_NS);
    if (isHref) {
      const target = a.value.trim();
      if (REFERRING.has(element.local) && /^#[\w.:-]+$/.test(target)) out.push({ uri: XLINK_NS, local: "href", value: target });
      continue;
    }
    if (a.uri !== "") continue; // inkscape:*, sodipodi:*, xml:space, namespace declarations: nothing resvg needs
    if (a.local === "filter") throw forBrowser();
    if (a.local === "style") {
      const clean = cleanStyleAttribute(a.value);
      budget.css(clean);
      if (clean.css) out.push({ uri: "", local: "style", value: clean.css });
      continue;
    }
    if (!PAINT_PROPERTIES.has(a.local) && !GEOMETRY.has(a.local)) continue;
    if (EFFECTS.has(a.local)) budget.effect();
    budget.geometry(a.value);
    out.push({ uri: "", local: a.local, value: a.value });
  }
  return out;
}

const escapeAttribute = (v: string) =>
  v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\t/g, "&#9;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;");
const escapeText = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The kept tree as text: only SVG-namespace elements and checked attributes, no DOCTYPE, no entity, no prefix. */
function serialise(element: SvgElement, out: string[], isRoot: boolean): void {
  out.push("<", element.local);
  if (isRoot) out.push(` xmlns="${SVG_NS}" xmlns:xlink="${XLINK_NS}"`);
  for (const a of element.attributes) out.push(" ", a.uri === XLINK_NS ? "xlink:href" : a.local, '="', escapeAttribute(a.value), '"');
  if (element.local === "style") out.push(">", escapeText(element.text), "</style>");
  else if (element.children.length === 0) out.push("/>");
  else {
    out.push(">");
    for (const child of element.children) serialise(child, out, false);
    out.push("</", element.local, ">");
  }
}

/** Cleans every `<style>` sheet of the tree in place (dropping empty ones); returns the rules kept. */
function cleanSheets(element: SvgElement, budget: Budget): number {
  let rules = 0;
  element.children = element.children.filter((child) => {
    if (child.local !== "style") {
      rules += cleanSheets(child, budget);
      return true;
    }
    const type = child.attributes.find((a) => a.uri === "" && a.local === "type")?.value.trim().toLowerCase();
    if ((type && type !== "text/css") || child.text.trim() === "") return false;
    const clean = cleanStyleSheet(child.text);
    budget.css(clean);
    if (clean.declared.size > 0 && clean.kept.some((p) => EFFECTS.has(p))) budget.sheetSetsEffect = true;
    child.text = clean.css;
    child.attributes = [];
    rules += clean.rules;
    return clean.rules > 0;
  });
  return rules;
}

/**
 * Decides on the parsed document whether the Worker may draw this SVG, and returns the document resvg is handed:
 * re-emitted from the tree with only SVG-namespace elements resvg draws cheaply and checked attributes and CSS, so
 * resvg never reads anything the gate did not decide on (an element under any prefix bound to the SVG namespace is
 * the element; a property spelled with character references or CSS escapes is the property). Throws LeftToBrowser
 * for what only a browser draws or what is past the drawing budget, PreviewUnavailable for a broken file,
 * ParseLimitError past the parser's budget.
 */
export function svgForResvg(bytes: Uint8Array): string {
  const budget = new Budget();
  let root: SvgElement | null;
  try {
    root = parseSvgDocument(bytes, {
      keep: (element, parent, isRoot) => {
        if (!isRoot && parent === null) return false;
        if (element.uri !== SVG_NS) {
          if (isRoot) throw new PreviewUnavailable(ru.makers.corrupt("SVG"));
          return false; // metadata of editors (RDF, sodipodi, inkscape): never drawn
        }
        if (FOR_BROWSER.has(element.local) || /^fe[A-Z]/.test(element.local)) throw forBrowser();
        if (element.local === "style") {
          // Every sheet (even an empty one) is a node in the tree and possibly a CSS parse: it counts as an element.
          budget.element("style");
          element.attributes = element.attributes.filter((a) => a.uri === "" && a.local === "type");
          return true;
        }
        if (!CONTAINERS.has(element.local) && !SHAPES.has(element.local) && !PAINT_SERVERS.has(element.local)) return false;
        budget.element(element.local);
        element.attributes = keptAttributes(element, budget);
        element.text = "";
        return true;
      },
    });
  } catch (error) {
    // A DTD of its own (Illustrator's entities) is read by browsers, not by this parser: the browser draws it.
    if (error instanceof SvgNotWellFormed) throw error.declaresEntities ? forBrowser() : new PreviewUnavailable(ru.makers.corrupt("SVG"));
    throw error;
  }
  if (!root) throw new PreviewUnavailable(ru.makers.corrupt("SVG"));
  const rules = cleanSheets(root, budget);
  // A sheet's rule may match every shape: its effect counts once per shape.
  if (budget.sheetSetsEffect) budget.effect(budget.shapes);
  if (budget.elements + rules > limits.MAX_SVG_RASTER_ELEMENTS) throw tooBusy("elements", limits.MAX_SVG_RASTER_ELEMENTS);
  const out: string[] = [];
  serialise(root, out, true);
  return out.join("");
}
