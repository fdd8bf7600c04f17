import { SaxesParser, type SaxesTagNS } from "saxes";
import { ru } from "../../../shared/i18n/ru";
import { MAX_SVG_ATTRIBUTES, MAX_SVG_BYTES, MAX_SVG_DEPTH } from "./extract/limits";
import { mib, ParseLimitError } from "./extract/parse-limit";

export const SVG_NS = "http://www.w3.org/2000/svg";
export const XLINK_NS = "http://www.w3.org/1999/xlink";

/** An attribute as the namespace-aware parser resolved it: `uri` is "" for an unprefixed attribute. */
export interface SvgAttribute {
  uri: string;
  local: string;
  value: string;
}

/** An element kept in the tree: identified by namespace URI and local name, never by the prefix it was written with. */
export interface SvgElement {
  uri: string;
  local: string;
  attributes: SvgAttribute[];
  children: SvgElement[];
  /** its character data (text and CDATA, character references already decoded) */
  text: string;
}

/**
 * Decides, for each element in document order, whether it enters the tree. `parent` is its parent when that was
 * kept, else null (then the answer is ignored unless `isRoot`: a left-out element takes its subtree with it).
 * Throwing stops the parse: that is how a gate refuses early.
 */
export type KeepElement = (element: SvgElement, parent: SvgElement | null, isRoot: boolean) => boolean;

export interface SvgParseOptions {
  keep: KeepElement;
  /** sees every piece of character data of the document, kept or not */
  onText?: (text: string) => void;
}

/** The bytes are not well-formed XML (or use an entity the document declares in its own DTD, which is not read). */
export class SvgNotWellFormed extends Error {
  /** the document has an internal DTD subset (declared entities): a browser reads it, this parser does not */
  readonly declaresEntities: boolean;
  constructor(declaresEntities: boolean) {
    super("SVG is not well-formed XML");
    this.name = "SvgNotWellFormed";
    this.declaresEntities = declaresEntities;
  }
}

/**
 * Parses an SVG with a strict, namespace-aware XML parser (saxes) under a budget: at most MAX_SVG_BYTES, MAX_SVG_DEPTH
 * of nesting and MAX_SVG_ATTRIBUTES per element (ParseLimitError past them, checked as the parser meets them, so the
 * parser's own work stays linear in the file). Entities other than XML's five and character references are never
 * expanded. Only the elements `keep` accepts are built (a file of a million ignored elements costs no memory);
 * returns the root, or null when the document's root is not an element named `svg`.
 */
export function parseSvgDocument(bytes: Uint8Array, { keep, onText }: SvgParseOptions): SvgElement | null {
  if (bytes.length > MAX_SVG_BYTES) throw new ParseLimitError(ru.parse.svgTooLarge(mib(MAX_SVG_BYTES)), 413);
  const parser = new SaxesParser({ xmlns: true, position: false });
  let declaresEntities = false;
  let attributes = 0;
  let depth = 0;
  let root: SvgElement | null = null;
  let rootSeen = false;
  // One entry per open element: the kept element, or null when it (or an ancestor) was left out.
  const open: (SvgElement | null)[] = [];
  parser.on("doctype", (doctype) => {
    declaresEntities = doctype.includes("[");
  });
  parser.on("opentagstart", () => {
    attributes = 0;
    if (++depth > MAX_SVG_DEPTH) throw new ParseLimitError(ru.parse.svgDepth(MAX_SVG_DEPTH), 413);
  });
  parser.on("attribute", () => {
    if (++attributes > MAX_SVG_ATTRIBUTES) throw new ParseLimitError(ru.parse.svgAttributes(MAX_SVG_ATTRIBUTES), 413);
  });
  parser.on("opentag", (tag: SaxesTagNS) => {
    const parent = open.length > 0 ? open[open.length - 1] : null;
    const isRoot = !rootSeen;
    rootSeen = true;
    const element: SvgElement = {
      uri: tag.uri,
      local: tag.local,
      attributes: Object.values(tag.attributes).map((a) => ({ uri: a.uri, local: a.local, value: a.value })),
      children: [],
      text: "",
    };
    const kept = keep(element, parent, isRoot) && (isRoot ? tag.local === "svg" : parent !== null);
    if (kept && parent) parent.children.push(element);
    if (kept && isRoot) root = element;
    open.push(kept ? element : null);
  });
  parser.on("closetag", () => {
    open.pop();
    depth--;
  });
  const addText = (text: string) => {
    onText?.(text);
    const current = open.length > 0 ? open[open.length - 1] : null;
    if (current) current.text += text;
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("error", () => {
    throw new SvgNotWellFormed(declaresEntities);
  });
  parser.write(new TextDecoder().decode(bytes)).close();
  return root;
}
