import type { Collector } from "./collector";
import { descendants, first, parseXml, textOf, type XmlKeep, type XmlNode } from "./xml";
import type { BoundedZip, ZipEntry } from "./zip";

/**
 * Office documents (ZIP archives of XML) to blocks: DOCX paragraphs with headings, PPTX slide paragraphs, XLSX and
 * ODS rows by sheet, ODT/ODP paragraphs. Only the XML parts that hold text are inflated, each parsed under the
 * budgets of xml.ts into a tree of just the elements read here.
 */

export const OFFICE_KINDS = ["docx", "xlsx", "pptx", "odt", "ods", "odp"] as const;
export type OfficeKind = (typeof OFFICE_KINDS)[number];

const keep = (names: string[], text: XmlKeep["text"]): XmlKeep => ({ elements: new Set(names), text });
const WORD = keep(["w:p", "w:pStyle", "w:t", "w:tab", "w:br", "w:cr"], "kept");
const DRAWING = keep(["a:p", "a:t", "a:tab", "a:br"], "kept");
const SHARED_STRINGS = keep(["si", "t"], "kept");
const WORKBOOK = keep(["sheet"], "kept");
const SHEET = keep(["row", "c", "v", "is", "t"], "kept");
const ODF = keep(["office:body", "text:h", "text:p", "text:tab", "text:line-break", "text:s", "table:table", "table:table-row", "table:table-cell"], "any");

function xmlOf(zip: BoundedZip, entry: ZipEntry | undefined, kept: XmlKeep): XmlNode | null {
  if (!entry) return null;
  const data = zip.read(entry);
  return data ? parseXml(new TextDecoder().decode(data), kept) : null;
}

/** Natural order of `slide2.xml` before `slide10.xml`. */
const numbered = (a: ZipEntry, b: ZipEntry) => a.name.localeCompare(b.name, "en", { numeric: true });

/** OOXML runs' inline elements: a tab, and line, page and column breaks as line ends. */
const runInline = (prefix: string) => (e: XmlNode) => (e.name === `${prefix}tab` ? "\t" : e.name === `${prefix}br` || e.name === `${prefix}cr` ? "\n" : null);

const WORD_PARAGRAPH = new Set(["w:p"]);

function docx(root: XmlNode, c: Collector): boolean {
  // Nested paragraphs (text boxes) come as paragraphs of their own, after the one that holds them.
  for (const p of descendants(root, WORD_PARAGRAPH, true)) {
    const style = first(p, "w:pStyle")?.attrs["w:val"] ?? "";
    const text = textOf(p, runInline("w:"), WORD_PARAGRAPH);
    if (!c.add({ type: /^(Heading|Title)/i.test(style) ? "heading" : "paragraph", text })) return false;
  }
  return true;
}

function slide(root: XmlNode, c: Collector): boolean {
  for (const p of descendants(root, new Set(["a:p"]))) {
    const text = textOf(p, runInline("a:"));
    if (text.trim() && !c.add({ type: "paragraph", text })) return false;
  }
  return true;
}

/** ODF inline elements: tabs, line breaks and runs of spaces (`text:c`, at most 100) become characters. */
function odfInline(e: XmlNode): string | null {
  if (e.name === "text:tab") return "\t";
  if (e.name === "text:line-break") return "\n";
  if (e.name === "text:s") {
    const count = Number(e.attrs["text:c"] ?? 1);
    return " ".repeat(Number.isInteger(count) && count > 0 ? Math.min(count, 100) : 1);
  }
  return null;
}

const ODF_PARAGRAPHS = new Set(["text:h", "text:p"]);

function odfText(root: XmlNode, c: Collector): void {
  const body = first(root, "office:body") ?? root;
  for (const p of descendants(body, ODF_PARAGRAPHS)) {
    if (!c.add({ type: p.name === "text:h" ? "heading" : "paragraph", text: textOf(p, odfInline) })) return;
  }
}

function odfSheet(root: XmlNode, c: Collector): void {
  for (const table of descendants(root, new Set(["table:table"]))) {
    const name = table.attrs["table:name"];
    if (name !== undefined && !c.add({ type: "sheet", name })) return;
    for (const row of descendants(table, new Set(["table:table-row"]))) {
      const cells = [...descendants(row, new Set(["table:table-cell"]))].map((cell) =>
        [...descendants(cell, ODF_PARAGRAPHS)].map((p) => textOf(p, odfInline)).join("\n"),
      );
      while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
      if (cells.length > 0 && !c.add({ type: "row", cells })) return;
    }
  }
}

/** The zero-based column of a cell reference («C7» → 2), read letter by letter; -1 when it has no letters. */
function columnIndex(ref: string): number {
  let n = 0;
  let letters = 0;
  for (const ch of ref) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90 || letters === 3) break;
    n = n * 26 + (code - 64);
    letters++;
  }
  return n - 1;
}

function xlsxSheet(root: XmlNode, shared: string[], c: Collector): boolean {
  for (const row of descendants(root, new Set(["row"]))) {
    const cells: string[] = [];
    for (const cell of descendants(row, new Set(["c"]))) {
      const type = cell.attrs.t;
      const ref = cell.attrs.r;
      const v = first(cell, "v");
      const raw = v ? textOf(v) : undefined;
      let value = "";
      if (type === "s" && raw !== undefined) value = shared[Number(raw)] ?? "";
      else if (type === "inlineStr") value = [...descendants(cell, new Set(["t"]))].map((t) => textOf(t)).join("");
      else if (raw !== undefined) value = raw;
      const at = ref ? columnIndex(ref) : cells.length;
      if (at >= 0 && at < 1000) {
        while (cells.length < at) cells.push("");
        cells[at] = value;
      }
    }
    while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
    if (cells.length > 0 && !c.add({ type: "row", cells })) return false;
  }
  return true;
}

/** Parts named like `word/header2.xml` (prefix, a number, `.xml`), compared without patterns. */
function numberedPart(name: string, prefixes: readonly string[]): boolean {
  const prefix = prefixes.find((p) => name.startsWith(p));
  if (!prefix || !name.endsWith(".xml")) return false;
  const middle = name.slice(prefix.length, -".xml".length);
  return [...middle].every((d) => d >= "0" && d <= "9");
}

/**
 * Reads an office document into the collector; false when the archive is not that kind of document (its main
 * part is missing). `extras`: also headers, footers, footnotes (DOCX) and speaker notes (PPTX), for the index.
 */
export function readOffice(kind: OfficeKind, zip: BoundedZip, c: Collector, extras: boolean): boolean {
  if (kind === "docx") {
    const root = xmlOf(zip, zip.entry("word/document.xml"), WORD);
    if (root === null) return false;
    if (!docx(root, c)) return true;
    if (extras) {
      for (const part of zip.entries.filter((e) => numberedPart(e.name, ["word/header", "word/footer", "word/footnotes"])).sort(numbered)) {
        const partRoot = xmlOf(zip, part, WORD);
        if (partRoot && !docx(partRoot, c)) break;
      }
    }
    return true;
  }
  if (kind === "pptx") {
    const prefixes = extras ? ["ppt/slides/slide", "ppt/notesSlides/notesSlide"] : ["ppt/slides/slide"];
    const slides = zip.entries.filter((e) => numberedPart(e.name, prefixes) && !e.name.endsWith("/slide.xml")).sort(numbered);
    if (slides.length === 0) return false;
    for (const part of slides) {
      const root = xmlOf(zip, part, DRAWING);
      if (root && !slide(root, c)) break;
    }
    return true;
  }
  if (kind === "xlsx") {
    const sheets = zip.entries.filter((e) => numberedPart(e.name, ["xl/worksheets/sheet"]) && e.name !== "xl/worksheets/sheet.xml").sort(numbered);
    if (sheets.length === 0) return false;
    const sharedRoot = xmlOf(zip, zip.entry("xl/sharedStrings.xml"), SHARED_STRINGS);
    const shared = sharedRoot ? [...descendants(sharedRoot, new Set(["si"]))].map((si) => textOf(si)) : [];
    const workbook = xmlOf(zip, zip.entry("xl/workbook.xml"), WORKBOOK);
    const names = workbook ? [...descendants(workbook, new Set(["sheet"]))].map((s) => s.attrs.name ?? "") : [];
    for (const [i, sheet] of sheets.entries()) {
      const root = xmlOf(zip, sheet, SHEET);
      if (root === null) continue;
      if (!c.add({ type: "sheet", name: names[i] || `${i + 1}` })) break;
      if (!xlsxSheet(root, shared, c)) break;
    }
    return true;
  }
  const root = xmlOf(zip, zip.entry("content.xml"), ODF);
  if (root === null) return false;
  if (kind === "ods") odfSheet(root, c);
  else odfText(root, c);
  return true;
}
