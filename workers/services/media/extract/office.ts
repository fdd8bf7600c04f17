import type { Collector } from "./collector";
import { attr, checkXml, elements, odfInline, runsText, unescapeXml } from "./xml";
import type { BoundedZip, ZipEntry } from "./zip";

/**
 * Office documents (ZIP archives of XML) to blocks: DOCX paragraphs with headings, PPTX slide paragraphs, XLSX and
 * ODS rows by sheet, ODT/ODP paragraphs. Only the XML parts that hold text are inflated, each checked (checkXml).
 */

export const OFFICE_KINDS = ["docx", "xlsx", "pptx", "odt", "ods", "odp"] as const;
export type OfficeKind = (typeof OFFICE_KINDS)[number];

function xmlOf(zip: BoundedZip, entry: ZipEntry | undefined): string | null {
  if (!entry) return null;
  const data = zip.read(entry);
  return data ? checkXml(new TextDecoder().decode(data)) : null;
}

/** Natural order of `slide2.xml` before `slide10.xml`. */
const numbered = (a: ZipEntry, b: ZipEntry) => a.name.localeCompare(b.name, "en", { numeric: true });

function docx(xml: string, c: Collector): boolean {
  for (const p of elements(xml, "w:p")) {
    const style = /<w:pStyle\b[^<>]*w:val="([^"<>]*)"/.exec(p.body)?.[1] ?? "";
    if (!c.add({ type: /^(Heading|Title)/i.test(style) ? "heading" : "paragraph", text: runsText(p.body, "w:") })) return false;
  }
  return true;
}

function slide(xml: string, c: Collector): boolean {
  for (const p of elements(xml, "a:p")) {
    const text = runsText(p.body, "a:");
    if (text.trim() && !c.add({ type: "paragraph", text })) return false;
  }
  return true;
}

function odfText(xml: string, c: Collector): void {
  const start = xml.indexOf("<office:body");
  const end = xml.lastIndexOf("</office:body>");
  const body = start >= 0 && end > start ? xml.slice(start, end) : xml;
  for (const p of elements(body, "text:h|text:p")) {
    if (!c.add({ type: p.name === "text:h" ? "heading" : "paragraph", text: odfInline(p.body) })) return;
  }
}

function odfSheet(xml: string, c: Collector): void {
  for (const table of elements(xml, "table:table")) {
    const name = attr(table.attrs, "table:name");
    if (name !== undefined && !c.add({ type: "sheet", name })) return;
    for (const row of elements(table.body, "table:table-row")) {
      const cells = [...elements(row.body, "table:table-cell")].map((cell) =>
        [...elements(cell.body, "text:p")].map((p) => odfInline(p.body)).join("\n"),
      );
      while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
      if (cells.length > 0 && !c.add({ type: "row", cells })) return;
    }
  }
}

function columnIndex(ref: string): number {
  const letters = /^([A-Z]{1,3})/.exec(ref)?.[1] ?? "";
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function xlsxSheet(xml: string, shared: string[], c: Collector): boolean {
  for (const row of elements(xml, "row")) {
    const cells: string[] = [];
    for (const cell of elements(row.body, "c")) {
      const type = attr(cell.attrs, "t");
      const ref = attr(cell.attrs, "r");
      const raw = /<v>([^<]*)<\/v>/.exec(cell.body)?.[1];
      let value = "";
      if (type === "s" && raw !== undefined) value = shared[Number(raw)] ?? "";
      else if (type === "inlineStr") value = runsText(cell.body, "");
      else if (raw !== undefined) value = unescapeXml(raw);
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

/**
 * Reads an office document into the collector; false when the archive is not that kind of document (its main
 * part is missing). `extras`: also headers, footers, footnotes (DOCX) and speaker notes (PPTX), for the index.
 */
export function readOffice(kind: OfficeKind, zip: BoundedZip, c: Collector, extras: boolean): boolean {
  if (kind === "docx") {
    const xml = xmlOf(zip, zip.entry("word/document.xml"));
    if (xml === null) return false;
    if (!docx(xml, c)) return true;
    if (extras) {
      for (const part of zip.entries.filter((e) => /^word\/(header|footer|footnotes)\d*\.xml$/.test(e.name)).sort(numbered)) {
        if (!docx(xmlOf(zip, part) ?? "", c)) break;
      }
    }
    return true;
  }
  if (kind === "pptx") {
    const pattern = extras ? /^ppt\/(slides\/slide|notesSlides\/notesSlide)\d+\.xml$/ : /^ppt\/slides\/slide\d+\.xml$/;
    const slides = zip.entries.filter((e) => pattern.test(e.name)).sort(numbered);
    if (slides.length === 0) return false;
    for (const part of slides) if (!slide(xmlOf(zip, part) ?? "", c)) break;
    return true;
  }
  if (kind === "xlsx") {
    const sheets = zip.entries.filter((e) => /^xl\/worksheets\/sheet\d+\.xml$/.test(e.name)).sort(numbered);
    if (sheets.length === 0) return false;
    const sharedXml = xmlOf(zip, zip.entry("xl/sharedStrings.xml")) ?? "";
    const shared = [...elements(sharedXml, "si")].map((si) => runsText(si.body, ""));
    const workbook = xmlOf(zip, zip.entry("xl/workbook.xml")) ?? "";
    const names = [...elements(workbook, "sheet")].map((s) => attr(s.attrs, "name") ?? "");
    for (const [i, sheet] of sheets.entries()) {
      const xml = xmlOf(zip, sheet);
      if (xml === null) continue;
      if (!c.add({ type: "sheet", name: names[i] || `${i + 1}` })) break;
      if (!xlsxSheet(xml, shared, c)) break;
    }
    return true;
  }
  const xml = xmlOf(zip, zip.entry("content.xml"));
  if (xml === null) return false;
  if (kind === "ods") odfSheet(xml, c);
  else odfText(xml, c);
  return true;
}
