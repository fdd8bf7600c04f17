import { parseSvgDocument, SvgNotWellFormed, type SvgAttribute, type SvgElement } from "./svg-document";

export interface SvgInfo {
  width?: number;
  height?: number;
  /** `href`s and `url(…)`s that point outside the file (http:, https:, //, file:): counted, never fetched */
  externalRefs: number;
}

const number = (v: string | undefined) => {
  const n = v ? Number.parseFloat(v) : NaN;
  return Number.isFinite(n) && n > 0 ? Math.round(n) : undefined;
};

const EXTERNAL = ["http:", "https:", "file:", "//"];
const external = (target: string) => {
  const t = target.trim().replace(/^["']\s*/, "").toLowerCase();
  return EXTERNAL.some((scheme) => t.startsWith(scheme));
};

/** External `url(…)` references in one attribute value or style sheet (each `url(` looked at once). */
function externalUrls(value: string): number {
  let n = 0;
  const lower = value.toLowerCase();
  for (let at = lower.indexOf("url("); at >= 0; at = lower.indexOf("url(", at + 4)) if (external(value.slice(at + 4, at + 4 + 16))) n++;
  return n;
}

function externalRefsOf(attributes: SvgAttribute[]): number {
  let n = 0;
  for (const a of attributes) n += a.local === "href" && external(a.value) ? 1 : externalUrls(a.value);
  return n;
}

/**
 * Size and external references of an SVG, read from its parsed document (svg-document.ts: a strict namespace-aware
 * XML parser under a budget of bytes, depth and attributes; nothing fetched, no element kept but the root). Refused
 * past those budgets (ParseLimitError); null when the bytes are not well-formed XML or their root is no `svg`.
 * What a browser reads and this parser does not (entities declared in the file's DTD) gives no size.
 */
export function svgInfo(bytes: Uint8Array): SvgInfo | null {
  let externalRefs = 0;
  let root: SvgElement | null;
  try {
    // Only the root is built; every element's attributes and every text (style sheets' url(…)s) are read as the
    // parser passes.
    root = parseSvgDocument(bytes, {
      keep: (element, _parent, isRoot) => {
        externalRefs += externalRefsOf(element.attributes);
        return isRoot;
      },
      onText: (text) => {
        externalRefs += externalUrls(text);
      },
    });
  } catch (error) {
    // A document with its own DTD (Illustrator's entities) is an SVG this parser does not read: no size, no refusal.
    if (error instanceof SvgNotWellFormed) return error.declaresEntities ? { externalRefs } : null;
    throw error;
  }
  if (!root) return null;
  const attr = (name: string) => root.attributes.find((a) => a.uri === "" && a.local === name)?.value;
  let width = number(attr("width"));
  let height = number(attr("height"));
  const box = (attr("viewBox") ?? "").trim().split(/[\s,]+/).map(Number.parseFloat);
  if ((!width || !height) && box.length === 4) {
    width = number(String(box[2]));
    height = number(String(box[3]));
  }
  return { width, height, externalRefs };
}
