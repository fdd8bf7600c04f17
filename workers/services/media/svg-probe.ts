import { ru } from "../../../shared/i18n/ru";
import { MAX_SVG_BYTES, MAX_SVG_DEPTH } from "./extract/limits";
import { mib, ParseLimitError } from "./extract/parse-limit";

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

/**
 * Size and external references of an SVG, read with one linear scan of its tags (no XML parser, no DOM, nothing
 * fetched). Refused past MAX_SVG_BYTES or MAX_SVG_DEPTH of nesting; null when the bytes hold no `<svg` element.
 */
export function svgInfo(bytes: Uint8Array): SvgInfo | null {
  if (bytes.length > MAX_SVG_BYTES) throw new ParseLimitError(ru.parse.svgTooLarge(mib(MAX_SVG_BYTES)), 413);
  const text = new TextDecoder().decode(bytes);
  const root = /<svg\b([^<>]*)>/i.exec(text);
  if (!root) return null;
  let depth = 0;
  for (const tag of text.matchAll(/<(\/?)[a-zA-Z][^<>]*?(\/?)>/g)) {
    if (tag[1]) depth--;
    else if (!tag[2] && ++depth > MAX_SVG_DEPTH) throw new ParseLimitError(ru.parse.svgDepth(MAX_SVG_DEPTH), 413);
  }
  const externalRefs = text.match(/(?:href\s*=\s*["']\s*|url\(\s*["']?\s*)(?:https?:|file:|\/\/)/gi)?.length ?? 0;
  const attrs = root[1];
  let width = number(/\swidth\s*=\s*["']([\d.]+)/.exec(attrs)?.[1]);
  let height = number(/\sheight\s*=\s*["']([\d.]+)/.exec(attrs)?.[1]);
  const box = /\sviewBox\s*=\s*["']\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(attrs);
  if ((!width || !height) && box) {
    width = number(box[1]);
    height = number(box[2]);
  }
  return { width, height, externalRefs };
}
