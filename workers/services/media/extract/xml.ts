import { SaxesParser } from "saxes";
import { ru } from "../../../../shared/i18n/ru";
import { MAX_XML_CHARS, MAX_XML_DEPTH, MAX_XML_ELEMENTS, MAX_XML_TEXT_CHARS } from "./limits";
import { mib, ParseLimitError } from "./parse-limit";

/**
 * Office XML read by a strict XML parser (saxes) under budgets, never by patterns over the text: a part is refused
 * past MAX_XML_CHARS, MAX_XML_ELEMENTS or MAX_XML_DEPTH, when it declares a DOCTYPE (entity bombs, XXE) or is not
 * well-formed. Only the elements a reader asks for are built into the tree, so a part of a million other elements
 * costs one pass and no memory; kept text stops at MAX_XML_TEXT_CHARS.
 */

export interface XmlNode {
  /** the qualified name as written (`w:p`): office parts use fixed prefixes, and test fixtures omit the xmlns */
  name: string;
  attrs: Readonly<Record<string, string>>;
  /** kept child elements and text, in document order */
  children: (XmlNode | string)[];
}

export interface XmlKeep {
  /** element names built into the tree; the others are walked through */
  elements: ReadonlySet<string>;
  /**
   * "kept": only text directly inside a kept element is kept (DOCX `<w:t>`: field codes in `<w:instrText>` are not
   * text); "any": text anywhere goes to the nearest kept ancestor (ODF `<text:span>` inside `<text:p>`).
   */
  text: "kept" | "any";
}

/** The part's kept elements under a nameless root. Throws a ParseLimitError on a refused or broken part. */
export function parseXml(xml: string, keep: XmlKeep): XmlNode {
  if (xml.length > MAX_XML_CHARS) throw new ParseLimitError(ru.parse.xmlTooLarge(mib(MAX_XML_CHARS)), 413);
  const root: XmlNode = { name: "", attrs: {}, children: [] };
  // One entry per open element: the kept node it adds to, and whether it is itself kept.
  const open: { node: XmlNode; kept: boolean }[] = [{ node: root, kept: true }];
  let elements = 0;
  let textChars = 0;
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on("doctype", () => {
    throw new ParseLimitError(ru.parse.xmlEntities);
  });
  parser.on("opentagstart", () => {
    if (++elements > MAX_XML_ELEMENTS) throw new ParseLimitError(ru.parse.xmlElements(MAX_XML_ELEMENTS), 413);
    if (open.length > MAX_XML_DEPTH) throw new ParseLimitError(ru.parse.xmlDepth(MAX_XML_DEPTH), 413);
  });
  parser.on("opentag", (tag) => {
    const parent = open[open.length - 1].node;
    if (!keep.elements.has(tag.name)) {
      open.push({ node: parent, kept: false });
      return;
    }
    const node: XmlNode = { name: tag.name, attrs: { ...tag.attributes }, children: [] };
    parent.children.push(node);
    open.push({ node, kept: true });
  });
  parser.on("closetag", () => {
    open.pop();
  });
  const addText = (text: string) => {
    const top = open[open.length - 1];
    if ((keep.text === "kept" && !top.kept) || top.node === root || textChars >= MAX_XML_TEXT_CHARS) return;
    const piece = text.slice(0, MAX_XML_TEXT_CHARS - textChars);
    textChars += piece.length;
    const last = top.node.children[top.node.children.length - 1];
    if (typeof last === "string") top.node.children[top.node.children.length - 1] = last + piece;
    else top.node.children.push(piece);
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("error", () => {
    throw new ParseLimitError(ru.parse.xmlMalformed);
  });
  parser.write(xml).close();
  return root;
}

/** The elements named `names` in document order (pre-order), not looking inside a found one unless `nested`. */
export function* descendants(node: XmlNode, names: ReadonlySet<string>, nested = false): Generator<XmlNode> {
  // An explicit stack: recursion would follow the part's depth (bounded, but a stack is cheaper).
  const stack: (XmlNode | string)[] = [...node.children].reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next === "string") continue;
    const found = names.has(next.name);
    if (found) yield next;
    if (!found || nested) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]);
  }
}

/** The first element named `name` among the descendants, if any. */
export function first(node: XmlNode, name: string): XmlNode | undefined {
  return descendants(node, new Set([name])).next().value ?? undefined;
}

/**
 * The text under a node in document order, with elements mapped by `inline` (a tab, a line break, repeated spaces);
 * elements named in `stop` (a nested paragraph) are left out.
 */
export function textOf(node: XmlNode, inline: (element: XmlNode) => string | null = () => null, stop: ReadonlySet<string> = new Set()): string {
  let out = "";
  const stack: (XmlNode | string)[] = [...node.children].reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next === "string") {
      out += next;
      continue;
    }
    if (stop.has(next.name)) continue;
    const replaced = inline(next);
    if (replaced !== null) {
      out += replaced;
      continue;
    }
    for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]);
  }
  return out;
}
