import { ru } from "../../../../shared/i18n/ru";
import { MAX_XML_CHARS, XML_DECLARATIONS_REFUSED } from "./limits";
import { mib, ParseLimitError } from "./parse-limit";

/**
 * Small, linear-time helpers over office XML. Every pattern stops at the next `<` or `>` (`[^<>]*`, `[^<]*`), and
 * elements are found by an opening match plus indexOf of the closing tag, so a document of a million unclosed tags
 * costs one pass, not a million (no backtracking over the rest of the document).
 */

/** Refuses XML over MAX_XML_CHARS and XML that declares a DOCTYPE or entities (billion laughs, XXE). */
export function checkXml(xml: string): string {
  if (xml.length > MAX_XML_CHARS) throw new ParseLimitError(ru.parse.xmlTooLarge(mib(MAX_XML_CHARS)), 413);
  if (XML_DECLARATIONS_REFUSED.test(xml)) throw new ParseLimitError(ru.parse.xmlEntities);
  return xml;
}

export interface XmlElement {
  name: string;
  attrs: string;
  body: string;
}

/** The elements named `names` (a `|`-separated list) in document order; a self-closed one has an empty body. */
export function* elements(xml: string, names: string): Generator<XmlElement> {
  const open = new RegExp(`<(${names})(?=[\\s/>])([^<>]*)>`, "g");
  for (let m = open.exec(xml); m; m = open.exec(xml)) {
    const attrs = m[2];
    if (attrs.endsWith("/")) {
      yield { name: m[1], attrs: attrs.slice(0, -1), body: "" };
      continue;
    }
    const close = `</${m[1]}>`;
    const at = xml.indexOf(close, open.lastIndex);
    if (at < 0) return;
    yield { name: m[1], attrs, body: xml.slice(open.lastIndex, at) };
    open.lastIndex = at + close.length;
  }
}

/** An attribute's value (XML-unescaped). */
export function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name}="([^"<>]*)"`).exec(attrs);
  return m ? unescapeXml(m[1]) : undefined;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The five predefined entities and numeric references; anything else is left as written (never expanded). */
export function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,4});/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Text of OOXML runs: `<w:t>`/`<a:t>`/`<t>` contents, tabs and breaks; `prefix` is "w:", "a:" or "". */
export function runsText(xml: string, prefix: string): string {
  const runs = new RegExp(`<${prefix}t(?:\\s[^<>]*)?>([^<]*)</${prefix}t>|<${prefix}(tab|br|cr)\\b[^<>]*>`, "g");
  let out = "";
  for (const m of xml.matchAll(runs)) {
    if (m[1] !== undefined) out += m[1];
    else out += m[2] === "tab" ? "\t" : "\n";
  }
  return unescapeXml(out);
}

/** Text of ODF content: tabs, line breaks and repeated spaces become characters, other tags are dropped. */
export function odfInline(xml: string): string {
  return unescapeXml(
    xml
      .replace(/<text:tab\b[^<>]*\/>/g, "\t")
      .replace(/<text:line-break\b[^<>]*\/>/g, "\n")
      .replace(/<text:s\b([^<>]*)\/>/g, (_, attrs: string) => " ".repeat(Math.min(Number(/text:c="(\d{1,4})"/.exec(attrs)?.[1] ?? 1), 100)))
      .replace(/<[^<>]*>/g, ""),
  );
}
